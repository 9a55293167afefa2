/**
 * A bot's model budget as the state store keeps it (src/llm/budget.ts): what is stored is the
 * budget's own copy, which its later uses do not change (it is handed to the store as it is,
 * not copied again), and a budget made again from the store (a restart) counts the same uses;
 * a store without `adopt` gets the same value through `set`. Each window is kept as counts per
 * step (a hundredth of it), and a record saved before steps (one pair per use) still loads.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createClock } from "../../src/clock.ts";
import { MODEL_BUDGET_NAMESPACE, ModelBudget, savedModelBudget, WINDOW_STEPS } from "../../src/llm/budget.ts";
import { openFileStore } from "../../src/store/file-store.ts";
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

describe("ModelBudget's record: counts per step of each window", () => {
  it("a record saved before steps (one pair per use: 1,000 replies) loads with the same counts, and is saved as at most 101 counts a window", async () => {
    // llm.budget's record as the previous version saved it after 1,000 replies over 12 h.
    const { savedAt, record } = JSON.parse(
      await readFile(new URL("../fixtures/llm/budget-before-steps.json", import.meta.url), "utf8"),
    ) as {
      savedAt: number;
      record: { policy: typeof policy; tokens: Array<[number, number]>; requests: Array<[number, number]> };
    };
    expect(record.tokens).toHaveLength(1_000);
    const dir = await mkdtemp(join(tmpdir(), "postbot-llm-budget-"));
    try {
      const before = await openFileStore(dir);
      before.set(MODEL_BUDGET_NAMESPACE, "helpdesk", record);
      await before.close();

      const store = await openFileStore(dir);
      const clock = createClock({ frozen: true, start: savedAt });
      const budget = new ModelBudget("helpdesk", record.policy, clock, store);
      /** What the previous version counted at `at`: each use exactly. */
      const exactly = (uses: Array<[number, number]>, at: number) =>
        uses.filter(([t]) => t > at - 86_400_000).reduce((sum, [, n]) => sum + n, 0);
      const status = budget.status();
      expect(status.tokens!.used).toBe(exactly(record.tokens, savedAt));
      expect(status.requests!.used).toBe(1_000);
      // Room comes back when the oldest use leaves: never sooner, at most a step (1 % of the window) later.
      const step = 86_400_000 / WINDOW_STEPS;
      expect(status.tokens!.resetAt).toBeGreaterThanOrEqual(record.tokens[0]![0] + 86_400_000);
      expect(status.tokens!.resetAt).toBeLessThanOrEqual(record.tokens[0]![0] + 86_400_000 + step);

      const saved = store.get<typeof record>(MODEL_BUDGET_NAMESPACE, "helpdesk")!;
      expect(saved.tokens.length).toBeLessThanOrEqual(WINDOW_STEPS + 1);
      expect(saved.requests.length).toBeLessThanOrEqual(WINDOW_STEPS + 1);
      expect(JSON.stringify(saved).length).toBeLessThan(JSON.stringify(record).length / 5);

      // Later, as the first uses leave the window: never fewer counted than exactly, at most a step's more.
      for (const later of [savedAt + 13 * 3_600_000, savedAt + 18 * 3_600_000, savedAt + 23 * 3_600_000]) {
        await clock.advance(later - clock.now());
        const used = budget.status().tokens!.used;
        expect(used).toBeGreaterThanOrEqual(exactly(record.tokens, later));
        expect(used).toBeLessThanOrEqual(exactly(record.tokens, later - step));
      }
      // And a restart reads the steps back as they were saved.
      expect(new ModelBudget("helpdesk", record.policy, clock, store).status()).toEqual(budget.status());
      await store.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
