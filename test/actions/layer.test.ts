import { describe, expect, it } from "vitest";
import type { Executor, Verifier } from "../../src/actions/action.ts";
import type { ActionEvent } from "../../src/actions/observe.ts";
import { NetworkError, ProblemError, RateLimitError, UsageCappedError } from "../../src/api/errors.ts";
import { createHash } from "node:crypto";
import { createMemoryStore, type Store } from "../../src/store/store.ts";
import { fakeService, recordingExecutor, setup, START } from "./helpers.ts";

const account = { appId: "app1", userId: "100", plan: "pro" as const };
const mention = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  author_id: "200",
  conversation_id: `c${id}`,
  created_at: new Date(START).toISOString(),
  ...extra,
});
const req = { method: "POST", path: "/2/posts" };

describe("actions and their requests", () => {
  it("maps each action to its endpoint, path and wire body", async () => {
    const { system, clock } = setup();
    const { calls, executor } = recordingExecutor(clock);
    const bot = system.bot({ bot: "greeter", account, executor });
    await bot.reply(mention("1"), "hi");
    await bot.like("2");
    await bot.repost("3");
    await bot.follow("4");
    await bot.dm("5", "welcome");
    await bot.hide("6");
    await bot.post("good morning");
    expect(calls.map(({ action: a }) => [a.kind, a.endpoint, a.path, a.body, a.key])).toEqual([
      ["reply", "POST /2/posts", {}, { text: "hi", reply: { in_reply_to_post_id: "1" } }, "greeter:reply:1"],
      ["like", "POST /2/users/:id/likes", { id: "100" }, { post_id: "2" }, "greeter:like:2"],
      ["repost", "POST /2/users/:id/reposts", { id: "100" }, { post_id: "3" }, "greeter:repost:3"],
      ["follow", "POST /2/users/:id/following", { id: "100" }, { target_user_id: "4" }, "greeter:follow:4"],
      [
        "dm",
        "POST /2/dm_conversations/with/:participant_id/messages",
        { participant_id: "5" },
        { text: "welcome" },
        expect.stringMatching(/^greeter:dm:5:[0-9a-f]{16}$/),
      ],
      ["hide", "PUT /2/posts/:id/hidden", { id: "6" }, { hidden: true }, "greeter:hide:6"],
      ["post", "POST /2/posts", {}, { text: "good morning" }, expect.stringMatching(/^greeter:post:[0-9a-f]{16}$/)],
    ]);
  });

  it("logs one line per action with bot, action and target", async () => {
    const { system, clock, lines } = setup();
    const bot = system.bot({ bot: "greeter", account, executor: recordingExecutor(clock).executor });
    await bot.like("2");
    expect(lines.find((l) => l.msg === "like post 2: sent")).toMatchObject({
      bot: "greeter",
      action: "like",
      target: "2",
      status: "sent",
    });
  });

  it("logs the id of the post a reply or post makes and of the message a DM makes; an unhide as an unhide", async () => {
    const { system, clock, lines } = setup();
    const { executor: made } = recordingExecutor(clock);
    const executor: Executor = async (action) =>
      action.kind === "dm"
        ? { result: { data: { dm_conversation_id: "5-100", dm_event_id: "7001" } } }
        : made(action, {} as never);
    const bot = system.bot({ bot: "greeter", account, executor });
    await bot.reply(mention("1"), "hi");
    await bot.post("good morning");
    await bot.dm("5", "welcome");
    await bot.hide("6", { hidden: false });
    const sent = lines.filter((l) => l.status === "sent").map((l) => [l.msg, l.made_id]);
    expect(sent).toEqual([
      ['reply to post 1 "hi": sent as post 1001', "1001"],
      ['post "good morning": sent as post 1002', "1002"],
      ['dm to user 5 "welcome": sent as message 7001', "7001"],
      ["unhide post 6: sent", undefined],
    ]);
  });

  it("refuses at once what the plan does not offer", async () => {
    const { system, clock } = setup();
    const { calls, executor } = recordingExecutor(clock);
    const bot = system.bot({ bot: "b", account: { ...account, plan: "free" }, executor });
    const outcome = await bot.dm("5", "hi");
    expect(outcome).toMatchObject({
      status: "refused",
      reason: expect.stringContaining("not available on the free plan"),
    });
    expect(calls).toHaveLength(0);
    expect(system.ledger.entries()).toHaveLength(0);
  });
});

