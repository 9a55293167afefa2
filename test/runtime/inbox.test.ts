import { describe, expect, it } from "vitest";
import type { BotEvent } from "../../src/triggers/events.ts";
import { INBOX_LIMIT, Inbox } from "../../src/runtime/inbox.ts";
import { createMemoryStore } from "../../src/store/store.ts";

const event = (i: number): BotEvent => ({
  kind: "schedule",
  id: `e${i}`,
  schedule: { name: "s", cron: "* * * * *", at: i },
});

describe("Inbox", () => {
  it("stays within its limit, dropping the oldest, counting events handled and events already there", () => {
    const store = createMemoryStore();
    // An earlier run left 10 events.
    for (let i = 0; i < 10; i++) store.set("inbox:bot", `e${i}`, event(i));
    const inbox = new Inbox(store, "bot");
    expect(inbox.add([event(5)]).added).toEqual([]);
    const first = inbox.add(Array.from({ length: INBOX_LIMIT - 10 }, (_, i) => event(10 + i)));
    expect(first.dropped).toEqual([]);
    inbox.done("e0");
    inbox.done("e0"); // twice: counted once
    inbox.done("nothing");
    expect(inbox.add([event(INBOX_LIMIT)]).dropped).toEqual([]);
    expect(inbox.add([event(INBOX_LIMIT + 1), event(INBOX_LIMIT + 2)]).dropped).toEqual(["e1", "e2"]);
    expect(inbox.pending()).toHaveLength(INBOX_LIMIT);
    expect(inbox.pending()[0]!.id).toBe("e3");
  });
});
