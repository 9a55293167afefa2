/**
 * `bot start --dry-run` on the demo's helpdesk bot (llm-reply, its model the embedded
 * sandbox's stand-in), as a user runs it: the model is asked, the text is shaped and checked,
 * the log line shows the whole text that would have been posted, and nothing is posted or
 * recorded as sent in the state's ledger.
 */
import { readFile, readdir, rm } from "node:fs/promises";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
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

describe("bot start --dry-run with llm-reply", () => {
  it("asks the model and logs the whole reply it would post; posts nothing, and the ledger records nothing", async () => {
    const data = await mkdtemp(join(tmpdir(), "postbot-dry-run-"));
    dirs.push(data);
    const child = spawnBot(["start", "--dry-run", "--bots", botsDir, "--only", "helpdesk", "--data", data]);
    const out = lineReader(child.stdout);
    await out.waitFor(/"msg":"all bots started/);

    const text = "@helpdesk my brakes squeak on wet days, what should I do?";
    const said = await runBot(["say", "--data", data, "--as", "alice", text]);
    expect(said.code, said.stderr).toBe(0);
    const mention = /^@alice posted (\d+):/.exec(said.stdout)![1]!;
    const line = JSON.parse(await out.waitFor(new RegExp(`"target":"${mention}".*dry run, not sent`))) as Record<
      string,
      unknown
    >;
    // The stand-in's text, whole (longer than the 60 characters a sent reply's line keeps).
    const written = standInText(text);
    expect(written.length).toBeGreaterThan(60);
    expect(line).toMatchObject({
      bot: "helpdesk",
      action: "reply",
      status: "dry-run",
      dry_run: true,
      msg: `reply to post ${mention} "${written}": dry run, not sent`,
    });

    const code = exited(child);
    child.kill("SIGTERM");
    expect(await code).toBe(0);

    // Nothing posted: the sandbox (its state saved at the stop) holds no post by helpdesk.
    const world = (
      JSON.parse(await readFile(join(data, "sandbox.json"), "utf8")) as {
        world: {
          users: Record<string, { id: string; username: string }>;
          posts: Record<string, { author_id: string }>;
        };
      }
    ).world;
    const helpdesk = Object.values(world.users).find((u) => u.username === "helpdesk")!;
    expect(helpdesk).toBeDefined();
    expect(world.posts[mention]).toBeDefined();
    expect(Object.values(world.posts).filter((p) => p.author_id === helpdesk.id)).toEqual([]);

    // The state's ledger has no entry for the reply (a dry run's ledger lives in memory).
    const stateFiles = (await readdir(join(data, "state"), { recursive: true })).map(String);
    for (const file of stateFiles.filter((f) => f.endsWith(".json")))
      expect(await readFile(join(data, "state", file), "utf8"), file).not.toContain(`helpdesk:reply:${mention}`);
    const status = await runBot(["status", "--data", data, "--json"]);
    const helpdeskStatus = (JSON.parse(status.stdout) as Array<{ bot: string; lastAction?: unknown }>).find(
      (r) => r.bot === "helpdesk",
    )!;
    expect(helpdeskStatus).toBeDefined();
    expect(helpdeskStatus.lastAction).toBeUndefined();
  }, 60_000);
});
