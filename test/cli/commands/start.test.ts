import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { killBots, lineReader, runBot, spawnBot, type BotChild } from "../../helpers/cli.ts";
import { EXAMPLE_BOTS, exampleBotsDir } from "../../helpers/examples.ts";

// A copy of the example bots: what a user adds to bots/ changes nothing here.
const botsDir = await exampleBotsDir();

/** `bot start` on the example bots, as `npm start` runs it: JSON logs (no terminal). */
function startBot(data: string): { child: BotChild; lines: Array<Record<string, unknown>>; waitFor(msg: RegExp): Promise<Record<string, unknown>> } {
  const child = spawnBot(["start", "--bots", botsDir, "--data", data]);
  const reader = lineReader(child.stdout);
  const parse = (line: string) => JSON.parse(line) as Record<string, unknown>;
  return {
    child,
    get lines() {
      return reader.lines.map(parse);
    },
    waitFor: async (msg) => parse(await reader.waitFor(new RegExp(`"msg":"${msg.source}`))),
  };
}

const exited = (child: BotChild) => new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));

const bot = runBot;

const dirs: string[] = [dirname(botsDir)];
afterEach(killBots);
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

describe("bot start (the npm start demo)", () => {
  it("runs the example bots on an embedded sandbox, stops on SIGTERM with exit 0, and continues after a restart", async () => {
    const data = await mkdtemp(join(tmpdir(), "postbot-start-"));
    dirs.push(data);
    const first = startBot(data);
    await first.waitFor(/all bots started/);
    expect(String(first.lines[0]!.msg)).toMatch(/^no POSTBOT_BASE_URL set: running 5 bots against an embedded sandbox at http:\/\/127\.0\.0\.1:\d+ with \d+ simulated users/);
    const code = exited(first.child);
    const stopAt = Date.now();
    first.child.kill("SIGTERM");
    expect(await code).toBe(0);
    expect(Date.now() - stopAt).toBeLessThan(10_000);
    expect(first.lines.at(-1)!.msg).toBe("stopped; state saved");
    for (const file of ["state.json", "sandbox.json"]) expect((await stat(join(data, file))).mode & 0o777).toBe(0o600);
    // Secrets stay in the state files.
    const logged = first.lines.map((l) => JSON.stringify(l)).join("\n");
    expect(logged).not.toMatch(/token_secret|consumer_secret|"token":/);

    const status = await bot(["status", "--data", data]);
    expect(status.code).toBe(0);
    for (const name of EXAMPLE_BOTS) expect(status.stdout).toMatch(new RegExp(`^${name}  @${name} `, "m"));
    expect(status.stdout).toMatch(/^fan  @fan  pro  stopped \d+s ago$/m);
    expect(status.stdout).toMatch(/budget {5}.*reply \d+/);

    // A restart finds the same accounts in the saved sandbox.
    const accounts = async () =>
      (JSON.parse((await bot(["status", "--data", data, "--json"])).stdout) as Array<{ bot: string; userId: string }>).map((r) => `${r.bot}:${r.userId}`);
    const before = await accounts();
    expect(before).toHaveLength(5);
    const again = startBot(data);
    await again.waitFor(/all bots started/);
    const code2 = exited(again.child);
    again.child.kill("SIGINT");
    expect(await code2).toBe(0);
    expect(await accounts()).toEqual(before);
  }, 60_000);

  it("refuses a second process on the same data directory", async () => {
    const data = await mkdtemp(join(tmpdir(), "postbot-start-"));
    dirs.push(data);
    const first = startBot(data);
    await first.waitFor(/all bots started/);
    const second = await bot(["start", "--data", data]);
    expect(second.code).toBe(1);
    expect(second.stderr).toMatch(/another postbot process \(pid \d+\) is using the state/);
    expect(second.stderr).not.toMatch(/\n\s+at /);
    const code = exited(first.child);
    first.child.kill("SIGTERM");
    expect(await code).toBe(0);
  }, 60_000);

  it("reports bad flags and bad bot files without a stack trace", async () => {
    const only = await bot(["start", "--bots", botsDir, "--only", "nobody", "--data", join(tmpdir(), "postbot-unused")]);
    expect(only.code).toBe(2);
    expect(only.stderr).toMatch(/--only nobody: no such bot; the bots are fan, friendly, greeter, host, morning/);
    const broken = await bot(["start", "--bots", "test/fixtures/config/broken/bots", "--plugins", "test/fixtures/plugins", "--data", join(tmpdir(), "postbot-unused")]);
    expect(broken.code).toBe(1);
    expect(broken.stderr).toMatch(/unknown-plan\.yaml:2:7 plan: "gold" is not a plan/);
    expect(broken.stderr).toMatch(/problem\(s\) in the bot files/);
    expect(broken.stderr).not.toMatch(/\n\s+at /);
  }, 60_000);
});

describe("bot status", () => {
  it("says when there is no state yet", async () => {
    const res = await bot(["status", "--data", join(tmpdir(), "postbot-nothing-here")]);
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/no state in .*postbot-nothing-here: no bot has run with this data directory/);
  });
});
