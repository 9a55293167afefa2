/**
 * The ledger keeps its own copy of what it records: an action queued is what a restart would
 * send, whatever the caller does with the objects it passed afterwards.
 */
import { describe, expect, it } from "vitest";
import type { Action } from "../../../src/actions/action.ts";
import { Ledger } from "../../../src/actions/mechanics/idempotency-ledger.ts";
import { createClock } from "../../../src/clock.ts";
import { createMemoryStore } from "../../../src/store/store.ts";

describe("the ledger's queued actions", () => {
  it("are its own copies: the caller changing the action, its path, body or context afterwards changes nothing recorded", () => {
    const ledger = new Ledger(createMemoryStore(), createClock({ frozen: true, start: 1_000 }));
    const body = { text: "hello", reply: { in_reply_to_post_id: "7" } };
    const action: Action = {
      key: "g:reply:7",
      kind: "reply",
      bot: "g",
      userId: "1",
      endpoint: "POST /2/posts",
      target: "7",
      path: {},
      body,
      context: { authorId: "9" },
      priority: 1,
      createdAt: 1_000,
    };
    ledger.queue(action);
    body.text = "changed";
    body.reply.in_reply_to_post_id = "8";
    action.path.id = "x";
    action.context!.authorId = "10";
    action.priority = 5;
    expect(ledger.get("g:reply:7")).toMatchObject({
      state: "queued",
      action: {
        path: {},
        body: { text: "hello", reply: { in_reply_to_post_id: "7" } },
        context: { authorId: "9" },
        priority: 1,
      },
    });
  });
});