describe("bots that do not act", () => {
  it("cost the store nothing: 1,000 layers write nothing; the first action of one still refuses its text of an hour ago and forgets its texts of yesterday", async () => {
    const inner = createMemoryStore();
    const fingerprint = (text: string) => createHash("sha256").update(text.normalize("NFC")).digest("hex").slice(0, 24);
    inner.set("texts:bot-7", fingerprint("hello again"), { at: START - 3_600_000 });
    inner.set("texts:bot-7", fingerprint("old news"), { at: START - 25 * 3_600_000 });
    let writes = 0;
    const store: Store = {
      ...inner,
      set: (ns, key, value) => void (writes++, inner.set(ns, key, value)),
      adopt: (ns, key, value) => void (writes++, inner.adopt!(ns, key, value)),
      delete: (ns, key) => void (writes++, inner.delete(ns, key)),
      retain: (ns, retention) => void (writes++, inner.retain?.(ns, retention)),
    };
    const { system, clock } = setup({ store });
    const { calls, executor } = recordingExecutor(clock);
    writes = 0; // what the system itself keeps (the ledger's bound...) is written once, not per bot
    const bots = Array.from({ length: 1_000 }, (_, i) =>
      system.bot({ bot: `bot-${i}`, account: { ...account, userId: String(1_000 + i) }, executor }),
    );
    expect(writes).toBe(0);
    expect(await bots[7]!.reply(mention("1"), "hello again")).toMatchObject({
      status: "refused",
      reason: expect.stringContaining("the bot posted this text"),
    });
    expect(inner.get("texts:bot-7", fingerprint("old news"))).toBeUndefined();
    expect(await bots[7]!.reply(mention("2"), "old news")).toMatchObject({ status: "sent" });
    expect(calls).toHaveLength(1);
  });
});

describe("the ledger: exactly once", () => {
  it("never sends a done key again, and joins a key already on its way", async () => {
    const { system, clock } = setup();
    const { calls, executor } = recordingExecutor(clock);
    const bot = system.bot({ bot: "greeter", account, executor });
    const [a, b] = await Promise.all([bot.reply(mention("1"), "hi"), bot.reply(mention("1"), "hi")]);
    expect(a.status).toBe("sent");
    expect(b).toMatchObject({ status: "duplicate", key: "greeter:reply:1", result: { data: { id: "1001" } } });
    expect(await bot.reply(mention("1"), "hi again")).toMatchObject({
      status: "duplicate",
      result: { data: { id: "1001" } },
    });
    expect(calls).toHaveLength(1);
    expect(system.ledger.get("greeter:reply:1")).toMatchObject({ state: "done", result: { data: { id: "1001" } } });
  });

  it("writes pending to disk before the request leaves", async () => {
    const { system, clock, store } = setup();
    let seen: unknown;
    let flushed = 0;
    const flush = store.flush.bind(store);
    store.flush = async () => {
      flushed++;
      await flush();
    };
    const executor: Executor = async (action) => {
      seen = { state: system.ledger.get(action.key!)?.state, flushed };
      return { result: { data: { id: "9" } } };
    };
    await system.bot({ bot: "g", account, executor }).reply(mention("1"), "hi");
    expect(seen).toEqual({ state: "pending", flushed: 1 });
  });

  it("does not send when the pending mark cannot be made durable", async () => {
    const { system, clock, store } = setup();
    const { calls, executor } = recordingExecutor(clock);
    store.flush = async () => {
      throw new Error("disk full");
    };
    const outcome = await system.bot({ bot: "g", account, executor }).like("1");
    expect(outcome).toMatchObject({ status: "failed", maybeSent: false, reason: expect.stringContaining("disk full") });
    expect(calls).toHaveLength(0);
  });
});

