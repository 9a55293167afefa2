/**
 * The live fleet of one process (issue 23 items 1 and 3), as `bot start` puts it together: a
 * bots directory and the embedded sandbox on a frozen clock. Bot files added, changed,
 * broken and removed (read as the watcher hands them over), bots added through the fleet as
 * the admin API adds them (kept in the state, so a restart brings them back), and pauses that
 * outlive a restart too.
 */
import { mkdir, mkdtemp, rm, unlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createClock } from "../../src/clock.ts";
import { start, type Started } from "../../src/hosting/start.ts";
import { sandboxUsername } from "../../src/hosting/provision.ts";
import { pluginNameOf } from "../../src/hosting/fleet.ts";
import { compareIds } from "../../src/sandbox/model/index.ts";
import { storeDynamicBots } from "../../src/store/dynamic-bots.ts";
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

const botFile = (name: string, text: string, more = "") =>
  `name: ${name}\nplan: pro\ntriggers:\n  mentions: {}\nplugins:\n  echo:\n    text: "${text}"\n${more}`;

/** A project directory: `bots/` with the given files, and the state's directory. */
async function project(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "postbot-fleet-"));
  dirs.push(dir);
  await mkdir(join(dir, "bots"));
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, "bots", name), text);
  return dir;
}

async function startIn(dir: string, logger = captureLogs("info").logger): Promise<Started> {
  started = await start({
    bots: join(dir, "bots"),
    plugins: PLUGINS,
    data: join(dir, "data"),
    cwd: dir,
    env: {},
    clock: createClock({ frozen: true, start: T0 }),
    logger,
    watch: false,
  });
  return started;
}

/** What a bot answered, oldest first. */
function answers(s: Started, bot: string): string[] {
  const { data } = s.sandbox!.context;
  const user = Object.values(data.world.users).find((u) => u.username === sandboxUsername(bot));
  if (!user) return [];
  return Object.values(data.world.posts)
    .filter((p) => p.author_id === user.id)
    .sort((a, b) => compareIds(a.id, b.id))
    .map((p) => p.text);
}

async function mention(s: Started, text: string): Promise<void> {
  const { data } = s.sandbox!.context;
  const alice =
    Object.values(data.world.users).find((u) => u.username === "alice") ??
    (await s.sandbox!.admin.createUser({ username: "alice", name: "Alice" }));
  await s.sandbox!.admin.createPost({ author_id: alice.id, text });
}

const messages = (lines: Array<Record<string, unknown>>) => lines.map((l) => String(l.msg));

