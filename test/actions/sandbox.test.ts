/**
 * The action layer end to end: the real API client against the sandbox in-process, on a
 * moved clock. A flood of work on every plan gets zero 429s and uses the whole budget;
 * two accounts of one app share the app's windows; a reply left pending by a crash is
 * found on the service by the client verifiers and not sent again.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Executor } from "../../src/actions/action.ts";
import { clientVerifiers } from "../../src/actions/verifiers.ts";
import { createActionSystem } from "../../src/actions/layer.ts";
import type { Plan } from "../../src/limits/types.ts";
import { createMemoryStore } from "../../src/store/store.ts";
import { startSandbox, type Account, type TestSandbox } from "../helpers/sandbox.ts";
import { inFlightCounter, logSink } from "./helpers.ts";

let t: TestSandbox;
beforeAll(async () => {
  t = await startSandbox();
});
afterAll(() => t.close());

/** Moves the clock `ms` in steps of `step`, letting the requests each step releases finish. */
async function advance(ms: number, step: number, settle: () => Promise<void>) {
  for (let done = 0; done < ms; done += step) {
    await t.clock.advance(Math.min(step, ms - done));
    await settle();
  }
}

/** One action system over the sandbox, with a layer per account (each answer's headers correct its budget). */
function world() {
  const { logger } = logSink();
  const system = createActionSystem({ store: createMemoryStore(), clock: t.clock, logger });
  const requests = inFlightCounter();
  const bot = (name: string, account: Account, plan: Plan, options: { executor?: Executor } = {}) => {
    const client = t.client(account, { label: account.user.id });
    const layer = system.bot({
      bot: name,
      account: { appId: account.app.id, userId: account.user.id, plan },
      executor: requests.executor(options.executor ?? client.send.bind(client)),
      verifiers: clientVerifiers(client, account.user.id),
      ttlMs: { reply: 10 * 86_400_000 },
    });
    return { layer, client };
  };
  return { system, bot, counted: requests.counted, settle: requests.settle };
}

const statusCounts = async (route: string) => (await t.admin.stats()).routes[route] ?? {};

