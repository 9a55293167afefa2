/**
 * `bot start --dry-run` on the demo's helpdesk bot (llm-reply, its model the embedded
 * sandbox's stand-in), as a user runs it: the model is asked, the text is shaped and checked,
 * the log line shows the whole text that would have been posted, and nothing is posted. The
 * state is left as the dry run found it: nothing reaches the data directory's state (not the
 * ledger, nor the cursors, inbox or stream marks), so a later real start answers what the dry
 * run saw. It starts from the real state all the same: what a real run answered is not
 * "would be" answered again, and its model budget is what the real run left. With the state
 * in Redis, a dry run is refused.
 */
import { existsSync } from "node:fs";
import { readFile, readdir, rm, stat, writeFile } from "node:fs/promises";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import type { StatusView } from "../../../src/observe/status-view.ts";
import { standInText } from "../../../src/sandbox/chat/compose.ts";
import { killBots, lineReader, runBot, spawnBot, type BotChild } from "../../helpers/cli.ts";
import { exampleBotsDir } from "../../helpers/examples.ts";

// A copy of the example bots: what a user adds to bots/ changes nothing here.
const botsDir = await exampleBotsDir();
const dirs: string[] = [dirname(botsDir)];
afterEach(killBots);
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

const exited = (child: BotChild) =>
  new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));

async function dataDir(): Promise<string> {
  const data = await mkdtemp(join(tmpdir(), "postbot-dry-run-"));
  dirs.push(data);
  return data;
}