describe("retry", () => {
  it("on a 429 pauses the key until the reset, then tries again (moved clock, no waiting)", async () => {
    const { system, clock, lines } = setup();
    const at: number[] = [];
    const executor: Executor = async () => {
      at.push(clock.now());
      if (at.length === 1) throw new RateLimitError(req, { limit: 100, remaining: 0, resetAt: START + 60_000 });
      return { result: { data: { id: "1" } } };
    };
    const bot = system.bot({ bot: "g", account, executor });
    const outcome = bot.reply(mention("1"), "hi");
    await clock.advance(59_999);
    expect(at).toEqual([START]);
    expect(bot.remaining("reply")).toBe(0); // paused
    await clock.advance(1);
    expect(await outcome).toMatchObject({ status: "sent" });
    expect(at).toEqual([START, START + 60_000]);
    expect(lines.some((l) => String(l.msg).includes("429 from the service"))).toBe(true);
  });

  it("backs off exponentially, from 5 s, when the 429 gives no reset", async () => {
    const { system, clock } = setup();
    const at: number[] = [];
    const executor: Executor = async () => {
      at.push(clock.now() - START);
      if (at.length <= 3) throw new RateLimitError(req, {});
      return { result: {} };
    };
    const outcome = system.bot({ bot: "g", account, executor }).like("1");
    await clock.advance(60_000);
    expect((await outcome).status).toBe("sent");
    expect(at).toEqual([0, 5_000, 15_000, 35_000]);
  });

  it("waits until the reset and at least the back-off when the reset is too soon", async () => {
    const { system, clock } = setup();
    const at: number[] = [];
    const executor: Executor = async () => {
      at.push(clock.now() - START);
      if (at.length <= 2) throw new RateLimitError(req, { resetAt: clock.now() + 1_000 });
      return { result: {} };
    };
    const outcome = system.bot({ bot: "g", account, executor }).like("1");
    await clock.advance(60_000);
    await outcome;
    expect(at).toEqual([0, 5_000, 15_000]);
  });

  it("gives up after the last attempt and says so", async () => {
    const { system, clock } = setup({ retry: { maxAttempts: 2 } });
    const executor: Executor = async () => {
      throw new RateLimitError(req, {});
    };
    const outcome = system.bot({ bot: "g", account, executor }).like("1");
    await clock.advance(60_000);
    expect(await outcome).toMatchObject({
      status: "failed",
      reason: expect.stringContaining("gave up after 2 attempts"),
    });
  });

  it("retries a repeatable action after a network failure without asking", async () => {
    const { system, clock } = setup();
    let n = 0;
    const executor: Executor = async () => {
      if (++n === 1) throw new NetworkError(req, "socket hang up", { code: "UND_ERR_SOCKET" });
      return { result: { data: { liked: true } } };
    };
    const outcome = system.bot({ bot: "g", account, executor }).like("1");
    await clock.advance(5_000);
    expect(await outcome).toMatchObject({ status: "sent" });
    expect(n).toBe(2);
  });

  it("after an ambiguous failure of a reply, asks the verifier before sending it again", async () => {
    const { system, clock } = setup();
    let posted = false;
    const executor: Executor = async () => {
      posted = true;
      throw new NetworkError(req, "socket hang up", { code: "UND_ERR_SOCKET" }); // it arrived, the answer did not
    };
    const checks: string[] = [];
    const reply: Verifier = {
      endpoint: "GET /2/users/:id/posts",
      check: async (action) => {
        checks.push(action.target);
        return { result: posted ? { done: true, result: { data: { id: "77" } } } : { done: false } };
      },
    };
    const bot = system.bot({ bot: "g", account, executor, verifiers: { reply } });
    expect(await bot.reply(mention("1"), "hi")).toMatchObject({ status: "sent", result: { data: { id: "77" } } });
    expect(checks).toEqual(["1"]);
    expect(bot.budget.describe("GET /2/users/:id/posts").windows[0]!.used).toBe(1); // the check was budgeted
  });

  it("never repeats a reply whose fate is unknown and no verifier can tell", async () => {
    const { system, clock } = setup();
    let n = 0;
    const executor: Executor = async () => {
      n++;
      throw new NetworkError(req, "socket hang up", { code: "UND_ERR_SOCKET" });
    };
    const bot = system.bot({ bot: "g", account, executor });
    expect(await bot.reply(mention("1"), "hi")).toMatchObject({ status: "failed", maybeSent: true });
    expect(await bot.reply(mention("1"), "hi")).toMatchObject({ status: "duplicate" });
    expect(n).toBe(1);
    expect(system.ledger.get("g:reply:1")?.state).toBe("unknown");
  });

  it("a refusal by the service ends the action, unsent, without retrying", async () => {
    const { system, clock } = setup();
    let n = 0;
    const executor: Executor = async () => {
      n++;
      throw new ProblemError(req, 403, {
        type: "about:blank",
        title: "Forbidden",
        detail: "You are not allowed to create a Post with duplicate content.",
      });
    };
    const outcome = await system.bot({ bot: "g", account, executor }).post("same");
    expect(outcome).toMatchObject({
      status: "failed",
      maybeSent: false,
      reason: expect.stringContaining("duplicate content"),
    });
    expect(n).toBe(1);
  });

  it("a usage-capped answer holds capped reads until the enrolment day", async () => {
    const { system, clock } = setup();
    let n = 0;
    const bot = system.bot({
      bot: "g",
      account: { ...account, plan: "basic" },
      executor: recordingExecutor(clock).executor,
      enrolmentDay: 6,
    });
    const read = bot.read(
      "GET /2/posts/search/recent",
      async () => {
        if (++n === 1)
          throw new UsageCappedError(req, {
            type: "https://api.x.com/2/problems/usage-capped",
            title: "UsageCapExceeded",
          });
        return { result: { data: [{ id: "1" }], meta: { result_count: 1 } } };
      },
      { label: "search" },
    );
    await clock.advance(Date.parse("2026-01-06T00:00:00Z") - START - 1);
    expect(n).toBe(1);
    await clock.advance(1);
    expect(await read).toMatchObject({ meta: { result_count: 1 } });
    expect(bot.budget.monthlyUsage()).toMatchObject({ used: 1 });
  });
});

