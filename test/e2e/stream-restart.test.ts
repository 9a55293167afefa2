/**
 * A pro bot with a stream rule and `like`, restarted with the file store: the posts that
 * matched its rule while its process was down are liked after the start, each once, and the
 * posts liked before are not liked again (issue 26: 415 of 415 were never liked). The log
 * says how long the gap was and what it recovered; `bot status` shows it. Frozen clock; the
 * stream crosses a real socket, so the test waits for outcomes (never for a time).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createClock } from "../../src/clock.ts";
import { collectStatus, formatStatus } from "../../src/hosting/status-report.ts";
import { definePlugin } from "../../src/plugins/plugin.ts";
import { createSandbox, type Sandbox } from "../../src/sandbox/index.ts";
import { openFileStore } from "../../src/store/file-store.ts";
import { createTestBed, type TestBed } from "../../src/testing.ts";
import { captureLogs } from "../helpers/log.ts";
import { T0 } from "../helpers/sandbox.ts";

const liker = definePlugin({
  name: "liker",
  setup(bot) {
    bot.on("post", async (ctx) => {
      await ctx.like();
    });
  },
});

const bots = [
  { name: "fan", plan: "pro" as const, triggers: { stream: [{ value: "#cats" }] }, plugins: { liker: {} } },
];
let sandbox: Sandbox | undefined;
let bed: TestBed | undefined;
let dir: string | undefined;
afterEach(async () => {
  await bed?.close();
  bed = undefined;
  await sandbox?.close();
  sandbox = undefined;
  if (dir) await rm(dir, { recursive: true, force: true });
});

const eventually = (check: () => void) => vi.waitFor(check, { timeout: 20_000, interval: 10 });

/** A sandbox and a state directory; `start()` runs the bot on them (a restart when run again), connected. */
async function world() {
  sandbox = await createSandbox({ clock: createClock({ frozen: true, start: T0 }) });
  dir = await mkdtemp(join(tmpdir(), "postbot-stream-restart-"));
  const start = async () => {
    const { lines, logger } = captureLogs("info");
    const store = await openFileStore(dir!);
    bed = await createTestBed({ sandbox, store, logger, bots, plugins: { liker } });
    await eventually(() => expect(bed!.runtime.apps()[0]!.stream?.state).toBe("connected"));
    return { lines, store };
  };
  const likesOf = (postId: string) => sandbox!.context.data.world.likes.filter((l) => l.post_id === postId).length;
  return { start, likesOf };
}

describe("a bot's stream rule across a restart (file store)", () => {
  it("likes once every post that matched while the process was down, and nothing twice", async () => {
    const { start, likesOf } = await world();

    const first = await start();
    const alice = await bed!.user("alice");
    const before = await bed!.post(alice, "#cats before the stop");
    await eventually(() => expect(likesOf(before.id)).toBe(1));
    await bed!.settle();
    await bed!.stop();
    await first.store.close();

    // While no process runs: 25 matching posts over 5 minutes, and one that does not match.
    const during: string[] = [];
    for (let i = 0; i < 25; i++) {
      during.push((await sandbox!.admin.createPost({ author_id: alice.id, text: `#cats while down ${i}` })).id);
      await bed!.advance(12_000);
    }
    await sandbox!.admin.createPost({ author_id: alice.id, text: "#dogs while down" });

    const second = await start();
    await eventually(() => expect(during.filter((id) => likesOf(id) === 1)).toHaveLength(during.length));
    await bed!.settle();
    for (const id of during) expect(likesOf(id), id).toBe(1);
    expect(likesOf(before.id)).toBe(1);
    const gap = second.lines.find((l) => /^stream gap of/.test(String(l.msg)));
    expect(gap?.msg).toMatch(
      /^stream gap of 300\.\d s since this app's stream last ran \(a restart, or a process that held it stopped\) closed: recent search recovered 25 posts/,
    );
    expect(bed!.runtime.apps()[0]!.stream!.gaps).toMatchObject({ count: 1, recovered: 25 });
    // `bot status` shows the gap closed.
    await bed!.stop();
    await second.store.close();
    const readOnly = await openFileStore(dir!, { readOnly: true });
    try {
      expect(formatStatus(collectStatus(readOnly, bed!.clock), bed!.clock.now())).toMatch(
        /gaps {7}1 closed, last 5m long; 25 posts recovered by search/,
      );
    } finally {
      await readOnly.close();
    }
    bed = undefined;
  });

  it("down longer than recent search reaches: what it can is liked, the rest is named in the log and by bot status", async () => {
    const { start, likesOf } = await world();
    const first = await start();
    const alice = await bed!.user("alice");
    await bed!.settle();
    await bed!.stop();
    await first.store.close();
    const stoppedAt = bed!.clock.now();
    const DAY = 86_400_000;
    await bed!.advance(DAY);
    const beyond = (await sandbox!.admin.createPost({ author_id: alice.id, text: "#cats a day after the stop" })).id;
    await bed!.advance(8 * DAY);
    const within = (await sandbox!.admin.createPost({ author_id: alice.id, text: "#cats nine days after" })).id;
    await bed!.advance(60_000);

    const second = await start();
    await eventually(() => expect(likesOf(within)).toBe(1));
    await bed!.settle();
    expect(likesOf(beyond)).toBe(0);
    const to = bed!.clock.now() - 7 * DAY + 60_000;
    const iso = (ms: number) => new Date(ms).toISOString();
    expect(second.lines.map((l) => l.msg)).toContain(
      `stream gap of 9.0 days is longer than recent search reaches (7 days): posts that matched the rules between ${iso(stoppedAt)} and ${iso(to)} could not be recovered`,
    );
    await bed!.stop();
    await second.store.close();
    const readOnly = await openFileStore(dir!, { readOnly: true });
    try {
      expect(formatStatus(collectStatus(readOnly, bed!.clock), bed!.clock.now())).toContain(
        `  lost       posts that matched the rules from ${iso(stoppedAt)} to ${iso(to)} could not be recovered: the stream was away longer than recent search reaches back (7 days)`,
      );
    } finally {
      await readOnly.close();
    }
    bed = undefined;
  });
});
