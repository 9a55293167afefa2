/**
 * The ledger across a simulated crash: a process is abandoned mid-work (nothing closed,
 * requests hanging), and a new one opens the same state file and resumes.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Action, Executor, Verifier } from "../../src/actions/action.ts";
import { createClock } from "../../src/clock.ts";
import { openFileStore } from "../../src/store/file-store.ts";
import { setup, START } from "./helpers.ts";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "postbot-crash-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const account = { appId: "app", userId: "1", plan: "free" as const };

describe("the ledger across a crash", () => {
  it("verifies pending actions, resends only what the service lacks, resumes queued ones, never repeats done ones", async () => {
    /** What the service holds, by idempotency key. */
    const service = new Map<string, number>();
    const arrive = (a: Action) => service.set(a.key!, (service.get(a.key!) ?? 0) + 1);

    // Run 1. Free plan: one follow per 15 minutes, so follow u2 waits in the queue.
    const store1 = await openFileStore(dir);
    const first = setup({ store: store1 });
    const hang = new Promise<never>(() => {});
    const executor1: Executor = async (action) => {
      if (action.target === "u1") {
        arrive(action);
        return { result: { data: { following: true } } };
      }
      if (action.target === "10") arrive(action); // reply 10 arrives, the answer never does
      return hang; // reply 11 is lost on the way: the process dies first
    };
    const bot1 = first.system.bot({ bot: "g", account, executor: executor1 });
    expect((await bot1.follow("u1")).status).toBe("sent");
    void bot1.follow("u2");
    void bot1.reply({ id: "10", created_at: START }, "hello");
    void bot1.reply({ id: "11", created_at: START }, "hello too");
    await first.clock.advance(1);
    await store1.flush();
    // Crash: nothing is closed, and the first process's clock stops (it is dead); the second
    // process opens the same file.
    const clock = createClock({ frozen: true, start: first.clock.now() });
    const store2 = await openFileStore(dir);
    expect(Object.fromEntries(store2.entries<{ state: string }>("ledger").map(([k, e]) => [k, e.state]))).toEqual({
      "g:follow:u1": "done",
      "g:follow:u2": "queued",
      "g:reply:10": "pending",
      "g:reply:11": "pending",
    });

    const second = setup({ store: store2, clock });
    const sent: string[] = [];
    const executor2: Executor = async (action) => {
      sent.push(action.key!);
      arrive(action);
      return { result: { data: { id: "new" } } };
    };
    const checked: string[] = [];
    const reply: Verifier = {
      endpoint: "GET /2/users/:id/posts",
      check: async (action) => {
        checked.push(action.target);
        return {
          result: service.has(action.key!) ? { done: true, result: { data: { id: "found" } } } : { done: false },
        };
      },
    };
    const bot2 = second.system.bot({ bot: "g", account, executor: executor2, verifiers: { reply } });
    const recovered = bot2.recover();
    expect(await bot2.follow("u1")).toMatchObject({ status: "duplicate" });
    // The free plan's user-posts lookup allows one check per 15 minutes, and the follow
    // window (persisted across the crash) frees 15 minutes after u1: move the clock.
    await clock.advance(15 * 60_000);
    const outcomes = await recovered;

    expect(checked).toEqual(["10", "11"]);
    expect(outcomes.map((o) => [o.key, o.status])).toEqual([
      ["g:follow:u2", "sent"],
      ["g:reply:10", "duplicate"],
      ["g:reply:11", "sent"],
    ]);
    expect(sent.sort()).toEqual(["g:follow:u2", "g:reply:11"]);
    expect([...service.values()].every((n) => n === 1)).toBe(true);
    expect(service.size).toBe(4);
    expect(store2.get("ledger", "g:reply:10")).toMatchObject({ state: "done", result: { data: { id: "found" } } });
    await store2.close();
  });

  it("a queued action keeps its time-to-live across the restart", async () => {
    const store1 = await openFileStore(dir);
    const first = setup({ store: store1 });
    const bot1 = first.system.bot({ bot: "g", account, executor: async () => ({ result: {} }) });
    await bot1.follow("u1");
    void bot1.follow("u2", { ttlMs: 20 * 60_000 });
    await first.clock.advance(1);
    await store1.flush();

    const clock = createClock({ frozen: true, start: first.clock.now() });
    const store2 = await openFileStore(dir);
    const second = setup({ store: store2, clock });
    await clock.advance(21 * 60_000); // down for 21 minutes
    const bot2 = second.system.bot({ bot: "g", account, executor: async () => ({ result: {} }) });
    expect(await bot2.recover()).toMatchObject([{ status: "dropped", key: "g:follow:u2" }]);
    await store2.close();
  });

  it("gives back the slots of requests that never arrived, as the restart's check finds them", async () => {
    const store1 = await openFileStore(dir);
    const first = setup({ store: store1 });
    const budget = { reply: { max: 3, per: 3_600_000 } };
    // Both replies leave and are lost on the way: the process dies before any answer.
    const bot1 = first.system.bot({ bot: "g", account, budget, executor: () => new Promise<never>(() => {}) });
    void bot1.reply({ id: "10", created_at: START }, "hello 10");
    void bot1.reply({ id: "11", created_at: START }, "hello 11");
    await first.clock.advance(1);
    await store1.flush();

    const clock = createClock({ frozen: true, start: first.clock.now() });
    const store2 = await openFileStore(dir);
    const second = setup({ store: store2, clock });
    const sent: string[] = [];
    const reply: Verifier = { endpoint: "GET /2/users/:id/posts", check: async () => ({ result: { done: false } }) };
    const bot2 = second.system.bot({
      bot: "g",
      account,
      budget,
      executor: async (a) => (sent.push(a.target), { result: { data: { id: `r${a.target}` } } }),
      verifiers: { reply },
    });
    const capUsed = () => bot2.budget.describe("POST /2/posts", "reply").windows.find((w) => w.scope === "cap")!.used;
    const postsUsed = () => bot2.budget.describe("POST /2/posts").windows[0]!.used;
    expect([capUsed(), postsUsed()]).toEqual([2, 2]); // held by the two lost requests
    const recovered = bot2.recover();
    await clock.advance(15 * 60_000); // the free plan's one check per 15 minutes
    await clock.advance(15 * 60_000);
    expect((await recovered).map((o) => o.status)).toEqual(["sent", "sent"]);
    expect(sent).toEqual(["10", "11"]);
    // Each lost request's slot was given back when its resend took one: two used, not four.
    expect([capUsed(), postsUsed()]).toEqual([2, 2]);
    await store2.close();
  });

  it("checks a like that may have been sent with the service before sending it again", async () => {
    const store1 = await openFileStore(dir);
    const first = setup({ store: store1 });
    const arrived = new Set<string>();
    const bot1 = first.system.bot({
      bot: "g",
      account,
      executor: async (a) => (arrived.add(a.target), new Promise<never>(() => {})),
    });
    void bot1.like("7");
    await first.clock.advance(1);
    await store1.flush();

    const clock = createClock({ frozen: true, start: first.clock.now() });
    const store2 = await openFileStore(dir);
    const second = setup({ store: store2, clock });
    let resent = 0;
    const like: Verifier = {
      endpoint: "GET /2/users/:id/liked_posts",
      check: async (a) => ({ result: arrived.has(a.target) ? { done: true } : { done: false } }),
    };
    const bot2 = second.system.bot({
      bot: "g",
      account,
      executor: async () => (resent++, { result: {} }),
      verifiers: { like },
    });
    expect(await bot2.recover()).toMatchObject([{ status: "duplicate", key: "g:like:7" }]);
    expect(resent).toBe(0);
    await store2.close();
  });
});
