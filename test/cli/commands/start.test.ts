import { mkdtemp, readdir, rm, stat, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { createClock } from "../../../src/clock.ts";
import { createSandbox } from "../../../src/sandbox/index.ts";
import { killBots, lineReader, runBot, spawnBot, type BotChild } from "../../helpers/cli.ts";
import { EXAMPLE_BOTS, exampleBotsDir } from "../../helpers/examples.ts";

// A copy of the example bots: what a user adds to bots/ changes nothing here.
const botsDir = await exampleBotsDir();

/** `bot start` on the example bots, as `npm start` runs it: JSON logs (no terminal). */
function startBot(data: string): {
  child: BotChild;
  lines: Array<Record<string, unknown>>;
  waitFor(msg: RegExp): Promise<Record<string, unknown>>;
} {
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

const exited = (child: BotChild) =>
  new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));

const bot = runBot;

const dirs: string[] = [dirname(botsDir)];
afterEach(killBots);
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

describe("bot start (the npm start demo)", () => {
  it("runs the example bots on an embedded sandbox, refuses a second process on its data directory, stops on SIGTERM with exit 0, and continues after a restart", async () => {
    const data = await mkdtemp(join(tmpdir(), "postbot-start-"));
    dirs.push(data);
    const first = startBot(data);
    await first.waitFor(/all bots started/);
    expect(String(first.lines[0]!.msg)).toMatch(
      new RegExp(
        `^no POSTBOT_BASE_URL set: running ${EXAMPLE_BOTS.length} bots against an embedded sandbox at http://127\\.0\\.0\\.1:\\d+ with \\d+ simulated users`,
      ),
    );

    // A second process on the same data directory, while this one (the demo) runs, is refused, saying what to do.
    const second = await bot(["start", "--data", data]);
    expect(second.code).toBe(1);
    expect(second.stderr).toBe(
      `bot: the demo (npm start, pid ${first.child.pid}) is running with the data directory ${data}, and two bot start cannot share one: stop the demo first (Ctrl-C where it runs, or kill ${first.child.pid}), then run this again, or give this one another data directory (--data DIR)\n`,
    );
    expect(second.stderr).not.toMatch(/\n\s+at /);

    const code = exited(first.child);
    const stopAt = Date.now();
    first.child.kill("SIGTERM");
    expect(await code).toBe(0);
    expect(Date.now() - stopAt).toBeLessThan(10_000);
    expect(first.lines.at(-1)!.msg).toBe("stopped; state saved");
    const stateFiles = (await readdir(join(data, "state"), { recursive: true }))
      .map(String)
      .filter((f) => f.endsWith(".json"));
    // The bots' status (saved at the stop) and the app's bearer token; a bot's own file comes
    // with its first cursor, inbox or ledger entry (who its account is was known without one).
    expect(stateFiles).toEqual(expect.arrayContaining(["status.json", "credentials.json"]));
    for (const file of ["sandbox.json", ...stateFiles.map((f) => join("state", f))])
      expect((await stat(join(data, file))).mode & 0o777, file).toBe(0o600);
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
      (
        JSON.parse((await bot(["status", "--data", data, "--json"])).stdout) as Array<{ bot: string; userId: string }>
      ).map((r) => `${r.bot}:${r.userId}`);
    const before = await accounts();
    expect(before).toHaveLength(EXAMPLE_BOTS.length);
    const again = startBot(data);
    await again.waitFor(/all bots started/);
    const code2 = exited(again.child);
    again.child.kill("SIGINT");
    expect(await code2).toBe(0);
    expect(await accounts()).toEqual(before);
  }, 60_000);

  it("reports bad flags and bad bot files without a stack trace", async () => {
    const only = await bot([
      "start",
      "--bots",
      botsDir,
      "--only",
      "nobody",
      "--data",
      join(tmpdir(), "postbot-unused"),
    ]);
    expect(only.code).toBe(2);
    expect(only.stderr).toMatch(`--only nobody: no such bot; the bots are ${EXAMPLE_BOTS.join(", ")}`);
    const broken = await bot([
      "start",
      "--bots",
      "test/fixtures/config/broken/bots",
      "--plugins",
      "test/fixtures/plugins",
      "--data",
      join(tmpdir(), "postbot-unused"),
    ]);
    expect(broken.code).toBe(1);
    expect(broken.stderr).toMatch(/unknown-plan\.yaml:2:7 plan: "gold" is not a plan/);
    expect(broken.stderr).toMatch(/^\d+ problems in the bot files; fix them/m);
    expect(broken.stderr).not.toMatch(/\n\s+at /);
  }, 60_000);
});

