/**
 * Head-of-line blocking (issue 26): one pro bot gets 200 mentions and 200 posts its stream
 * rule matches, all at once. Its replies fill the 15-minute reply window (100 per user) and
 * the other 100 wait for it (the sandbox's clock is frozen: the window never refills here);
 * its likes (1,000 a day) must not wait behind them. Figures: each like's delay, from the
 * post's creation to the like's answer (real time), p50, p99 and the slowest; the replies
 * sent and waiting. Before: 8 handler slots held by waiting replies, likes stopped for the
 * whole window.
 */
import { createTestBed } from "../../src/testing.ts";
import { busyBot, busyPlugin } from "../helpers/busy-bot.ts";
import type { Bench, BenchRow } from "./harness.ts";

const MENTIONS = 200;
const POSTS = 200;
const AIM_P99_MS = 1_000;

const likedAt = new Map<string, number>();
const busy = busyPlugin((id) => likedAt.set(id, performance.now()));

const percentile = (sorted: number[], p: number) =>
  sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

const bench: Bench = {
  name: "head-of-line: likes while replies wait for their window",
  async run(): Promise<BenchRow[]> {
    likedAt.clear();
    const bed = await createTestBed({
      bots: [busyBot],
      plugins: { busy },
    });
    try {
      for (let i = 0; i < 200 && bed.runtime.apps()[0]?.stream?.state !== "connected"; i++)
        await new Promise((r) => setTimeout(r, 50));
      const alice = await bed.user("alice");
      const createdAt = new Map<string, number>();
      // At once: mentions and matching posts interleaved, as fast as the sandbox takes them.
      for (let i = 0; i < Math.max(MENTIONS, POSTS); i++) {
        if (i < MENTIONS) await bed.post(alice, `@busy question ${i}`);
        if (i < POSTS) {
          const post = await bed.post(alice, `#likeme picture ${i}`);
          createdAt.set(post.id, performance.now());
        }
      }
      const deadline = Date.now() + 60_000;
      while (likedAt.size < POSTS && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      await bed.settle();
      const delays = [...createdAt].map(([id, at]) => (likedAt.get(id) ?? Number.NaN) - at).sort((a, b) => a - b);
      const missing = delays.filter(Number.isNaN).length;
      const measured = delays.filter((d) => !Number.isNaN(d));
      const p99 = missing > 0 ? Number.NaN : percentile(measured, 99);
      const replies = bed.postsBy("busy").filter((p) => p.in_reply_to_post_id).length;
      const waiting = bed.runtime.actions.queue.list("busy").filter((w) => w.label.startsWith("reply")).length;
      const ms = (v: number) => (Number.isNaN(v) ? "n/a" : `${Math.round(v)} ms`);
      return [
        {
          bench: `1 pro bot, ${MENTIONS} mentions + ${POSTS} matching posts at once, replies saturated (${replies} sent, ${waiting} waiting for the window): likes' delay p99`,
          value: ms(p99),
          aim: `≤ ${AIM_P99_MS.toLocaleString("en-US")} ms`,
          verdict: !Number.isNaN(p99) && p99 <= AIM_P99_MS ? "met" : "missed",
        },
        { bench: "  p50", value: ms(percentile(measured, 50)), aim: "", verdict: "" },
        { bench: "  slowest", value: ms(measured.at(-1) ?? Number.NaN), aim: "", verdict: "" },
        { bench: "  likes not sent", value: String(missing), aim: "0", verdict: missing === 0 ? "met" : "missed" },
      ];
    } finally {
      await bed.close();
    }
  },
};

export default bench;
