/**
 * Talking to the demo as a user would: `bot start` (no service: the embedded sandbox) in one
 * child process, `bot say --as alice "@greeter hi"` in another, and greeter answers; `bot say
 * --dm --as alice desk "..."` sends desk a direct message, and desk answers in that conversation.
 */
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { killBots, lineReader, runBot, spawnBot } from "../../helpers/cli.ts";

const dirs: string[] = [];
afterEach(killBots);
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

describe("bot say and bot follow (the demo's users)", () => {
  it("a demo user mentions a bot and the bot answers; the admin token stays in the state directory", async () => {
    const data = await mkdtemp(join(tmpdir(), "postbot-say-"));
    dirs.push(data);
    // POSTBOT_SANDBOX_PORT picks the embedded sandbox's port.
    const free = createServer();
    await new Promise<void>((resolve) => free.listen(0, "127.0.0.1", resolve));
    const { port } = free.address() as { port: number };
    await new Promise<void>((resolve) => free.close(() => resolve()));
    const demo = spawnBot(["start", "--bots", "test/fixtures/cli/demo-bots", "--data", data], {
      env: { POSTBOT_SANDBOX_PORT: String(port) },
    });
    const log = lineReader(demo.stdout);
    const hint = JSON.parse(await log.waitFor(/talk to the bots/)) as { msg: string };
    expect(hint.msg).toBe(
      `talk to the bots as a user of the demo: npx bot say --data ${data} --as alice "@greeter hello" (add --reply-to POST_ID to answer a post); npx bot follow --data ${data} --as alice greeter`,
    );
    const published = JSON.parse(await readFile(join(data, "demo.json"), "utf8")) as {
      url: string;
      admin_token: string;
      pid: number;
    };
    expect((await stat(join(data, "demo.json"))).mode & 0o777).toBe(0o600);
    expect(published.url).toBe(`http://127.0.0.1:${port}`);
    expect(published.pid).toBe(demo.pid);
    expect(log.lines.join("\n")).not.toContain(published.admin_token);

    // Another bot start on the demo's data directory: what to do, rather than a refused lock.
    const beside = await runBot([
      "start",
      "--bots",
      "test/fixtures/cli/demo-bots",
      "--data",
      data,
      "--only",
      "greeter",
    ]);
    expect(beside.code).toBe(1);
    expect(beside.stderr).toBe(
      `bot: the demo (npm start, pid ${demo.pid}) is running with the data directory ${data}, and two bot start cannot share one. greeter runs in the demo already (it starts the bot files saved in its bots directory): talk to it with npx bot say --as alice "@greeter hi". To run greeter alone, stop the demo first (Ctrl-C where it runs, or kill ${demo.pid}), then run this again\n`,
    );

    const said = await runBot(["say", "--data", data, "--as", "alice", "@greeter hi"]);
    expect(said.stderr).toBe("");
    expect(said.code).toBe(0);
    // Its own post's id on the first line; the demo's log names the id of the reply greeter made.
    const postId = /^@alice posted (\d+): "@greeter hi"\n/.exec(said.stdout)?.[1];
    expect(postId).toBeDefined();
    const reply = JSON.parse(
      await log.waitFor(new RegExp(`"bot":"greeter".*"action":"reply","target":"${postId}","status":"sent"`)),
    ) as { msg: string; made_id: string };
    expect(reply.msg).toBe(
      `reply to post ${postId} "Hello @alice! You said: @greeter hi": sent as post ${reply.made_id}`,
    );
    expect(reply.made_id).toMatch(/^\d+$/);

    // bob waits for the answer and sees it in his terminal.
    const waited = await runBot(["say", "--data", data, "--as", "bob", "--wait", "60", "@greeter are you there?"]);
    expect(waited.stderr).toBe("");
    expect(waited.code).toBe(0);
    expect(waited.stdout).toMatch(
      /^@bob posted (\d+): "@greeter are you there\?"\n@greeter answered \d+: "Hello @bob! You said: @greeter are you there\?"\nAnswer a reply with --reply-to ITS_ID\.\n$/,
    );

    // --wait alone, then the text (as the README writes it): it says whom it waits for, and until when.
    const alone = await runBot(["say", "--data", data, "--as", "bob", "--wait", "@greeter hello"]);
    expect(alone.stderr).toBe("");
    expect(alone.code).toBe(0);
    expect(alone.stdout).toMatch(
      /^@bob posted (\d+): "@greeter hello"\nwaiting for @greeter \(a mention, seen through the stream, within seconds\) until \d\d:\d\d:\d\d\n@greeter answered \d+: "Hello @bob! You said: @greeter hello"\nAnswer a reply with --reply-to ITS_ID\.\n$/,
    );

    // A bot whose account's username is not its name (a connected account's bot): waited for by
    // the username its posts are mentioned by, like any other.
    const maya = await runBot(["say", "--data", data, "--as", "bob", "--wait", "@maya_greeter hello"]);
    expect(maya.stderr).toBe("");
    expect(maya.code).toBe(0);
    expect(maya.stdout).toMatch(
      /^@bob posted (\d+): "@maya_greeter hello"\nwaiting for @maya_greeter \(bot maya-greeter\) \(a mention, seen through the stream, within seconds\) until \d\d:\d\d:\d\d\n@maya_greeter answered \d+: "Maya here, @bob: @maya_greeter hello"\nAnswer a reply with --reply-to ITS_ID\.\n$/,
    );

    // --wait alone for a post no bot answers: says so at once, naming the bots that answer by their accounts.
    const nobody = await runBot(["say", "--data", data, "--as", "carol", "--wait", "hello everyone"]);
    expect(nobody.code).toBe(1);
    expect(nobody.stderr).toBe(
      "bot: no bot of the demo answers this post: it mentions none that answers mentions, and replies to no post of one that answers replies; the bots that answer: @greeter (mentions), @maya_greeter (bot maya-greeter: mentions)\n",
    );

    // A post no bot answers: --wait says so after its time, with what to check.
    const unanswered = await runBot(["say", "--data", data, "--as", "carol", "--wait", "1", "nobody mentioned"]);
    expect(unanswered.code).toBe(1);
    expect(unanswered.stderr).toMatch(/^bot: no answer within 1 s: does a bot of the demo have a mentions trigger/);

    // alice again (her token is kept, mode 0600), as a reply, and a follow.
    const again = await runBot(["say", "--data", data, "--as", "alice", "--reply-to", postId!, "thanks!"]);
    expect(again.code).toBe(0);
    expect((await stat(join(data, "demo-users.json"))).mode & 0o777).toBe(0o600);
    const followed = await runBot(["follow", "--data", data, "--as", "alice", "greeter"]);
    expect(followed).toMatchObject({
      code: 0,
      stdout: "@alice follows @greeter; a bot with a followers trigger sees it at its next poll.\n",
    });
    // A bot by its name follows its account.
    expect(await runBot(["follow", "--data", data, "--as", "alice", "maya-greeter"])).toMatchObject({
      code: 0,
      stdout: "@alice follows @maya_greeter; a bot with a followers trigger sees it at its next poll.\n",
    });

    // A direct message: desk (pro) reads its DMs every minute; the test moves the demo's clock instead of waiting.
    expect(JSON.parse(await log.waitFor(/send a bot a direct message/)).msg).toBe(
      `send a bot a direct message as a user of the demo: npx bot say --data ${data} --dm --as alice desk "hello" (add --wait to see its answer)`,
    );
    const dm = spawnBot(["say", "--data", data, "--dm", "--as", "alice", "--wait", "desk", "are you open?"]);
    const dmOut = lineReader(dm.stdout);
    let dmErr = "";
    dm.stderr.on("data", (d: Buffer) => (dmErr += d.toString()));
    const dmExit = new Promise<number | null>((resolve) => dm.once("exit", resolve));
    await dmOut.waitFor(/^waiting for @desk/);
    const res = await fetch(`${published.url}/_sandbox/clock`, {
      method: "POST",
      headers: { authorization: `Bearer ${published.admin_token}`, "content-type": "application/json" },
      body: JSON.stringify({ advance_ms: 60_000 }),
    });
    expect(res.status).toBe(200);
    expect(await dmExit).toBe(0);
    expect(dmErr).toBe("");
    const dmLines = dmOut.lines.join("\n");
    expect(dmLines).toMatch(
      /^@alice sent @desk a DM (\d+) \(conversation (\d+-\d+)\): "are you open\?"\nwaiting for @desk \(reads its DMs every 60 s\) until \d\d:\d\d:\d\d\n@desk answered \d+: "Hi alice, desk here\. You wrote: are you open\?"$/,
    );
    // desk's log says it answered that message.
    const messageId = /a DM (\d+)/.exec(dmLines)![1]!;
    await log.waitFor(new RegExp(`"bot":"desk".*"action":"dm","target":"re:${messageId}","status":"sent"`));

    // Without --wait: sent, and what to expect. To a bot that answers no DMs, --wait alone says so at once.
    const sent = await runBot(["say", "--data", data, "--dm", "--as", "bob", "desk", "hello"]);
    expect(sent).toMatchObject({ code: 0, stderr: "" });
    expect(sent.stdout).toMatch(
      /^@bob sent @desk a DM \d+ \(conversation \d+-\d+\): "hello"\n@desk sees it at its next DM check \(every 60 s\): watch the demo's log, or add --wait\.\n$/,
    );
    const notDesk = await runBot(["say", "--data", data, "--dm", "--as", "bob", "--wait", "greeter", "hello"]);
    expect(notDesk).toMatchObject({
      code: 1,
      stderr:
        "bot: @greeter does not answer direct messages; the bots that answer DMs: @desk (reads its DMs every 60 s)\n",
    });

    const stopped = new Promise<number | null>((resolve) => demo.once("exit", resolve));
    demo.kill("SIGTERM");
    expect(await stopped).toBe(0);
    await expect(stat(join(data, "demo.json"))).rejects.toThrow(/ENOENT/);
  }, 120_000);

  it("says to start the demo when none runs, and what --wait takes", async () => {
    const run = await runBot(["say", "--data", join(tmpdir(), "postbot-no-demo"), "--as", "alice", "hi"]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /^bot: no demo is running with the data directory .*postbot-no-demo .*start it with `npm start`/,
    );
    const badWait = await runBot([
      "say",
      "--data",
      join(tmpdir(), "postbot-no-demo"),
      "--as",
      "alice",
      "--wait",
      "soon",
      "hi",
    ]);
    expect(badWait).toMatchObject({
      code: 2,
      stderr:
        "bot: --wait soon: expected whole seconds from 1 to 600 (or --wait alone to wait as long as the bots need)\n",
    });
    // Two words without --dm: the text was not quoted. --dm needs the bot and the text, and no --reply-to.
    const noDemo = join(tmpdir(), "postbot-no-demo");
    expect(await runBot(["say", "--data", noDemo, "--as", "alice", "hello", "there"])).toMatchObject({
      code: 2,
      stderr:
        'bot: too many words: quote the text to post (bot say --as alice "hello there"), or add --dm to send a bot a direct message\n',
    });
    expect(await runBot(["say", "--data", noDemo, "--dm", "--as", "alice", "--wait", "desk"])).toMatchObject({
      code: 2,
      stderr:
        "bot: missing the bot and the text of the message: bot say --dm --as USER [--wait] BOT TEXT (quote the text)\n",
    });
    expect(
      await runBot(["say", "--data", noDemo, "--dm", "--as", "alice", "--reply-to", "1", "desk", "hi"]),
    ).toMatchObject({
      code: 2,
      stderr: "bot: --reply-to answers a post; a direct message has none (drop --dm or --reply-to)\n",
    });
  }, 60_000);
});
