/**
 * A plugin that throws in its `setup` stops its own bot only: at `bot start` (in this process,
 * on the embedded sandbox) the other bots start, and that bot is reported with its file and
 * the error, in the log, in what `bot status` reads and in the fleet (the status page's),
 * as paused with why; saving its file fixed starts it. On the live path the same: a new file
 * whose plugin throws is reported, and a running bot whose new configuration throws goes on
 * with the one it had.
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createClock } from "../../src/clock.ts";
import { sandboxUsername } from "../../src/hosting/provision.ts";
import { start, type Started } from "../../src/hosting/start.ts";
import type { BotStatus } from "../../src/runtime/types.ts";
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

const eventually = (check: () => void) => vi.waitFor(check, { timeout: 20_000, interval: 10 });
const echo = (name: string, text: string) =>
  `name: ${name}\nplan: pro\ntriggers:\n  mentions: {}\nplugins:\n  echo:\n    text: "${text}"\n`;
const boom = (name: string, fail: boolean) =>
  `name: ${name}\nplan: pro\ntriggers:\n  mentions: {}\nplugins:\n  boom:\n    fail: ${fail}\n`;

describe("a plugin that throws in its setup", () => {
  it("at start: its bot is reported with its file and the error, the others start; saved fixed, it starts", async () => {
    const dir = await mkdtemp(join(tmpdir(), "postbot-setup-"));
    dirs.push(dir);
    await mkdir(join(dir, "bots"));
    await writeFile(join(dir, "bots", "alpha.yaml"), echo("alpha", "alpha"));
    await writeFile(join(dir, "bots", "bad.yaml"), boom("bad", true));
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
    const said = () => lines.map((l) => String(l.msg));
    expect(said()).toContain(
      "bot bad is not started: plugin boom failed in its setup: boom in setup (bots/bad.yaml); the other bots go on. Fix the plugin or its options, then save bots/bad.yaml again (or resume the bot) to start it",
    );
    const reason =
      "not started: plugin boom failed in its setup: boom in setup (bots/bad.yaml); fix it, then save bots/bad.yaml again or resume the bot";
    expect(s.runtime.status().find((b) => b.bot === "bad")?.paused).toEqual({ reason, at: T0 });
    expect(s.fleet.list().find((e) => e.name === "bad")).toMatchObject({ state: "paused", paused: { reason } });
    // What bot status reads: the status saved in the state.
    await eventually(() => expect(s.store.get<BotStatus>("status", "bad")?.paused?.reason).toBe(reason));

    const sandbox = s.sandbox!;
    const alice = await sandbox.admin.createUser({ username: "alice", name: "Alice" });
    const answers = (bot: string) => {
      const user = Object.values(sandbox.context.data.world.users).find((u) => u.username === sandboxUsername(bot));
      return Object.values(sandbox.context.data.world.posts)
        .filter(
          (p) =>
            p.author_id === user?.id &&
            sandbox.context.data.world.posts[p.in_reply_to_post_id ?? ""]?.author_id === alice.id,
        )
        .map((p) => p.text);
    };
    await sandbox.admin.createPost({ author_id: alice.id, text: "@alpha hi" });
    await eventually(() => expect(answers("alpha")).toEqual(["alpha: hi"]));

    // Its file saved with the plugin fixed: it starts, and answers.
    await writeFile(join(dir, "bots", "bad.yaml"), boom("bad", false));
    await s.fleet.readFiles([join("bots", "bad.yaml")]);
    expect(s.runtime.bots.has("bad")).toBe(true);
    await sandbox.admin.createPost({ author_id: alice.id, text: "@bad hello" });
    await eventually(() => expect(answers("bad")).toEqual(["boom: hello"]));

    // The live path: a new file whose plugin throws is reported; a running bot's new configuration that throws leaves it as it was.
    await writeFile(join(dir, "bots", "gamma.yaml"), boom("gamma", true));
    await writeFile(join(dir, "bots", "alpha.yaml"), boom("alpha", true));
    await s.fleet.readFiles([join("bots", "alpha.yaml"), join("bots", "gamma.yaml")]);
    expect(said()).toContain(
      "bots/alpha.yaml changed, but plugin boom failed in its setup: boom in setup; bot alpha goes on with the configuration it had",
    );
    expect(said()).toContainEqual(
      expect.stringMatching(
        /^bot gamma is not started: plugin boom failed in its setup: boom in setup \(bots\/gamma\.yaml\)/,
      ),
    );
    expect(said()).toContain(
      "bot gamma added (bots/gamma.yaml is new), but not running: the line before says why (bot status shows it too) (by bots/gamma.yaml)",
    );
    await sandbox.admin.createPost({ author_id: alice.id, text: "@alpha still" });
    await eventually(() => expect(answers("alpha")).toEqual(["alpha: hi", "alpha: still"]));
  });
});