describe("the live fleet of one bot start", () => {
  it("starts a new file's bot, restarts a changed one alone, keeps a broken one running as it was, stops a removed one", async () => {
    const dir = await project({ "alpha.yaml": botFile("alpha", "alpha v1") });
    const { lines, logger } = captureLogs("info");
    const s = await startIn(dir, logger);
    const bots = join(dir, "bots");
    const file = (name: string) => join("bots", name);

    await writeFile(join(bots, "beta.yaml"), botFile("beta", "beta v1"));
    await s.fleet.readFiles([file("beta.yaml")]);
    expect(messages(lines)).toContain(`bot beta started (${file("beta.yaml")} is new) (by ${file("beta.yaml")})`);
    await mention(s, "@beta hello");
    await eventually(() => expect(answers(s, "beta")).toEqual(["beta v1: hello"]));

    await writeFile(join(bots, "alpha.yaml"), botFile("alpha", "alpha v2"));
    await s.fleet.readFiles([file("alpha.yaml")]);
    await mention(s, "@alpha again");
    await eventually(() => expect(answers(s, "alpha")).toEqual(["alpha v2: again"]));
    expect(s.runtime.apps()[0]!.stream!.connects).toBe(1);

    // Saved again as it was: nothing restarts.
    await writeFile(join(bots, "alpha.yaml"), `# a comment\n${botFile("alpha", "alpha v2")}`);
    await s.fleet.readFiles([file("alpha.yaml")]);
    expect(messages(lines).filter((m) => m.startsWith("bot alpha restarted"))).toHaveLength(1);

    // Broken: reported as bot validate reports it; the running version goes on.
    await writeFile(join(bots, "beta.yaml"), botFile("beta", "beta v2").replace("plan: pro", "plan: gold"));
    await s.fleet.readFiles([file("beta.yaml")]);
    expect(messages(lines)).toContainEqual(expect.stringMatching(/^bots\/beta\.yaml:2:7 plan: "gold" is not a plan/));
    expect(messages(lines)).toContain(
      "bots/beta.yaml changed but has a problem; bot beta goes on with the configuration it had (bot validate checks a file)",
    );
    await mention(s, "@beta still there?");
    await eventually(() => expect(answers(s, "beta")).toEqual(["beta v1: hello", "beta v1: still there?"]));

    // A name that is taken: refused the same way.
    await writeFile(join(bots, "copy.yaml"), botFile("alpha", "an impostor"));
    await s.fleet.readFiles([file("copy.yaml")]);
    expect(messages(lines)).toContainEqual(
      expect.stringMatching(/^bots\/copy\.yaml:1:7 name: "alpha" is already the name of the bot in bots\/alpha\.yaml/),
    );

    await unlink(join(bots, "alpha.yaml"));
    await s.fleet.readFiles([file("alpha.yaml")]);
    expect(messages(lines)).toContain(
      `bot alpha stopped: ${file("alpha.yaml")} was removed (by ${file("alpha.yaml")})`,
    );
    expect([...s.runtime.fleet().keys()]).toEqual(["beta"]);
    await mention(s, "@alpha anyone?");
    await s.runtime.idle();
    expect(answers(s, "alpha")).toEqual(["alpha v2: again"]);
  });

  it("keeps bots added through the fleet, and pauses, in the state: a restart brings them back as they were", async () => {
    const dir = await project({ "alpha.yaml": botFile("alpha", "alpha") });
    const { lines, logger } = captureLogs("info");
    let s = await startIn(dir, logger);

    const refused = await s.fleet.add(botFile("gamma", "gamma").replace("plan: pro", "plan: gold"), {
      by: "ops",
      origin: "api",
      label: "request body",
    });
    expect(refused).toEqual({
      ok: false,
      problems: [expect.objectContaining({ file: "request body", line: 2, col: 7, key: "plan" })],
    });
    const secret = await s.fleet.add(`${botFile("gamma", "gamma")}account:\n  token: abc\n  token_secret: def\n`, {
      by: "ops",
      origin: "api",
      label: "request body",
    });
    expect(secret.ok).toBe(false);
    expect(!secret.ok && secret.problems[0]!.message).toMatch(/must not carry its account's token in plain text/);

    const added = await s.fleet.add(botFile("gamma", "gamma v1"), { by: "ops", origin: "api", label: "request body" });
    expect(added).toMatchObject({
      ok: true,
      entry: { name: "gamma", source: { kind: "state", origin: "api" }, state: "running" },
    });
    expect(messages(lines)).toContain("bot gamma added (api) (by ops)");
    await mention(s, "@gamma hi");
    await eventually(() => expect(answers(s, "gamma")).toEqual(["gamma v1: hi"]));
    await s.fleet.pause("alpha", { by: "ops", reason: "maintenance" });
    expect(s.fleet.list().find((e) => e.name === "alpha")).toMatchObject({
      state: "paused",
      paused: { reason: expect.stringMatching(/^paused by ops: maintenance/), by: "ops" },
    });
    await expect(s.fleet.remove("alpha", { by: "ops" })).rejects.toThrow(
      /bot alpha comes from bots\/alpha\.yaml: delete that file instead/,
    );

    await s.stop();
    started = undefined;
    s = await startIn(dir);
    expect(s.fleet.list().map((e) => [e.name, e.state])).toEqual([
      ["alpha", "paused"],
      ["gamma", "running"],
    ]);
    await mention(s, "@gamma again");
    await mention(s, "@alpha waiting");
    await eventually(() => expect(answers(s, "gamma")).toEqual(["gamma v1: hi", "gamma v1: again"]));
    await s.fleet.resume("alpha", { by: "ops" });
    await eventually(() => expect(answers(s, "alpha")).toEqual(["alpha: waiting"]));

    const replaced = await s.fleet.replace("gamma", botFile("gamma", "gamma v2"), { by: "ops", label: "request body" });
    expect(replaced.ok).toBe(true);
    await mention(s, "@gamma third");
    await eventually(() => expect(answers(s, "gamma")).toEqual(["gamma v1: hi", "gamma v1: again", "gamma v2: third"]));
    await s.fleet.remove("gamma", { by: "ops" });
    expect(await storeDynamicBots(s.store).list()).toEqual([]);
    expect([...s.runtime.fleet().keys()]).toEqual(["alpha"]);
  });
});

describe("the bots kept in the state, at a start", () => {
  it("are checked beside the files' bots and each other: a kept bot named like a file's is not started", async () => {
    const dir = await project({ "alpha.yaml": botFile("alpha", "alpha") });
    let s = await startIn(dir);
    for (const name of ["gamma", "delta"])
      expect(await s.fleet.add(botFile(name, name), { by: "ops", origin: "api", label: "request body" })).toMatchObject(
        {
          ok: true,
        },
      );
    await s.stop();
    started = undefined;
    await writeFile(join(dir, "bots", "gamma.yaml"), botFile("gamma", "gamma from its file"));
    const { lines, logger } = captureLogs("info");
    s = await startIn(dir, logger);
    expect(messages(lines)).toContainEqual(
      expect.stringMatching(
        /^bot gamma \(kept in the state, added by ops\) is not started: state:gamma\.yaml:1:7 name: "gamma" is already the name of the bot in bots\/gamma\.yaml/,
      ),
    );
    expect(s.fleet.list().map((e) => [e.name, e.source])).toEqual([
      ["alpha", { kind: "file", file: "bots/alpha.yaml" }],
      ["gamma", { kind: "file", file: "bots/gamma.yaml" }],
      ["delta", { kind: "state", origin: "api" }],
    ]);
  });
});

describe("the plugin a changed file of the plugins directory is", () => {
  it("is its name for a plugin's own file, and none for a module plugins import", () => {
    expect(["echo.ts", "echo.mjs", "echo/index.ts", "echo/index.js"].map(pluginNameOf)).toEqual([
      "echo",
      "echo",
      "echo",
      "echo",
    ]);
    expect(["lib/words.ts", "echo/helper.ts", "types.d.ts", "a/b/index.ts"].map(pluginNameOf)).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });
});
