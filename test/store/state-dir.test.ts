/** Writing many state files at once (src/store/state-dir.ts). */
import { describe, expect, it } from "vitest";
import { eachLimited } from "../../src/store/state-dir.ts";

describe("eachLimited", () => {
  it("runs at most `limit` at a time, every item once", async () => {
    let running = 0;
    let most = 0;
    const seen: number[] = [];
    await eachLimited([1, 2, 3, 4, 5, 6, 7], 3, async (n) => {
      running++;
      most = Math.max(most, running);
      await Promise.resolve();
      seen.push(n);
      running--;
    });
    expect(most).toBe(3);
    expect(seen.sort()).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });

  it("after a failure starts no other item, and rejects only once those under way have ended", async () => {
    let release!: () => void;
    const slow = new Promise<void>((resolve) => {
      release = resolve;
    });
    const started: string[] = [];
    const ended: string[] = [];
    let settled = false;
    const all = eachLimited(["fails", "slow", "later"], 2, async (item) => {
      started.push(item);
      if (item === "fails") throw new Error("EISDIR: bob.json");
      if (item === "slow") await slow;
      ended.push(item);
    }).finally(() => {
      settled = true;
    });
    for (let i = 0; i < 10; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false); // "slow" is still under way
    release();
    await expect(all).rejects.toThrow("EISDIR: bob.json");
    expect(ended).toEqual(["slow"]);
    expect(started).toEqual(["fails", "slow"]); // "later" never started
  });
});
