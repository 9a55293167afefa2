/**
 * Budget use (issue 5, "Figures"): a simulated day on each plan against the sandbox
 * in-process, its clock moved, with a flood of mentions to answer (more than the plan can
 * take). For postbot's action layer and for a naive client that sends until it gets a 429
 * and then waits for `x-rate-limit-reset`: replies sent divided by the replies the plan
 * allows in the day (aim 1.0), and 429 responses (aim 0).
 *
 * What the plan allows is worked out from the limit table: a flood starting at the day's
 * first instant gets `max` requests per window that starts within the day, for each limit of
 * the endpoint; the tightest limit decides.
 *
 * `BENCH_PLANS=basic,free npm run bench budget` runs some plans only: the pro day sends
 * about 20,000 requests and takes minutes.
 */
import { createActionSystem } from "../../src/actions/layer.ts";
import { createClient, type ApiClient } from "../../src/api/client.ts";
import { RateLimitError } from "../../src/api/errors.ts";
import { limitsFor, PLANS, WINDOW_MS, type Plan } from "../../src/limits/index.ts";
import { silentLogger } from "../../src/log.ts";
import { createMemoryStore } from "../../src/store/store.ts";
import { inFlightCounter } from "../actions/helpers.ts";
import { startSandbox, type Account, type TestSandbox } from "../helpers/sandbox.ts";
import type { Bench, BenchRow } from "./harness.ts";

const DAY = 86_400_000;
const ENDPOINT = "POST /2/posts" as const;

/** Replies a flood can get in one day on `plan`: per limit, `max` for every window starting within the day. */
function allowedInDay(plan: Plan): number {
  const limits = limitsFor(ENDPOINT, plan);
  if (limits === "unavailable") return 0;
  return Math.min(...limits.map((l) => l.max * Math.ceil(DAY / WINDOW_MS[l.per])));
}

/** The smallest window of the endpoint: the clock moves in steps of it, so no window opens unseen. */
const stepOf = (plan: Plan) => {
  const limits = limitsFor(ENDPOINT, plan);
  return limits === "unavailable" ? DAY : Math.min(...limits.map((l) => WINDOW_MS[l.per]));
};

interface Day {
  t: TestSandbox;
  account: Account;
  targets: string[];
  client: ApiClient;
}

async function newDay(plan: Plan): Promise<Day> {
  const t = await startSandbox();
  const account = await t.account({ plan });
  const crowd = await t.account({ app: account.app });
  const n = allowedInDay(plan) + Math.max(20, Math.ceil(allowedInDay(plan) * 0.1)); // more than the day allows
  const targets: string[] = [];
  for (let i = 0; i < n; i++)
    targets.push(
      (await t.admin.createPost({ author_id: crowd.user.id, text: `@${account.user.username} question ${i}` })).id,
    );
  const client = createClient({
    baseUrl: t.url,
    clock: t.clock,
    logger: silentLogger,
    auth: {
      consumer: { key: account.consumer_key, secret: account.consumer_secret },
      user: { token: account.token, secret: account.token_secret },
    },
  });
  return { t, account, targets, client };
}

async function sentAnd429(t: TestSandbox) {
  const byStatus = (await t.admin.stats()).routes[ENDPOINT] ?? {};
  return { sent: byStatus["201"] ?? 0, tooMany: byStatus["429"] ?? 0 };
}

/** The day through postbot's action layer. */
async function withLayer(plan: Plan): Promise<{ sent: number; tooMany: number }> {
  const day = await newDay(plan);
  const { t, account, client } = day;
  const requests = inFlightCounter();
  const system = createActionSystem({ store: createMemoryStore(), clock: t.clock, logger: silentLogger });
  const bot = system.bot({
    bot: "bench",
    account: { appId: account.app.id, userId: account.user.id, plan },
    executor: requests.executor(client.send.bind(client)),
    ttlMs: { reply: 2 * DAY },
    replyCooldownMs: 0,
  });
  const outcomes = day.targets.map((id, i) => bot.reply({ id }, `answer ${i}`));
  const step = stepOf(plan);
  await requests.settle();
  for (let at = step; at < DAY; at += step) {
    await t.clock.advance(step);
    await requests.settle();
  }
  await t.clock.advance(step - 1); // to the day's last millisecond
  await requests.settle();
  const result = await sentAnd429(t);
  system.close();
  await Promise.all(outcomes);
  await client.close();
  await t.close();
  return result;
}

/** The day through a naive client: send until a 429, then wait for the reset it names. */
async function naive(plan: Plan): Promise<{ sent: number; tooMany: number }> {
  const day = await newDay(plan);
  const { t, client } = day;
  let next = 0;
  let pausedUntil = 0;
  const sendWhileAllowed = async () => {
    while (next < day.targets.length && t.clock.now() >= pausedUntil) {
      const id = day.targets[next]!;
      try {
        await client.posts.create({ text: `answer ${next}`, reply: { in_reply_to_post_id: id } });
        next++;
      } catch (error) {
        if (!(error instanceof RateLimitError)) throw error;
        pausedUntil = error.resetAt ?? t.clock.now() + 60_000;
      }
    }
  };
  const step = stepOf(plan);
  await sendWhileAllowed();
  for (let at = step; at < DAY; at += step) {
    await t.clock.advance(step);
    await sendWhileAllowed();
  }
  await t.clock.advance(step - 1);
  await sendWhileAllowed();
  const result = await sentAnd429(t);
  await client.close();
  await t.close();
  return result;
}

const bench: Bench = {
  name: "budget use",
  async run() {
    const rows: BenchRow[] = [];
    for (const plan of (process.env.BENCH_PLANS?.split(",") ?? PLANS) as Plan[]) {
      const allowed = allowedInDay(plan);
      for (const [who, run] of [
        ["postbot action layer", withLayer],
        ["naive: send until 429, wait for reset", naive],
      ] as const) {
        const { sent, tooMany } = await run(plan);
        rows.push({
          bench: `budget use, ${plan}, one day of replies`,
          client: who,
          "plan allows": allowed,
          sent,
          "sent / allowed": sent / allowed,
          "429s": tooMany,
          aim: "1.00 and 0",
        });
      }
    }
    return rows;
  },
};

export default bench;