/** Starts helpdesk alone on `data` (`--dry-run` when asked) and waits until it runs. */
async function startHelpdesk(data: string, dryRun: boolean, more: { bots?: string; args?: string[] } = {}) {
  const child = spawnBot([
    "start",
    ...(dryRun ? ["--dry-run"] : []),
    "--bots",
    more.bots ?? botsDir,
    "--only",
    "helpdesk",
    "--data",
    data,
    ...(more.args ?? []),
  ]);
  const out = lineReader(child.stdout);
  await out.waitFor(/"msg":"all bots started/);
  return { child, out };
}

/** Stops a `bot start` as a service manager does (SIGTERM) and returns its exit code. */
async function stop(child: BotChild): Promise<number | null> {
  const code = exited(child);
  child.kill("SIGTERM");
  return code;
}

/** Alice's user id in each data directory's sandbox (kept in its sandbox.json across starts). */
const alices = new Map<string, string>();

/**
 * Alice mentions helpdesk: a post made through the embedded sandbox's admin API, with the
 * access `bot start` publishes in the data directory (what `bot say` reads; `bot say` itself is
 * ./say.test.ts's, and a process of it costs ~0.6 s of CPU for one post); returns its id.
 */
async function mention(data: string, text: string): Promise<string> {
  const { url, admin_token } = JSON.parse(await readFile(join(data, "demo.json"), "utf8")) as {
    url: string;
    admin_token: string;
  };
  const admin = async (path: string, body: unknown) => {
    const res = await fetch(`${url}${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${admin_token}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    const answer = (await res.json()) as { id: string };
    expect(res.status, JSON.stringify(answer)).toBe(201);
    return answer.id;
  };
  let alice = alices.get(data);
  if (alice === undefined) alices.set(data, (alice = await admin("/_sandbox/users", { username: "alice" })));
  return admin("/_sandbox/posts", { author_id: alice, text });
}

/** Every file of the state directory: its bytes and mode, by path. */
async function stateFiles(data: string): Promise<Record<string, { bytes: string; mode: number }>> {
  const dir = join(data, "state");
  const files: Record<string, { bytes: string; mode: number }> = {};
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = join(entry.parentPath, entry.name);
    files[file.slice(dir.length + 1)] = { bytes: await readFile(file, "base64"), mode: (await stat(file)).mode };
  }
  return files;
}

/** The embedded sandbox's world, as it saved it at the stop. */
async function world(data: string) {
  return (
    JSON.parse(await readFile(join(data, "sandbox.json"), "utf8")) as {
      world: {
        users: Record<string, { id: string; username: string }>;
        posts: Record<string, { author_id: string; in_reply_to_post_id?: string }>;
      };
    }
  ).world;
}

describe("bot start --dry-run with llm-reply", () => {
  it("asks the model and logs the whole reply it would post; posts nothing, and writes no state", async () => {
    const data = await dataDir();
    const { child, out } = await startHelpdesk(data, true);

    const text = "@helpdesk my brakes squeak on wet days, what should I do?";
    const id = await mention(data, text);
    const line = JSON.parse(await out.waitFor(new RegExp(`"target":"${id}".*dry run, not sent`))) as Record<
      string,
      unknown
    >;
    // The stand-in's text, whole (longer than the 60 characters a sent reply's line keeps), with its number.
    const number = Number(/"\(sandbox stand-in, reply (\d+)\) /.exec(String(line.msg))?.[1]);
    const written = standInText(text, number);
    expect(written.length).toBeGreaterThan(60);
    expect(line).toMatchObject({
      bot: "helpdesk",
      action: "reply",
      status: "dry-run",
      dry_run: true,
      msg: `reply to post ${id} "${written}": dry run, not sent`,
    });

    expect(await stop(child)).toBe(0);
    expect(out.lines.at(-1)).toContain('"msg":"stopped; dry run: the state is as it was"');

    // Nothing posted: the sandbox (its state saved at the stop) holds no post by helpdesk.
    const { users, posts } = await world(data);
    const helpdesk = Object.values(users).find((u) => u.username === "helpdesk")!;
    expect(helpdesk).toBeDefined();
    expect(posts[id]).toBeDefined();
    expect(Object.values(posts).filter((p) => p.author_id === helpdesk.id)).toEqual([]);

    // No state written: not the reply's ledger entry, nor the bot's status, cursors or inbox.
    expect(existsSync(join(data, "state"))).toBe(false);
    const status = await runBot(["status", "--data", data, "--json"]);
    expect(status.code).not.toBe(0);
    expect(status.stderr).toContain(`no state in ${data}: no bot has run with this data directory`);
  }, 60_000);

  it("leaves a real run's state byte for byte as it was, and the next real start answers the mention the dry run saw", async () => {
    const data = await dataDir();
    const first = await startHelpdesk(data, false);
    expect(await stop(first.child)).toBe(0);
    const before = await stateFiles(data);
    expect(Object.keys(before).length).toBeGreaterThan(0);

    const dry = await startHelpdesk(data, true);
    const id = await mention(data, "@helpdesk is a dry run quiet?");
    await dry.out.waitFor(new RegExp(`"target":"${id}".*dry run, not sent`));
    expect(await stop(dry.child)).toBe(0);
    expect(await stateFiles(data)).toEqual(before);
    expect(existsSync(join(data, "state.lock"))).toBe(false);

    const real = await startHelpdesk(data, false);
    await real.out.waitFor(new RegExp(`"target":"${id}".*"status":"sent"`));
    expect(await stop(real.child)).toBe(0);
    const { users, posts } = await world(data);
    const helpdesk = Object.values(users).find((u) => u.username === "helpdesk")!;
    const replies = Object.values(posts).filter((p) => p.author_id === helpdesk.id && p.in_reply_to_post_id === id);
    expect(replies).toHaveLength(1);
  }, 90_000);

  it("starts from a real run's ledger and budget.llm: logs nothing for what it answered; the model's spent request is spent", async () => {
    // helpdesk with one model request a day: the real run spends it on the first mention it answers.
    const bots = await exampleBotsDir();
    dirs.push(dirname(bots));
    const file = join(bots, "helpdesk.yaml");
    await writeFile(file, (await readFile(file, "utf8")).replace(/^ {2}llm: .*$/m, "  llm: { requests: 1, per: 24h }"));
    const data = await dataDir();
    const real = await startHelpdesk(data, false, { bots });
    await mention(data, "@helpdesk my chain is rusty");
    // Alice's mention or one of the demo's crowd: whichever the real run answered with its one request.
    const sent = JSON.parse(await real.out.waitFor(/"action":"reply".*"status":"sent"/)) as { target: string };
    expect(await stop(real.child)).toBe(0);

    const dry = await startHelpdesk(data, true, { bots, args: ["--http", "127.0.0.1:0"] });
    const http = (JSON.parse(await dry.out.waitFor(/"msg":"status page at/)) as { http: string }).http;
    await mention(data, "@helpdesk and my brakes squeak");
    await mention(data, "@helpdesk and the bell is stuck");
    // The dry run's model budget is the real run's, its one request spent: the mentions wait in
    // the bot's inbox for it, none "would be" answered.
    const row = async () =>
      ((await (await fetch(`${http}/api/status`)).json()) as StatusView).bots.find((b) => b.bot === "helpdesk");
    await expect
      .poll(async () => {
        const r = await row();
        return { inbox: (r?.inbox ?? 0) >= 2, llm: r?.llm?.requests };
      })
      .toMatchObject({ inbox: true, llm: { used: 1, limit: 1 } });
    expect(await stop(dry.child)).toBe(0);
    // Nothing "would be" replied: not what the real run answered, nor anything past the spent budget.
    expect(dry.out.lines.filter((l) => l.includes(sent.target) && l.includes('"action":"reply"'))).toEqual([]);
    expect(dry.out.lines.filter((l) => l.includes("dry run, not sent"))).toEqual([]);
  }, 90_000);

  it("refuses a dry run with the state in Redis, naming the setting and what to do", async () => {
    const data = await dataDir();
    const flag = await runBot([
      "start",
      "--dry-run",
      "--state",
      "redis://127.0.0.1:1/0",
      "--bots",
      botsDir,
      "--only",
      "helpdesk",
      "--data",
      data,
    ]);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain("--dry-run with --state: a dry run leaves the state as it found it");
    expect(flag.stderr).toContain("run the dry run without --state");
    expect(flag.stderr).not.toMatch(/\n\s+at /);

    const env = await runBot(["start", "--dry-run", "--bots", botsDir, "--only", "helpdesk", "--data", data], {
      POSTBOT_STATE: "redis://127.0.0.1:1/0",
    });
    expect(env.code).toBe(2);
    expect(env.stderr).toContain("--dry-run with POSTBOT_STATE:");
    expect(env.stderr).toContain("run the dry run without POSTBOT_STATE (unset it)");
    expect(existsSync(join(data, "state"))).toBe(false);
  }, 30_000);
});
