/**
 * No head-of-line blocking (issue 26): a pro bot whose replies wait for the 15-minute reply
 * window (100 per user) still likes what its stream rule matches at once: a handler awaiting
 * its reply's budget holds no handler slot. Before, its 8 slots were all held by waiting
 * replies and the likes waited the whole 15 minutes. Frozen clock: nothing refills meanwhile.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { createTestBed, type TestBed } from "../../src/testing.ts";
import { busyBot, busyPlugin } from "../helpers/busy-bot.ts";

const busy = busyPlugin();

let bed: TestBed | undefined;
afterEach(async () => {
  await bed?.close();
  bed = undefined;
});

const eventually = (check: () => void) => vi.waitFor(check, { timeout: 20_000, interval: 10 });

describe("likes while replies wait for their window", () => {
  it("are sent at once: the waiting replies hold no handler slot", { timeout: 60_000 }, async () => {
    bed = await createTestBed({
      bots: [busyBot],
      plugins: { busy },
    });
    await eventually(() => expect(bed!.runtime.apps()[0]!.stream?.state).toBe("connected"));
    const alice = await bed.user("alice");
    // 112 mentions: 100 answered (the window), 12 replies wait, more than the bot's 8 slots.
    for (let i = 0; i < 112; i++) await bed.post(alice, `@busy question ${i}`);
    await bed.settle();
    const replies = () => bed!.postsBy("busy").filter((p) => p.in_reply_to_post_id).length;
    expect(replies()).toBe(100);
    expect(bed.runtime.actions.queue.list("busy").filter((w) => w.label.startsWith("reply"))).toHaveLength(12);
    // Then posts its rule matches: each liked, the clock still where it was.
    const posts: string[] = [];
    for (let i = 0; i < 20; i++) posts.push((await bed.post(alice, `#likeme picture ${i}`)).id);
    await eventually(() =>
      expect(posts.filter((id) => bed!.sandbox.context.data.world.likes.some((l) => l.post_id === id))).toHaveLength(
        20,
      ),
    );
    expect(replies()).toBe(100);
  });
});