describe("the queue", () => {
  it("sends replies before posts when they compete for one window, whatever came first", async () => {
    const { system, clock } = setup();
    const { calls, executor } = recordingExecutor(clock);
    const bot = system.bot({ bot: "g", account: { ...account, plan: "free" }, executor }); // POST /2/posts: 17/24h
    for (let i = 0; i < 17; i++) await bot.post(`p${i}`);
    const twoDays = { ttlMs: 2 * 86_400_000 };
    const post = bot.post("later", twoDays);
    const reply = bot.reply(mention("1"), "first", twoDays);
    await clock.advance(86_400_000);
    await Promise.all([post, reply]);
    expect(calls.slice(17).map((c) => [c.action.kind, c.at - START])).toEqual([
      ["reply", 86_400_000],
      ["post", 86_400_000],
    ]);
  });

  it("drops by default a post that cannot be sent within its six hours", async () => {
    const { system, clock } = setup();
    const { executor } = recordingExecutor(clock);
    const bot = system.bot({ bot: "g", account: { ...account, plan: "free" }, executor });
    for (let i = 0; i < 17; i++) await bot.post(`p${i}`);
    expect(await bot.post("later")).toMatchObject({ status: "dropped" });
  });

  it("honours configured priorities", async () => {
    const { system, clock } = setup();
    const { calls, executor } = recordingExecutor(clock);
    const bot = system.bot({
      bot: "g",
      account: { ...account, plan: "free" },
      executor,
      priorities: { post: 0 },
      ttlMs: { post: 2 * 86_400_000 },
    });
    for (let i = 0; i < 17; i++) await bot.post(`p${i}`);
    const reply = bot.reply({ id: "1" }, "x", { ttlMs: 2 * 86_400_000 });
    const post = bot.post("urgent");
    await clock.advance(86_400_000);
    await Promise.all([post, reply]);
    expect(calls.slice(17, 18).map((c) => c.action.kind)).toEqual(["post"]);
  });

  it("drops at once a reply to a mention older than its time-to-live", async () => {
    const { system, clock, lines } = setup();
    const { calls, executor } = recordingExecutor(clock);
    const bot = system.bot({ bot: "g", account, executor });
    const old = mention("1", { created_at: new Date(START - 25 * 3_600_000).toISOString() });
    expect(await bot.reply(old, "hi")).toMatchObject({
      status: "dropped",
      reason: expect.stringContaining("time-to-live"),
    });
    expect(calls).toHaveLength(0);
    expect(lines.some((l) => l.status === "dropped" && typeof l.reason === "string")).toBe(true);
  });

  it("drops a waiting action as soon as its turn cannot come before it expires", async () => {
    const { system, clock } = setup();
    const { calls, executor } = recordingExecutor(clock);
    const bot = system.bot({ bot: "g", account: { ...account, plan: "basic" }, executor }); // follows: 5/15m
    for (let i = 0; i < 5; i++) await bot.follow(`u${i}`);
    expect(await bot.follow("late", { ttlMs: 60_000 })).toMatchObject({
      status: "dropped",
      reason: expect.stringContaining("would wait past"),
    });
    expect(calls).toHaveLength(5);
  });

  it("keeps a reserve and a cap from the bot file", async () => {
    const { system, clock } = setup();
    const { calls, executor } = recordingExecutor(clock);
    const bot = system.bot({
      bot: "g",
      account: { ...account, plan: "basic" }, // follows 5/15m U; likes 200/24h U
      executor,
      budget: { reserve: 0.4, like: { max: 3, per: 3_600_000 } },
    });
    const follows = Array.from({ length: 4 }, (_, i) => bot.follow(`u${i}`));
    const likes = Array.from({ length: 4 }, (_, i) => bot.like(`p${i}`));
    await clock.advance(1);
    expect(calls.filter((c) => c.action.kind === "follow")).toHaveLength(3); // 5 - floor(2)
    expect(calls.filter((c) => c.action.kind === "like")).toHaveLength(3); // the cap
    await clock.advance(3_600_000);
    await Promise.all([...follows, ...likes]);
    expect(calls.filter((c) => c.action.kind === "like").map((c) => c.at - START)).toEqual([0, 0, 0, 3_600_000]);
    expect(calls.filter((c) => c.action.kind === "follow").map((c) => c.at - START)).toEqual([0, 0, 0, 900_000]);
  });

  it("a flood on every plan: zero 429s from a correctly configured service, and the whole budget used", async () => {
    for (const plan of ["pro", "basic", "free"] as const) {
      const { system, clock } = setup();
      const service = fakeService(clock, { app1: plan });
      const bot = system.bot({
        bot: "g",
        account: { ...account, plan },
        executor: (action) => service.execute(action, "app1"),
        ttlMs: { reply: 10 * 86_400_000 },
        replyCooldownMs: 0,
      });
      // basic replies: 100/24h U → in 2 days and a bit, 300 slots; free: 17/24h → 51.
      const n = { pro: 2000, basic: 400, free: 60 }[plan];
      const all = Array.from({ length: n }, (_, i) => bot.reply({ id: String(i) }, `r${i}`));
      await clock.advance(2 * 86_400_000);
      const allowed = { pro: 100 * (2 * 96) + 100, basic: 300, free: 51 }[plan];
      expect(service.stats.tooMany, plan).toBe(0);
      expect(Math.min(n, allowed), plan).toBe(service.stats.ok);
      system.close();
      await Promise.all(all);
    }
  });
});