describe("against the sandbox", () => {
  it("a flood of replies on every plan: zero 429s and every slot the plan allows used", async () => {
    const cases: Array<{ plan: Plan; n: number; ms: number; step: number; allowed: number }> = [
      { plan: "pro", n: 350, ms: 30 * 60_000, step: 15 * 60_000, allowed: 300 }, // 100/15m U, three windows
      { plan: "basic", n: 130, ms: 86_400_000, step: 86_400_000, allowed: 130 }, // 100/24h U, then 30 more a day later
      { plan: "free", n: 20, ms: 86_400_000, step: 86_400_000, allowed: 20 }, // 17/24h U and A
    ];
    for (const c of cases) {
      const before = await statusCounts("POST /2/posts");
      const account = await t.account({ plan: c.plan });
      const crowd = await t.account({ app: account.app });
      const targets = [];
      for (let i = 0; i < c.n; i++)
        targets.push(await t.admin.createPost({ author_id: crowd.user.id, text: `hey bot #${i} (${c.plan})` }));
      const w = world();
      const { layer } = w.bot(`flood-${c.plan}`, account, c.plan);
      const outcomes = targets.map((p, i) =>
        layer.reply({ id: p.id, author_id: crowd.user.id, conversation_id: p.id }, `thanks #${i}`),
      );
      await w.settle();
      await advance(c.ms, c.step, w.settle);
      const after = await statusCounts("POST /2/posts");
      const sent = (after["201"] ?? 0) - (before["201"] ?? 0);
      expect({ plan: c.plan, sent, tooMany: (after["429"] ?? 0) - (before["429"] ?? 0) }).toEqual({
        plan: c.plan,
        sent: c.allowed,
        tooMany: 0,
      });
      w.system.close();
      const ended = await Promise.all(outcomes);
      expect(ended.filter((o) => o.status === "sent")).toHaveLength(c.allowed);
      expect(ended.filter((o) => o.status !== "sent").every((o) => o.status === "deferred")).toBe(true);
    }
  });

  it("two accounts of one app share the app's window: mentions polls on basic (10/15m U, 15/15m A)", async () => {
    const a = await t.account({ plan: "basic" });
    const b = await t.account({ app: a.app });
    const w = world();
    const before = await statusCounts("GET /2/users/:id/mentions");
    const poll = (bot: ReturnType<typeof w.bot>, account: Account) =>
      bot.layer.read("GET /2/users/:id/mentions", (signal) =>
        w.counted(async () => {
          const { body, headers } = await bot.client.exchange(
            "GET /2/users/:id/mentions",
            { params: { id: account.user.id } },
            { signal },
          );
          return { result: body, headers };
        }),
      );
    const botA = w.bot("a", a, "basic");
    const botB = w.bot("b", b, "basic");
    const reads = [
      ...Array.from({ length: 30 }, () => poll(botA, a)),
      ...Array.from({ length: 30 }, () => poll(botB, b)),
    ];
    await w.settle();
    await advance(30 * 60_000, 15 * 60_000, w.settle);
    const after = await statusCounts("GET /2/users/:id/mentions");
    expect((after["200"] ?? 0) - (before["200"] ?? 0)).toBe(45); // 15 per window, three windows
    expect((after["429"] ?? 0) - (before["429"] ?? 0)).toBe(0);
    w.system.close();
    await Promise.allSettled(reads);
  });

  it("a reply that reached the service before a crash is found by the client verifier and not sent again", async () => {
    const account = await t.account({ plan: "pro" });
    const crowd = await t.account({ app: account.app });
    const mention = await t.admin.createPost({ author_id: crowd.user.id, text: `@${account.user.username} hello` });
    const store = createMemoryStore();
    // Run 1 sends the reply, but "dies" before the answer: its executor never returns.
    const first = createActionSystem({ store, clock: t.clock });
    const client = t.client(account);
    const send = client.send.bind(client);
    let arrived!: () => void;
    const reached = new Promise<void>((r) => (arrived = r));
    const dying = first.bot({
      bot: "g",
      account: { appId: account.app.id, userId: account.user.id, plan: "pro" },
      executor: async (action, signal) => {
        await send(action, signal);
        arrived();
        return new Promise<never>(() => {});
      },
    });
    void dying.reply({ id: mention.id, author_id: crowd.user.id }, "hello to you");
    await reached;
    expect(store.get("ledger", "g:reply:" + mention.id)).toMatchObject({ state: "pending" });

    const second = createActionSystem({ store, clock: t.clock });
    let resent = 0;
    const layer = second.bot({
      bot: "g",
      account: { appId: account.app.id, userId: account.user.id, plan: "pro" },
      executor: async (action, signal) => {
        resent++;
        return send(action, signal);
      },
      verifiers: clientVerifiers(client, account.user.id),
    });
    const [outcome] = await layer.recover();
    expect(outcome).toMatchObject({ status: "duplicate", result: { data: { id: expect.any(String) } } });
    expect(resent).toBe(0);
    const timeline = await client.users.posts(account.user.id);
    expect(timeline.data).toHaveLength(1);
  });

  it("the client verifiers find likes, reposts and follows that arrived, and only those", async () => {
    const account = await t.account({ plan: "pro" });
    const crowd = await t.account({ app: account.app });
    const [done, missing] = [
      await t.admin.createPost({ author_id: crowd.user.id, text: "like me" }),
      await t.admin.createPost({ author_id: crowd.user.id, text: "not me" }),
    ];
    const client = t.client(account);
    await client.likes.like(account.user.id, done.id);
    await client.reposts.repost(account.user.id, done.id);
    await client.users.follow(account.user.id, crowd.user.id);
    const verifiers = clientVerifiers(client, account.user.id);
    const action = (kind: "like" | "repost" | "follow", target: string) =>
      ({
        kind,
        bot: "g",
        userId: account.user.id,
        endpoint: "POST /2/users/:id/likes",
        target,
        path: {},
        priority: 0,
        createdAt: t.clock.now(),
      }) as const;
    const check = async (kind: "like" | "repost" | "follow", target: string) =>
      (await verifiers[kind]!.check({ ...action(kind, target) }, new AbortController().signal)).result.done;
    expect([await check("like", done.id), await check("like", missing.id)]).toEqual([true, false]);
    expect([await check("repost", done.id), await check("repost", missing.id)]).toEqual([true, false]);
    expect([await check("follow", crowd.user.id), await check("follow", account.user.id)]).toEqual([true, false]);
    // A like not among the newest page of the bot's likes counts as not arrived (sent again:
    // harmless for a like), rather than "cannot tell", which held it back for minutes.
    for (let i = 0; i < 100; i++) {
      const later = await t.admin.createPost({ author_id: crowd.user.id, text: `later ${i}` });
      await client.likes.like(account.user.id, later.id);
    }
    expect(await check("like", done.id)).toBe(false);
  });
});
