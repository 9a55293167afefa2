/**
 * A bot's unfinished actions, as a process starting it looks for them (../../src/hosting's
 * recover): its own entries alone, found without a copy of every bot's (a process starting
 * 8,000 bots over a ledger of thousands of entries copied them all for each one).
 */
import { describe, expect, it } from "vitest";
import { actionKey, type Action } from "../../src/actions/action.ts";
import { Ledger } from "../../src/actions/mechanics/idempotency-ledger.ts";
import { createClock } from "../../src/clock.ts";
import { createMemoryStore, type Store } from "../../src/store/store.ts";

const action = (bot: string, target: string): Action =>
  ({
    key: actionKey(bot, "reply", target),
    kind: "reply",
    bot,
    userId: "1",
    endpoint: "POST /2/posts",
    target,
    path: {},
    priority: 1,
    createdAt: 0,
    expiresAt: 60_000,
  }) as Action;

describe("the ledger's unfinished actions of one bot", () => {
  it("are that bot's own (not another's whose name starts the same), without a copy of every bot's entries", async () => {
    const memory = createMemoryStore();
    let copies = 0;
    const store: Store = {
      ...memory,
      entries: <T>(ns: string) => {
        copies++;
        return memory.entries<T>(ns);
      },
    };
    const ledger = new Ledger(store, createClock({ frozen: true }));
    for (const bot of ["greeter", "greeter2", "echo"])
      for (const target of ["1", "2"]) ledger.queue(action(bot, target));
    ledger.finish(actionKey("greeter", "reply", "2"), "done", {});
    copies = 0;
    expect(ledger.unfinished("greeter").map(([key]) => key)).toEqual(["greeter:reply:1"]);
    expect(ledger.unfinished("greeter2").map(([key]) => key)).toEqual(["greeter2:reply:1", "greeter2:reply:2"]);
    expect(copies).toBe(0);
    expect(ledger.unfinished().map(([key]) => key)).toHaveLength(5);
  });
});
