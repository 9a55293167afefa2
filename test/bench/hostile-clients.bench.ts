/**
 * Hostile clients (issue 26): a 288 KB post of 40,000 mentions, handled the moment its last
 * byte arrives, must not hold up the sandbox's other clients. Figure: how long a `GET
 * /2/users/me` sent right behind it waits for its first byte (real time, in-process sandbox,
 * raw sockets; test/helpers/crowded-post.ts), over rounds; aim: every one within 100 ms. The
 * suite asserts what both clients get (test/sandbox/hostile-clients.test.ts).
 */
import type { Socket } from "node:net";
import { crowdedPost } from "../helpers/crowded-post.ts";
import { startSandbox } from "../helpers/sandbox.ts";
import type { Bench, BenchRow } from "./harness.ts";

const ROUNDS = 20;
const AIM_MS = 100;

const bench: Bench = {
  name: "hostile clients: a request behind a 288 KB post of 40,000 mentions",
  async run(): Promise<BenchRow[]> {
    const t = await startSandbox();
    const sockets: Socket[] = [];
    try {
      const alice = await t.account({ username: "alice", plan: "pro" });
      const waits: number[] = [];
      const statuses = new Set<string>();
      for (let i = 0; i < ROUNDS; i++) {
        const { post, other, askedAt } = await crowdedPost(t, alice, (s) => sockets.push(s));
        waits.push(other.firstByteAt - askedAt);
        statuses.add(`${post.received.slice(9, 12)}/${other.received.slice(9, 12)}`);
        for (const s of sockets.splice(0)) s.destroy();
        // Windows refill between rounds (the sandbox's clock is frozen otherwise).
        await t.clock.advance(15 * 60_000);
      }
      waits.sort((a, b) => a - b);
      const slowest = waits.at(-1)!;
      const ms = (v: number) => `${v.toFixed(1)} ms`;
      return [
        {
          bench: `GET /2/users/me sent behind the post, ${ROUNDS} rounds (post/other answered ${[...statuses].join(", ")}): slowest first byte`,
          value: ms(slowest),
          aim: `≤ ${AIM_MS} ms`,
          verdict: slowest <= AIM_MS ? "met" : "missed",
        },
        { bench: "  median", value: ms(waits[Math.floor(waits.length / 2)]!), aim: "", verdict: "" },
      ];
    } finally {
      for (const s of sockets) s.destroy();
      await t.close();
    }
  },
};

export default bench;
