/**
 * `bot start` with its `--data` on a real 2 MB tmpfs (test/helpers/small-disk.ts) that fills
 * up while mentions come, as an operator meets it: every mention answered once (those that
 * came while it was full once space is back), SIGTERM while it is full ends with exit 3 and a
 * message saying what was not saved and why nothing is lost (no "bug", no lock left behind),
 * and the next start, with space, goes on without a word of damage and answers what the last
 * run could not record. The service is a sandbox in this process (the chaos campaign's world).
 */
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { chaosWorld, closeAll, sleep, waitUntil, type BotProcess } from "../../chaos/world.ts";
import { smallDisk } from "../../helpers/small-disk.ts";

afterEach(async () => {
  await closeAll();
});

/** The JSON log lines a process printed, parsed. */
const logOf = (proc: BotProcess) =>
  proc.out.lines.flatMap((l) => {
    try {
      return [JSON.parse(l) as { level: number; msg: string }];
    } catch {
      return [];
    }
  });

describe("bot start on a small disk that fills up", () => {
  it("answers every mention once, stops cleanly while full (exit 3, no lock left), and the next start goes on", async () => {
    const world = await chaosWorld({ answerers: 1 });
    const disk = await smallDisk(2048);
    try {
      const data = join(disk.dir, "data");
      const mentions: Array<{ id: string; at: number }> = [];
      const mention = async () => mentions.push(await world.mention(mentions.length));
      const proc = world.start(data, {}, disk.wrap);
      await proc.out.waitFor(/all bots started/);
      for (let i = 0; i < 3; i++) await mention();
      expect(await waitUntil(() => world.done(mentions, []), 30_000)).toBe(true);

      // Full while mentions come: they wait, and are answered once space is back.
      await disk.fill();
      for (let i = 0; i < 6; i++) await mention();
      await proc.out.waitFor(/cannot write the state in .*ENOSPC/);
      await disk.free();
      expect(await waitUntil(() => world.done(mentions, []), 40_000)).toBe(true);
      expect(proc.out.lines.some((l) => /is written again/.test(l))).toBe(true);

      // Full again, and stopped while full.
      await disk.fill();
      const before = mentions.length;
      for (let i = 0; i < 2; i++) await mention();
      // The outage is said again once the state's next write (these mentions') fails.
      await waitUntil(() => logOf(proc).filter((l) => /^cannot write the state in/.test(l.msg)).length >= 2, 30_000);
      await sleep(500);
      const code = await proc.stop();
      const said = [...proc.out.lines, ...proc.err.lines].join("\n");
      expect(code, said).toBe(3);
      expect(said).not.toMatch(/This is a bug|unexpected error/);
      expect(said).toMatch(
        /stopped without saving the last \d+ changes to .*ENOSPC.*Nothing sent is lost or sent twice/,
      );
      expect(await readdir(disk.outside(data))).not.toContain("state.lock");

      // With space again, the next start goes on without a word of damage, and answers the rest, once.
      await disk.free();
      const again = world.start(data, {}, disk.wrap);
      await again.out.waitFor(/all bots started/);
      expect(await waitUntil(() => world.done(mentions, []), 40_000)).toBe(true);
      await sleep(1_000); // what it would answer twice, it answers now
      expect(await again.stop()).toBe(0);
      // (A stream gap it closes is said, as after any stop.)
      const warned = logOf(again).filter((l) => l.level >= 40 && !/^stream gap/.test(l.msg));
      expect(warned.map((l) => l.msg)).toEqual([]);
      const row = world.tally("full disk", "", mentions, []);
      expect({ answered: row.answered, twice: row.twice, never: row.never }).toEqual({
        answered: mentions.length,
        twice: 0,
        never: 0,
      });
      expect(mentions.length).toBe(before + 2);
    } finally {
      await disk.close();
    }
  }, 180_000);
});
