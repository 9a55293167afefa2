/**
 * A bot's model budget as the state store keeps it (src/llm/budget.ts): what is stored is the
 * budget's own copy, which its later uses do not change (it is handed to the store as it is,
 * not copied again), and a budget made again from the store (a restart) counts the same uses;
 * a store without `adopt` gets the same value through `set`.
 */
import { describe, expect, it } from "vitest";
import { createClock } from "../../src/clock.ts";
import { MODEL_BUDGET_NAMESPACE, ModelBudget, savedModelBudget } from "../../src/llm/budget.ts";
import { createMemoryStore, type Store } from "../../src/store/store.ts";

const policy = { tokens: 1_000, tokensPerMs: 86_400_000, requests: 5, requestsPerMs: 60_000 };

function setUp(store: Store = createMemoryStore()) {
  const clock = createClock({ frozen: true, start: Date.parse("2026-03-02T12:00:00Z") });
  return { clock, store, budget: new ModelBudget("helpdesk", policy, clock, store) };
}

describe("ModelBudget in the store", () => {
  it("keeps a value that its later uses do not change, and a restart counts the same uses", async () => {
    const { clock, store, budget } = setUp();
    await budget.acquire(new AbortController().signal);
    budget.spend(40);
    const held = store.get<Record<string, unknown>>(MODEL_BUDGET_NAMESPACE, "helpdesk")!;
    const asStored = structuredClone(held);
    await clock.advance(1_000);
    await budget.acquire(new AbortController().signal);
    budget.spend(9);
    budget.pause(30_000);
    expect(held).toEqual(asStored);
    expect(asStored).toEqual({
      policy,
      tokens: [[clock.now() - 1_000, 40]],
      requests: [[clock.now() - 1_000, 1]],
    });

    const again = new ModelBudget("helpdesk", policy, clock, store);
    expect(again.status()).toEqual(budget.status());
    expect(again.status()).toMatchObject({
      tokens: { used: 49, limit: 1_000 },
      requests: { used: 2, limit: 5 },
      pausedUntil: clock.now() + 30_000,
    });
    expect(savedModelBudget(store, "helpdesk", clock.now())).toEqual({ ...budget.status(), waiting: 0 });
  });

  it("saves how many requests wait for room, so bot status and the status page show them", async () => {
    const { clock, store, budget } = setUp();
    const stop = new AbortController();
    for (let i = 0; i < 5; i++) await budget.acquire(stop.signal);
    expect(savedModelBudget(store, "helpdesk", clock.now())!.waiting).toBe(0);
    const sixth = budget.acquire(stop.signal);
    const seventh = budget.acquire(stop.signal);
    expect(savedModelBudget(store, "helpdesk", clock.now())!.waiting).toBe(2);
    await clock.advance(60_000);
    await Promise.all([sixth, seventh]);
    expect(savedModelBudget(store, "helpdesk", clock.now())!.waiting).toBe(0);
    // A restart starts with none waiting, whatever was saved.
    for (let i = 0; i < 3; i++) await budget.acquire(stop.signal);
    const waiting = budget.acquire(stop.signal);
    expect(savedModelBudget(store, "helpdesk", clock.now())!.waiting).toBe(1);
    new ModelBudget("helpdesk", policy, clock, store);
    expect(savedModelBudget(store, "helpdesk", clock.now())!.waiting).toBe(0);
    stop.abort(new Error("stopped"));
    await expect(waiting).rejects.toThrow("stopped");
  });

  it("a request counted and then never sent (its reply expired waiting for a slot) is taken back, once", async () => {
    const { clock, store, budget } = setUp();
    const signal = new AbortController().signal;
    await budget.acquire(signal);
    await clock.advance(1_000);
    const unspend = await budget.acquire(signal);
    await budget.acquire(signal);
    expect(budget.status().requests!.used).toBe(3);
    unspend();
    unspend();
    expect(budget.status().requests!.used).toBe(2);
    expect(savedModelBudget(store, "helpdesk", clock.now())!.requests!.used).toBe(2);
  });

  it("a store without adopt is given the same value with set", async () => {
    const memory = createMemoryStore();
    const { adopt: _none, ...withoutAdopt } = memory;
    const { clock, budget } = setUp(withoutAdopt);
    await budget.acquire(new AbortController().signal);
    budget.spend(12);
    expect(withoutAdopt.get(MODEL_BUDGET_NAMESPACE, "helpdesk")).toEqual({
      policy,
      tokens: [[clock.now(), 12]],
      requests: [[clock.now(), 1]],
    });
  });
});
