/**
 * Bot files over the size a bot file may have (256 KB): refused before they are read or
 * parsed, with a problem naming the file and the limit, by `loadBots` (`bot validate`, `bot
 * start`), by the check of a text (the admin API, a bot kept in the state), and on the live
 * path: a file saved over the limit while the bots run is reported and its bot goes on as it
 * was, as do the others.
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createClock } from "../../src/clock.ts";
import { BOT_FILE_MAX_BYTES, loadBots, loadBotText, loadEnv, PluginCache } from "../../src/config/index.ts";
import { sandboxUsername } from "../../src/hosting/provision.ts";
import { start, type Started } from "../../src/hosting/start.ts";
import { captureLogs } from "../helpers/log.ts";
import { T0 } from "../helpers/sandbox.ts";

const PLUGINS = resolve("test/fixtures/fleet/plugins");
let started: Started | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await started?.stop();
  started = undefined;
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

const botFile = (name: string, text: string) =>
  `name: ${name}\nplan: pro\ntriggers:\n  mentions: {}\nplugins:\n  echo:\n    text: "${text}"\n`;

/**
 * A valid bot file padded past the limit with a comment that is not YAML a parser would
 * take (an unclosed flow mapping after it): read and parsed, it would be a syntax problem, so
 * only a check made before parsing reports its size.
 */
const oversized = (name: string, text: string) =>
  `${botFile(name, text)}# ${"x".repeat(BOT_FILE_MAX_BYTES)}\nbroken: {\n`;

async function project(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "postbot-size-"));
  dirs.push(dir);
  await mkdir(join(dir, "bots"));
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, "bots", name), text);
  return dir;
}

const SIZE_PROBLEM = /^is 25[67] KB, more than the 256 KB a bot file may have; it was not read/;

describe("bot files over 256 KB", () => {
  it("are refused by loadBots before parsing, naming the file and the limit; the others load", async () => {
    const dir = await project({ "big.yaml": oversized("big", "big"), "small.yaml": botFile("small", "small") });
    const { bots, problems } = await loadBots({ botsDir: join(dir, "bots"), pluginsDir: PLUGINS, cwd: dir, env: {} });
    expect(problems).toEqual([{ file: join("bots", "big.yaml"), message: expect.stringMatching(SIZE_PROBLEM) }]);
    expect(bots.map((b) => b.name)).toEqual(["small"]);
  });

  it("are refused as a text too (the admin API, a bot kept in the state)", async () => {
    const dir = await project({});
    const checked = await loadBotText({
      file: "request body",
      text: oversized("big", "big"),
      env: loadEnv({ botsDir: join(dir, "bots"), cwd: dir, env: {} }),
      others: [],
      plugins: new PluginCache(PLUGINS, dir),
    });
    expect(checked.bot).toBeUndefined();
    expect(checked.problems).toEqual([{ file: "request body", message: expect.stringMatching(SIZE_PROBLEM) }]);
  });

  it("saved while the bots run: reported, and every bot goes on (the one of that file as it was)", async () => {
    const dir = await project({ "alpha.yaml": botFile("alpha", "alpha v1"), "beta.yaml": botFile("beta", "beta v1") });
    const { lines, logger } = captureLogs("info");
    const s = (started = await start({
      bots: join(dir, "bots"),
      plugins: PLUGINS,
      data: join(dir, "data"),
      cwd: dir,
      env: {},
      clock: createClock({ frozen: true, start: T0 }),
      logger,
      watch: false,
    }));
    const messages = () => lines.map((l) => String(l.msg));
    await writeFile(join(dir, "bots", "alpha.yaml"), oversized("alpha", "alpha v2"));
    await writeFile(join(dir, "bots", "gamma.yaml"), oversized("gamma", "gamma"));
    await s.fleet.readFiles([join("bots", "alpha.yaml"), join("bots", "gamma.yaml")]);
    expect(messages()).toContainEqual(expect.stringMatching(/^bots\/alpha\.yaml is 25[67] KB, more than the 256 KB/));
    expect(messages()).toContain(
      "bots/alpha.yaml changed but has a problem; bot alpha goes on with the configuration it had (bot validate checks a file)",
    );
    expect(messages()).toContain("bots/gamma.yaml has a problem; its bot is not started (bot validate checks a file)");
    expect([...s.runtime.fleet().keys()].sort()).toEqual(["alpha", "beta"]);

    const { data } = s.sandbox!.context;
    const alice = await s.sandbox!.admin.createUser({ username: "alice", name: "Alice" });
    await s.sandbox!.admin.createPost({ author_id: alice.id, text: "@alpha hi" });
    await s.sandbox!.admin.createPost({ author_id: alice.id, text: "@beta hi" });
    const answers = (bot: string) => {
      const user = Object.values(data.world.users).find((u) => u.username === sandboxUsername(bot));
      return Object.values(data.world.posts)
        .filter((p) => p.author_id === user?.id)
        .map((p) => p.text);
    };
    await vi.waitFor(
      () => {
        expect(answers("alpha")).toEqual(["alpha v1: hi"]);
        expect(answers("beta")).toEqual(["beta v1: hi"]);
      },
      { timeout: 20_000, interval: 10 },
    );
  });
});