describe("reply safety", () => {
  it("never replies to itself or to another bot of the process, unless told to", async () => {
    const { system, clock } = setup();
    const { calls, executor } = recordingExecutor(clock);
    const a = system.bot({ bot: "a", account, executor });
    system.bot({ bot: "b", account: { ...account, userId: "300" }, executor });
    expect(await a.reply(mention("1", { author_id: "100" }), "hi")).toMatchObject({
      status: "refused",
      reason: expect.stringContaining("bot's own"),
    });
    expect(await a.reply(mention("2", { author_id: "300" }), "hi")).toMatchObject({
      status: "refused",
      reason: expect.stringContaining("another bot"),
    });
    const c = system.bot({ bot: "c", account: { ...account, userId: "400" }, executor, replyToBots: true });
    expect(await c.reply(mention("3", { author_id: "300" }), "hi")).toMatchObject({ status: "sent" });
    expect(calls).toHaveLength(1);
  });

  it("never replies twice in one conversation within the cooldown", async () => {
    const { system, clock } = setup();
    const { calls, executor } = recordingExecutor(clock);
    const bot = system.bot({ bot: "a", account, executor, replyCooldownMs: 600_000 });
    expect((await bot.reply(mention("1", { conversation_id: "c" }), "hi 1")).status).toBe("sent");
    expect(await bot.reply(mention("2", { conversation_id: "c" }), "hi 2")).toMatchObject({
      status: "refused",
      reason: expect.stringContaining("reply_cooldown"),
    });
    await clock.advance(600_000);
    expect((await bot.reply(mention("3", { conversation_id: "c" }), "hi 3")).status).toBe("sent");
    expect(calls).toHaveLength(2);
  });

  it("keeps a cooldown longer than a day across a restart, whatever other bots' cooldowns", async () => {
    const { system, clock, store } = setup();
    const { calls, executor } = recordingExecutor(clock);
    const slow = system.bot({ bot: "slow", account, executor, replyCooldownMs: 3 * 86_400_000 });
    expect((await slow.reply(mention("1", { conversation_id: "c" }), "hi")).status).toBe("sent");
    await clock.advance(2 * 86_400_000);
    // A restart: a new system on the same store, with a bot of the default cooldown created first.
    const again = setup({ store, clock });
    again.system.bot({ bot: "quick", account: { ...account, userId: "500" }, executor });
    const slowAgain = again.system.bot({ bot: "slow", account, executor, replyCooldownMs: 3 * 86_400_000 });
    expect(await slowAgain.reply(mention("2", { conversation_id: "c" }), "hi")).toMatchObject({
      status: "refused",
      reason: expect.stringContaining("reply_cooldown"),
    });
    expect(calls).toHaveLength(1);
  });

  it("ends a mark with the cooldown of the bot that made it, whether or not it was swept yet", async () => {
    const { system, clock, store } = setup();
    const { calls, executor } = recordingExecutor(clock);
    const quick = system.bot({ bot: "a", account, executor, replyCooldownMs: 10_000 });
    expect((await quick.reply(mention("1", { conversation_id: "c" }), "hi")).status).toBe("sent");
    await clock.advance(20_000);
    // A restart 20 s later with a longer cooldown: the marks are swept at most once a minute, so this one is still stored.
    const again = setup({ store, clock });
    const slow = again.system.bot({ bot: "a", account, executor, replyCooldownMs: 600_000 });
    expect(store.entries("replies.recent")).toHaveLength(1);
    expect((await slow.reply(mention("2", { conversation_id: "c" }), "hi again")).status).toBe("sent");
    expect(calls).toHaveLength(2);
  });

  it("frees the conversation again when the reply was not sent", async () => {
    const { system, clock } = setup();
    const { executor } = recordingExecutor(clock);
    const bot = system.bot({ bot: "a", account, executor });
    const old = mention("1", { conversation_id: "c", created_at: new Date(START - 2 * 86_400_000).toISOString() });
    expect((await bot.reply(old, "hi")).status).toBe("dropped");
    expect((await bot.reply(mention("2", { conversation_id: "c" }), "hi")).status).toBe("sent");
  });
});