describe("bot start against a configured service: the user's mistakes are not bugs", () => {
  /** A bots directory with one bot whose token comes from the environment. */
  async function oneBot(): Promise<string> {
    const dir = await mkdtemp(join(tmpdir(), "postbot-service-cli-"));
    dirs.push(dir);
    await writeFile(
      join(dir, "solo.yaml"),
      "name: solo\nplan: pro\naccount:\n  token: ${SOLO_TOKEN}\n  token_secret: ${SOLO_SECRET}\ntriggers: { mentions: {} }\nplugins: { reply: { text: hi } }\n",
    );
    return dir;
  }

  it("a service that cannot be reached: says so, keeps trying, and Ctrl-C stops it with exit 0", async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as { port: number };
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const dir = await oneBot();
    const env = {
      POSTBOT_BASE_URL: `http://127.0.0.1:${port}`,
      POSTBOT_CONSUMER_KEY: "k",
      POSTBOT_CONSUMER_SECRET: "s",
      SOLO_TOKEN: "t",
      SOLO_SECRET: "ts",
    };
    const child = spawnBot(["start", "--bots", dir, "--data", join(dir, "data")], { env });
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const out = lineReader(child.stdout);
    const line = JSON.parse(await out.waitFor(/cannot reach the service/)) as { msg: string };
    expect(line.msg).toBe(
      `cannot reach the service at http://127.0.0.1:${port} (connection refused: is the service (or the sandbox) running at this address?); trying again in 1 s (Ctrl-C stops)`,
    );
    const code = exited(child);
    child.kill("SIGINT");
    expect(await code).toBe(0);
    expect(stderr).toBe("");
    expect(out.lines.join("\n")).not.toMatch(/bug in postbot/);
  }, 60_000);

  it("a wrong API key secret: exit 1 naming what to check, no stack trace, no secret", async () => {
    const sandbox = await createSandbox({ clock: createClock() });
    try {
      const app = await sandbox.admin.createApp({ plan: "pro" });
      const dir = await oneBot();
      const env = {
        POSTBOT_BASE_URL: sandbox.url,
        POSTBOT_CONSUMER_KEY: app.consumer_key,
        POSTBOT_CONSUMER_SECRET: "not-the-secret",
        SOLO_TOKEN: "t",
        SOLO_SECRET: "ts",
      };
      const run = await bot(["start", "--bots", dir, "--data", join(dir, "data")], env);
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(
        /^bot: the service at http:\/\/127\.0\.0\.1:\d+ refused the app's keys \(401, code 32 "Could not authenticate you"\); check POSTBOT_CONSUMER_KEY and POSTBOT_CONSUMER_SECRET/,
      );
      expect(run.stderr).not.toMatch(/bug in postbot|\n\s+at /);
      expect(run.stderr + run.stdout).not.toContain("not-the-secret");
    } finally {
      await sandbox.close();
    }
  }, 60_000);
});

describe("bot status", () => {
  it("says when there is no state yet", async () => {
    const res = await bot(["status", "--data", join(tmpdir(), "postbot-nothing-here")]);
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/no state in .*postbot-nothing-here: no bot has run with this data directory/);
  });
});
