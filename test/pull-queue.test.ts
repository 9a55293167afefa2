/**
 * The pull queue a lower layer hands things up through without calling the layer above: a
 * take waits until something comes (no timer), gets everything put in during one turn as one
 * batch, and once the queue is closed gets what is left and then `undefined`.
 */
import { describe, expect, it } from "vitest";
import { PullQueue } from "../src/pull-queue.ts";

describe("PullQueue", () => {
  it("wakes a waiting take with what came in one turn, as one batch", async () => {
    const queue = new PullQueue<number>();
    let got: number[] | undefined;
    const taking = queue.take().then((items) => (got = items));
    await Promise.resolve();
    expect(got).toBeUndefined();
    queue.push(1);
    queue.push(2);
    await taking;
    expect(got).toEqual([1, 2]);
    expect(queue.size).toBe(0);
  });

  it("hands out what was put in before it closed, then ends the taker", async () => {
    const queue = new PullQueue<string>();
    queue.push("a");
    queue.close();
    expect(await queue.take()).toEqual(["a"]);
    expect(await queue.take()).toBeUndefined();
  });

  it("ends a take waiting when it closes, and has one consumer at a time", async () => {
    const queue = new PullQueue<string>();
    const waiting = queue.take();
    await expect(queue.take()).rejects.toThrow(/one consumer/);
    queue.close();
    expect(await waiting).toBeUndefined();
  });
});
