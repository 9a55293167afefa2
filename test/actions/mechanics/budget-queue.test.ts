/**
 * The queue's waiting requests (src/actions/mechanics/budget-queue.ts): served the moment room comes, whether
 * it comes with time or because a slot was given back, and not asked again about their
 * budgets on every new request while neither has happened (10,000 bots' polls wait at once).
 */
import { describe, expect, it } from "vitest";
import { ActionQueue } from "../../../src/actions/mechanics/budget-queue.ts";
import { createClock } from "../../../src/clock.ts";
import { BudgetBook, type AccountBudget, type Slot } from "../../../src/limits/budget.ts";
import { createMemoryStore } from "../../../src/store/store.ts";
import { captureLogs } from "../../helpers/log.ts";
import { settled } from "../helpers.ts";

const START = Date.parse("2026-01-05T12:00:00Z");
const MENTIONS = "GET /2/users/:id/mentions" as const; // basic: 10 per 15 min a user, 15 per 15 min the app
const QUARTER = 15 * 60_000;

function setup() {
  const clock = createClock({ frozen: true, start: START });
  const book = new BudgetBook({ store: createMemoryStore(), clock });
  const queue = new ActionQueue({ clock });
  const account = (n: number) => book.account({ appId: "app", userId: `u${n}`, plan: "basic" });
  const wait = (budget: AccountBudget, label = "poll") =>
    queue.acquire({ budget, bot: `bot-${label}`, endpoint: MENTIONS, priority: 5, label });
  return { clock, book, queue, account, wait };
}

describe("the action queue", () => {
  it("tells its watcher the bot of every request that joins, served at once or put off", async () => {
    const { account, wait, queue } = setup();
    const joined: string[] = [];
    queue.watchJoins((bot) => joined.push(bot));
    const budget = account(1);
    for (let i = 0; i < 10; i++) await wait(budget, "a");
    const waiting = wait(budget, "b");
    expect(await settled(waiting)).toBe(false);
    expect(joined).toEqual([...Array.from({ length: 10 }, () => "bot-a"), "bot-b"]);
  });

  it("lists and counts a bot's own waiting requests in the queue's order, as they come and leave", async () => {
    const { clock, account, queue } = setup();
    const budget = account(1);
    const ask = (bot: string, priority: number, label: string, signal?: AbortSignal) =>
      queue.acquire({ budget, bot, endpoint: MENTIONS, priority, label, ...(signal ? { signal } : {}) });
    for (let i = 0; i < 10; i++) await ask("other", 5, `first-${i}`);
    const stop = new AbortController();
    const waiting = [
      ask("mine", 5, "a"),
      ask("other", 1, "x"),
      ask("mine", 1, "b"),
      ask("mine", 5, "c", stop.signal),
      ask("other", 3, "y"),
      ask("mine", 3, "d"),
    ];
    for (const w of waiting) expect(await settled(w)).toBe(false);
    expect(queue.list("mine").map((w) => w.label)).toEqual(["b", "d", "a", "c"]);
    expect(queue.count("mine")).toBe(4);
    expect(queue.count("other")).toBe(2);
    expect(queue.count("nobody")).toBe(0);
    stop.abort();
    await expect(waiting[3]).rejects.toBeDefined();
    expect(queue.list("mine").map((w) => w.label)).toEqual(["b", "d", "a"]);
    await clock.advance(QUARTER);
    await Promise.all([0, 1, 2, 4, 5].map((i) => waiting[i]));
    expect(queue.count("mine")).toBe(0);
    expect(queue.list("mine")).toEqual([]);
    expect(queue.list()).toEqual([]);
  });

  it("serves a request put off by its budget when the window frees room, and not before", async () => {
    const { clock, account, wait } = setup();
    const budget = account(1);
    for (let i = 0; i < 10; i++) await wait(budget);
    const waiting = wait(budget);
    expect(await settled(waiting)).toBe(false);
    await clock.advance(QUARTER - 1);
    expect(await settled(waiting)).toBe(false);
    await clock.advance(1);
    expect((await waiting).at).toBe(START + QUARTER);
  });

  it("serves the waiting requests by priority, the oldest first among equals, and logs a wait once until it ends", async () => {
    const clock = createClock({ frozen: true, start: START });
    const { lines, logger } = captureLogs();
    const book = new BudgetBook({ store: createMemoryStore(), clock });
    const queue = new ActionQueue({ clock, logger });
    const budget = book.account({ appId: "app", userId: "u1", plan: "basic" });
    const ask = (priority: number, label: string) =>
      queue.acquire({ budget, bot: "bot", endpoint: MENTIONS, priority, label });
    for (let i = 0; i < 10; i++) await ask(5, `first-${i}`);
    const order: string[] = [];
    const waiting = (
      [
        [5, "a"],
        [1, "b"],
        [5, "c"],
        [1, "d"],
        [3, "e"],
        [9, "f"],
        [1, "g"],
      ] as const
    ).map(([p, label]) => ask(p, label).then(() => void order.push(label)));
    for (const w of waiting) expect(await settled(w)).toBe(false);
    expect(lines.filter((l) => String(l.msg).includes("waits for budget"))).toHaveLength(1);
    await clock.advance(QUARTER); // room for all 10 again
    await Promise.all(waiting);
    expect(order).toEqual(["b", "d", "g", "e", "a", "c", "f"]);
    // That wait ended with its last request: the next one is logged again.
    for (let i = 0; i < 4; i++) void ask(5, `late-${i}`); // 3 slots are left: the 4th waits
    for (let i = 0; i < 5; i++) await Promise.resolve();
    expect(lines.filter((l) => String(l.msg).includes("waits for budget"))).toHaveLength(2);
  });

  it("a slot given back (a request that never left) serves a request waiting for that window at the next pump, not at its old time", async () => {
    const { clock, account, wait } = setup();
    const budget = account(1);
    const slots: Slot[] = [];
    for (let i = 0; i < 10; i++) slots.push(await wait(budget));
    const waiting = wait(budget);
    expect(await settled(waiting)).toBe(false);
    await clock.advance(60_000);
    budget.giveBack(slots[3]!);
    // Any new request pumps the queue; the one put off until the window's end goes now.
    await wait(account(2), "other");
    expect(await settled(waiting)).toBe(true);
    expect((await waiting).at).toBe(START + 60_000);
  });

  it("does not ask every waiting request's budget again on each new request while nothing freed room", async () => {
    const { account, wait } = setup();
    // The app's window (15 per 15 min) spent by 15 bots; 200 more bots' polls wait for it.
    for (let i = 0; i < 15; i++) await wait(account(i));
    const budgets = Array.from({ length: 200 }, (_, i) => account(100 + i));
    let asked = 0;
    for (const b of budgets) {
      const check = b.check.bind(b);
      b.check = (...args) => (asked++, check(...args));
    }
    const waiting = budgets.map((b, i) => wait(b, String(i)));
    for (const w of waiting) expect(await settled(w)).toBe(false);
    const once = asked;
    expect(once).toBeLessThanOrEqual(2 * budgets.length);
    // More requests come (each pumps the queue): the waiting polls are not asked again.
    for (let i = 0; i < 20; i++) expect(await settled(wait(account(1_000 + i), `late-${i}`))).toBe(false);
    expect(asked).toBe(once);
  });
});