describe("dry run", () => {
  it("logs and counts against a simulated budget, never sends, and leaves the real state alone", async () => {
    const { system, clock, store, lines } = setup({ dryRun: true });
    const { calls, executor } = recordingExecutor(clock);
    const bot = system.bot({ bot: "g", account: { ...account, plan: "basic" }, executor });
    const outcome = await bot.reply(mention("1"), "hi");
    expect(outcome).toMatchObject({ status: "dry-run", result: { data: { id: expect.stringMatching(/^dry-run-/) } } });
    expect(calls).toHaveLength(0);
    expect(bot.remaining("reply")).toBe(99);
    expect(store.entries("ledger")).toEqual([]);
    expect(store.entries("budget.windows")).toEqual([]);
    expect(lines.some((l) => l.dry_run === true && l.action === "reply")).toBe(true);
    expect(await bot.reply(mention("1"), "hi")).toMatchObject({ status: "duplicate" });
  });

  it("starts from the real state: what a real run sent is a duplicate, what it spent is spent; the real state is left as it was", async () => {
    const real = setup();
    const sent = botOn(real);
    expect((await sent.bot.reply(mention("1"), "hi")).status).toBe("sent");
    await real.system.idle();
    const ledger = structuredClone(real.store.entries("ledger"));
    const windows = structuredClone(real.store.entries("budget.windows"));
    expect(ledger).toHaveLength(1);

    const dry = setup({ store: real.store, clock: real.clock, dryRun: true });
    const { bot, calls } = botOn(dry);
    expect(await bot.reply(mention("1"), "hi")).toMatchObject({ status: "duplicate" });
    expect(bot.remaining("reply")).toBe(sent.bot.remaining("reply"));
    expect((await bot.reply(mention("2"), "hi again")).status).toBe("dry-run");
    expect(bot.remaining("reply")).toBe(sent.bot.remaining("reply") - 1);
    expect(calls).toHaveLength(0);
    expect(real.store.entries("ledger")).toEqual(ledger);
    expect(real.store.entries("budget.windows")).toEqual(windows);
  });
});

