/**
 * `bot start` (in this process, on the embedded sandbox and a frozen clock) while its disk
 * fills up (test/helpers/filling-disk.ts: short writes, then ENOSPC): mentions that come while
 * it is full wait (nothing is sent before its ledger mark is on disk) and are answered once,
 * each, when space returns; a stop while it is full ends without the last changes, saying so,
 * and the next start answers what that run could not record, and nothing twice.
 */
import { mkdir, mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createClock, type AdjustableClock } from "../../src/clock.ts";
import { sandboxUsername } from "../../src/hosting/provision.ts";
import { start, type Started } from "../../src/hosting/start.ts";
import type { Sandbox } from "../../src/sandbox/index.ts";
import { FillingDisk } from "../helpers/filling-disk.ts";
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

/** The texts `bot` posted in answer to alice (the embedded sandbox's crowd mentions it too), oldest first. */
function answers(sandbox: Sandbox, bot: string): string[] {
  const { data } = sandbox.context;
  const user = Object.values(data.world.users).find((u) => u.username === sandboxUsername(bot));
  const alice = Object.values(data.world.users).find((u) => u.username === "alice");
  const asked = (id: string | undefined) => id !== undefined && data.world.posts[id]?.author_id === alice?.id;
  return Object.values(data.world.posts)
    .filter((p) => p.author_id === user?.id && asked(p.in_reply_to_post_id))
    .sort((a, b) => a.created_at - b.created_at || (a.id < b.id ? -1 : 1))
    .map((p) => p.text);
}

describe("bot start on a disk that fills up", () => {
  it("answers what came while it was full once space returns, each once; a stop while full loses nothing", {
    timeout: 90_000,
  }, async () => {
    const dir = await mkdtemp(join(tmpdir(), "postbot-full-start-"));
    dirs.push(dir);
    await mkdir(join(dir, "bots"));
    await writeFile(
      join(dir, "bots", "alpha.yaml"),
      `name: alpha\nplan: pro\ntriggers:\n  mentions: {}\nplugins:\n  echo:\n    text: "alpha"\n`,
    );
    const disk = new FillingDisk();
    const clock = createClock({ frozen: true, start: T0 });
    const run = async (logger = captureLogs("info").logger) =>
      (started = await start({
        bots: join(dir, "bots"),
        plugins: PLUGINS,
        data: join(dir, "data"),
        cwd: dir,
        env: {},
        clock,
        logger,
        watch: false,
        openJournal: disk.open,
      }));
    const { lines, logger } = captureLogs("info");
    const s = await run(logger);
    const sandbox = s.sandbox!;
    const alice = await sandbox.admin.createUser({ username: "alice", name: "Alice" });
    const mention = (text: string) => sandbox.admin.createPost({ author_id: alice.id, text: `@alpha ${text}` });
    const said = () => lines.map((l) => String(l.msg));

    await mention("one");
    await eventually(() => expect(answers(sandbox, "alpha")).toEqual(["alpha: one"]));

    // Full: two mentions come, are taken in, and wait for the disk.
    disk.fill(50);
    const waiting = [await mention("two"), await mention("three")];
    await eventually(() =>
      expect(said()).toContainEqual(expect.stringMatching(/^cannot write the state in .*: ENOSPC/)),
    );
    const inbox = () => s.runtime.bots.get("alpha")!.inbox;
    await eventually(() => expect(waiting.map((p) => inbox().has(`mention:${p.id}`))).toEqual([true, true]));
    await waitForRetry(clock);
    expect(answers(sandbox, "alpha")).toEqual(["alpha: one"]);
    expect(disk.short + disk.refused).toBeGreaterThan(0);

    // Space again: the next try writes what waited, and both are answered, once.
    disk.free();
    await clock.advance(10_000);
    await eventually(() =>
      expect(answers(sandbox, "alpha").sort()).toEqual(["alpha: one", "alpha: three", "alpha: two"]),
    );
    expect(said()).toContainEqual(expect.stringMatching(/^the state in .* is written again/));

    // Full again, and stopped meanwhile: the stop ends, says what it could not save, and frees the lock.
    disk.fill(0);
    const four = await mention("four");
    await eventually(() => expect(inbox().has(`mention:${four.id}`)).toBe(true));
    await waitForRetry(clock);
    const stopped = await s.stop();
    started = undefined;
    expect(stopped).toEqual({ saved: false });
    expect(said()).toContainEqual(
      expect.stringMatching(
        /^stopped without saving the last \d+ changes to .*: ENOSPC .* Nothing sent is lost or sent twice/,
      ),
    );
    await expect(stat(join(dir, "data", "state.lock"))).rejects.toThrow(/ENOENT/);
    expect(answers(sandbox, "alpha")).toHaveLength(3);

    // The next start, with space: it answers what the last run could not record, and nothing again.
    disk.free();
    const again = await run();
    await eventually(() => expect(answers(again.sandbox!, "alpha")).toHaveLength(4));
    await again.runtime.idle();
    expect(answers(again.sandbox!, "alpha").sort()).toEqual([
      "alpha: four",
      "alpha: one",
      "alpha: three",
      "alpha: two",
    ]);
  });
});

/** Waits until the store's next try of the failed write is scheduled on the clock. */
const waitForRetry = (clock: AdjustableClock) =>
  vi.waitFor(() => expect(clock.waiting().some((t) => t.by.includes("write-outage"))).toBe(true), {
    timeout: 20_000,
    interval: 10,
  });
