/**
 * A newcomer takes the demo's quiz by DM, twice in a row, each step with `bot say --dm --wait`
 * (the `dialog` plugin answers in DMs, not `reply`): every answer is printed, even though the
 * user's own reads of the conversation (15 per 15 minutes) are spent, because `--wait` reads
 * none of them. A real "no answer" says what became of the message.
 */
import { copyFile, mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, expect, it } from "vitest";
import { createClient } from "../../../src/api/client.ts";
import { RateLimitError } from "../../../src/api/errors.ts";
import { systemClock } from "../../../src/clock.ts";
import { killBots, lineReader, runBot, spawnBot } from "../../helpers/cli.ts";

const dirs: string[] = [];
afterEach(killBots);
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

/** The DM read the user's window limits, as the sandbox counts it. */
const USER_READ = "GET /2/dm_conversations/with/:participant_id/dm_events";

it("takes the quiz by DM twice with --wait and prints every answer, the user's DM reads spent", async () => {
  const dir = await mkdtemp(join(tmpdir(), "postbot-dm-quiz-"));
  dirs.push(dir);
  const bots = join(dir, "bots");
  const data = join(dir, "data");
  await mkdir(bots);
  await copyFile("bots/quiz.yaml", join(bots, "quiz.yaml")); // the example, as the demo runs it
  const demo = spawnBot(["start", "--bots", bots, "--data", data]);
  const log = lineReader(demo.stdout);
  await log.waitFor(/"msg":"all bots started/);
  const access = JSON.parse(await readFile(join(data, "demo.json"), "utf8")) as { url: string; admin_token: string };
  const adminCall = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${access.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${access.admin_token}`, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    expect(res.status).toBe(200);
    return res.json() as Promise<Record<string, unknown>>;
  };

  // alice (made on first use) sends quiz a word that starts nothing.
  const hello = await runBot(["say", "--data", data, "--dm", "--as", "alice", "quiz", "hello"]);
  expect(hello).toMatchObject({ code: 0, stderr: "" });

  // Another client of alice's reads the conversation until her window is spent.
  const users = JSON.parse(await readFile(join(data, "demo-users.json"), "utf8")) as {
    app: { consumer_key: string; consumer_secret: string };
    users: Record<string, { token: string; token_secret: string }>;
  };
  const base = createClient({ baseUrl: access.url, clock: systemClock });
  const alice = base.withAuth({
    consumer: { key: users.app.consumer_key, secret: users.app.consumer_secret },
    user: { token: users.users.alice!.token, secret: users.users.alice!.token_secret },
  });
  try {
    const quizId = (await alice.users.byUsername("quiz")).data!.id;
    let refused: unknown;
    for (let i = 0; i < 20 && !refused; i++)
      await alice.dms.eventsWith(quizId, { event_types: ["MessageCreate"] }).catch((err: unknown) => (refused = err));
    expect(refused).toBeInstanceOf(RateLimitError);
  } finally {
    await base.close();
  }
  const readsBefore = ((await adminCall("GET", "/_sandbox/stats")).routes as Record<string, unknown>)[USER_READ];
  expect(readsBefore).toEqual({ "200": 15, "429": 1 });

  /** One step: alice's DM with --wait; the demo's clock moves to quiz's next DM check; its answer. */
  const step = async (text: string) => {
    const say = spawnBot(["say", "--data", data, "--dm", "--as", "alice", "--wait", "quiz", text]);
    const out = lineReader(say.stdout);
    let err = "";
    say.stderr.on("data", (d: Buffer) => (err += d.toString()));
    const exit = new Promise<number | null>((resolve) => say.once("exit", resolve));
    await out.waitFor(/^waiting for @quiz \(reads its DMs every 60 s\) until \d\d:\d\d:\d\d$/);
    await adminCall("POST", "/_sandbox/clock", { advance_ms: 60_000 });
    expect([await exit, err]).toEqual([0, ""]);
    expect(out.lines[0]).toMatch(new RegExp(`^@alice sent @quiz a DM \\d+ \\(conversation \\d+-\\d+\\): "${text}"$`));
    return out.lines.slice(2).map((l) => /^@quiz answered \d+: "(.*)"$/.exec(l)?.[1] ?? l);
  };
  for (const name of ["I don't know", "Ann"]) {
    expect(await step("quiz")).toEqual(["What's your name?"]);
    expect(await step(name)).toEqual([`Hi ${name}! Favourite colour: red, green or blue?`]);
    expect(await step("GREEN.")).toEqual([`Thanks ${name}, green it is. Bye!`]);
  }
  // None of it read alice's conversation as her: her window stays as it was.
  expect(((await adminCall("GET", "/_sandbox/stats")).routes as Record<string, unknown>)[USER_READ]).toEqual(
    readsBefore,
  );

  // A real "no answer": quiz has not read its DMs since (the clock stays), and it says so.
  const unseen = await runBot(["say", "--data", data, "--dm", "--as", "alice", "--wait", "2", "quiz", "again?"]);
  expect(unseen.code).toBe(1);
  expect(unseen.stderr).toMatch(
    /^bot: no answer within 2 s: @quiz has not seen it yet \(its DMs were last checked at \d\d:\d\d:\d\d\): the demo may be busy; wait longer with --wait SECONDS\n$/,
  );

  const stopped = new Promise<number | null>((resolve) => demo.once("exit", resolve));
  demo.kill("SIGTERM");
  expect(await stopped).toBe(0);
}, 180_000);
