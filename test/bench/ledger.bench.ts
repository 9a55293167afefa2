/**
 * Ledger cost (issue 5, "Figures"): likes per second through the whole action layer against
 * the sandbox in-process, with the idempotency ledger on and off. The state is a real file
 * store, so "on" pays for what exactly-once needs: the pending mark written and fsynced
 * before each request leaves.
 *
 * Two shapes of work: one action at a time (a plugin awaiting each like, so every fsync is
 * on the path) and all at once (the store coalesces the pending marks of a burst into few
 * writes). Each run uses a fresh account, so the plan's limit (pro: 1,000 likes a day) is
 * never what is measured.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createActionSystem } from "../../src/actions/layer.ts";
import { createClient } from "../../src/api/client.ts";
import { silentLogger } from "../../src/log.ts";
import { openFileStore } from "../../src/store/file-store.ts";
import { startSandbox, type TestSandbox } from "../helpers/sandbox.ts";
import type { Bench, BenchRow } from "./harness.ts";

const ACTIONS = 900;
const REPEATS = 3;

async function once(t: TestSandbox, ledger: boolean, shape: "one at a time" | "all at once"): Promise<number> {
  const account = await t.account({ plan: "pro" });
  const crowd = await t.account({ app: account.app });
  const posts: string[] = [];
  for (let i = 0; i < ACTIONS; i++)
    posts.push((await t.admin.createPost({ author_id: crowd.user.id, text: `likeable ${i} ${account.user.id}` })).id);
  const dir = await mkdtemp(join(tmpdir(), "postbot-ledger-bench-"));
  const store = await openFileStore(dir);
  const client = createClient({
    baseUrl: t.url,
    clock: t.clock,
    logger: silentLogger,
    auth: {
      consumer: { key: account.consumer_key, secret: account.consumer_secret },
      user: { token: account.token, secret: account.token_secret },
    },
  });
  const system = createActionSystem({ store, clock: t.clock, logger: silentLogger });
  const bot = system.bot({
    bot: "bench",
    account: { appId: account.app.id, userId: account.user.id, plan: "pro" },
    executor: client.send.bind(client),
    ledger,
  });
  const start = performance.now();
  if (shape === "one at a time") {
    for (const id of posts) await bot.like(id);
  } else {
    await Promise.all(posts.map((id) => bot.like(id)));
  }
  const ms = performance.now() - start;
  await system.idle();
  await store.close();
  await client.close();
  await rm(dir, { recursive: true, force: true });
  return (ACTIONS / ms) * 1000;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const bench: Bench = {
  name: "ledger cost",
  async run() {
    const t = await startSandbox();
    const rows: BenchRow[] = [];
    try {
      await once(t, true, "all at once"); // warm-up: the JIT, the sandbox, the file system
      for (const shape of ["one at a time", "all at once"] as const) {
        const rates = { on: [] as number[], off: [] as number[] };
        // Alternating, so whatever else the machine does weighs on both alike.
        for (let r = 0; r < REPEATS; r++) {
          rates.on.push(await once(t, true, shape));
          rates.off.push(await once(t, false, shape));
        }
        const on = median(rates.on);
        const off = median(rates.off);
        rows.push({
          bench: `ledger cost, likes ${shape}`,
          "ledger on (actions/s)": on,
          "ledger off (actions/s)": off,
          "on / off": on / off,
        });
      }
    } finally {
      await t.close();
    }
    return rows;
  },
};

export default bench;