/** A bot "g" on `s`'s action system, and what its executor was asked to send. */
function botOn(s: ReturnType<typeof setup>) {
  const { calls, executor } = recordingExecutor(s.clock);
  return { bot: s.system.bot({ bot: "g", account: { ...account, plan: "basic" }, executor }), calls };
}

describe("budget for plugins and status", () => {
  it("reports what each action has left", async () => {
    const { system, clock } = setup();
    const bot = system.bot({
      bot: "g",
      account: { ...account, plan: "basic" },
      executor: recordingExecutor(clock).executor,
    });
    await bot.like("1");
    expect(bot.remaining("like")).toBe(199);
    expect(bot.remaining("GET /2/users/:id/mentions")).toBe(10);
    const status = bot.status();
    expect(status.actions.like).toMatchObject({ endpoint: "POST /2/users/:id/likes", remaining: 199 });
    expect(status.actions.dm.remaining).toBe(1);
    expect(status.monthly).toMatchObject({ cap: 500_000, used: 0 });
  });

  it("budgets reads through read, and counts posts read on capped endpoints", async () => {
    const { system, clock } = setup();
    const bot = system.bot({
      bot: "g",
      account: { ...account, plan: "basic" },
      executor: recordingExecutor(clock).executor,
    });
    const answer = await bot.read("GET /2/posts/search/recent", async () => ({
      result: { data: [], meta: { result_count: 42 } },
    }));
    expect(answer).toEqual({ data: [], meta: { result_count: 42 } });
    expect(bot.budget.monthlyUsage()!.used).toBe(42);
    expect(bot.remaining("GET /2/posts/search/recent")).toBe(59);
  });

  it("sends a described read itself, through the reader, budgeted, and in a dry run too", async () => {
    for (const dryRun of [false, true]) {
      const { system, clock } = setup({ dryRun });
      const sent = recordingExecutor(clock);
      const read: Array<{ endpoint: string; path: unknown; query: unknown }> = [];
      const bot = system.bot({
        bot: "g",
        account: { ...account, plan: "basic" },
        executor: sent.executor,
        reader: async (action) => {
          read.push({ endpoint: action.endpoint, path: action.path, query: action.query });
          return { result: { data: [], meta: { result_count: 3 } }, headers: {} };
        },
      });
      const answer = await bot.fetch(
        "GET /2/users/:id/mentions",
        { params: { id: "100" }, query: { max_results: 100 } },
        { label: "mentions poll" },
      );
      expect(answer).toEqual({ data: [], meta: { result_count: 3 } });
      expect(read).toEqual([
        { endpoint: "GET /2/users/:id/mentions", path: { id: "100" }, query: { max_results: 100 } },
      ]);
      // Never through the executor (the bot's hold, or a dry run's made-up answers).
      expect(sent.calls).toEqual([]);
      expect(bot.remaining("GET /2/users/:id/mentions")).toBe(9);
    }
  });

  it("a read that can never run throws a ReadError naming the reason", async () => {
    const { system, clock } = setup();
    const bot = system.bot({
      bot: "g",
      account: { ...account, plan: "free" },
      executor: recordingExecutor(clock).executor,
    });
    await expect(bot.read("GET /2/dm_events", async () => ({ result: {} }))).rejects.toThrow(
      /not available on the free plan/,
    );
  });

  it("tells the observer every outcome and every answer, in one place", async () => {
    const { clock } = setup();
    const events: ActionEvent[] = [];
    const { system } = setup({ clock, observe: (e) => void events.push(e) });
    const bot = system.bot({ bot: "g", account, executor: recordingExecutor(clock).executor });
    await bot.like("1");
    expect(events.map((e) => e.type)).toEqual(["response", "outcome"]);
    expect(events[1]).toMatchObject({ type: "outcome", bot: "g", kind: "like", outcome: { status: "sent" } });
  });
});

describe("shutdown", () => {
  it("defers what waits; the ledger keeps it queued for the next start", async () => {
    const { system, clock } = setup();
    const { executor } = recordingExecutor(clock);
    const bot = system.bot({ bot: "g", account: { ...account, plan: "free" }, executor });
    await bot.follow("1");
    const waiting = bot.follow("2");
    await clock.advance(1);
    system.close();
    expect(await waiting).toMatchObject({ status: "deferred" });
    expect(system.ledger.get("g:follow:2")?.state).toBe("queued");
    await system.idle();
  });
});
