/**
 * The review queue, core's own (src/plugins/review-queue.ts): replies listed with why,
 * decisions recorded once and remembered for the plugin that follows them, and the list the
 * `moderate` plugin kept in its own state before 0.2 read as part of the queue, then moved.
 */
import { describe, expect, it } from "vitest";
import { RingRecord } from "../../src/moderation/index.ts";
import { botStore } from "../../src/plugins/context.ts";
import { REVIEW_LIMITS, ReviewQueue, type ReviewItem } from "../../src/plugins/review-queue.ts";
import { createMemoryStore, type Store } from "../../src/store/store.ts";

const item = (post: string, o: Partial<ReviewItem> = {}): Omit<ReviewItem, "decision"> => ({
  post,
  author: { id: "u1", username: "alice" },
  text: "you are a clown",
  conversation: "1",
  inReplyTo: "1",
  at: Number(post),
  state: "visible",
  listed: "unsure",
  source: "built-in",
  score: 0.7,
  evidence: 0.7,
  reasons: [],
  ...o,
});

describe("the review queue", () => {
  it("lists replies newest first, and open ones apart, in the bot's own namespace", () => {
    const store = createMemoryStore();
    const queue = new ReviewQueue(store, "host");
    queue.add(item("10"));
    queue.add(item("20", { state: "hidden", listed: "hidden" }));
    queue.decide("10", { decision: "keep", by: "cli:op", at: 30, status: "none" });
    expect(queue.list().map((i) => i.post)).toEqual(["20", "10"]);
    expect(queue.list({ open: true }).map((i) => i.post)).toEqual(["20"]);
    expect(new ReviewQueue(store, "other").list()).toEqual([]);
    expect(store.entries("review:host").length).toBeGreaterThan(0);
    expect(store.entries("kv:host")).toEqual([]);
  });

  it("a decision that took effect is not pending any more, and is remembered with the reply's text", () => {
    const store = createMemoryStore();
    const queue = new ReviewQueue(store, "host");
    queue.add(item("20", { state: "hidden", listed: "hidden" }));
    expect(queue.pending("20", "unhide")).toBe(true);
    const version = queue.version();
    const after = queue.decide("20", { decision: "unhide", by: "cli:op", at: 100, status: "sent" });
    expect(after?.state).toBe("visible");
    expect(after?.decision).toEqual({ decision: "unhide", by: "cli:op", at: 100, status: "sent", state: "visible" });
    expect(queue.version()).not.toBe(version);
    const later = new ReviewQueue(store, "host"); // a restart
    expect(later.pending("20", "unhide")).toBe(false);
    expect(later.pending("20", "hide")).toBe(true);
    expect(later.decisions()).toEqual([
      { post: "20", author: "u1", text: "you are a clown", state: "visible", decision: "unhide", at: 100 },
    ]);
  });

  it("a decision whose action failed is recorded but stays pending, and is not remembered", () => {
    const queue = new ReviewQueue(createMemoryStore(), "host");
    queue.add(item("20", { state: "hidden", listed: "hidden" }));
    queue.decide("20", { decision: "unhide", by: "cli:op", at: 100, status: "failed" });
    expect(queue.pending("20", "unhide")).toBe(true);
    expect(queue.get("20")?.state).toBe("hidden");
    expect(queue.decisions()).toEqual([]);
    expect(queue.decide("99", { decision: "hide", by: "cli:op", at: 100, status: "sent" })).toBeUndefined();
  });

  it("listing a reply again keeps its decision", () => {
    const queue = new ReviewQueue(createMemoryStore(), "host");
    queue.add(item("20"));
    queue.decide("20", { decision: "keep", by: "cli:op", at: 100, status: "none" });
    queue.add(item("20"));
    expect(queue.get("20")?.decision?.decision).toBe("keep");
  });

  it("keeps the most recent items", () => {
    const queue = new ReviewQueue(createMemoryStore(), "host");
    for (let n = 1; n <= REVIEW_LIMITS.items + 2; n++) queue.add(item(String(n)));
    const listed = queue.list();
    expect(listed).toHaveLength(REVIEW_LIMITS.items);
    expect([listed[0]!.post, listed.at(-1)!.post]).toEqual([String(REVIEW_LIMITS.items + 2), "3"]);
  });
});

/**
 * A bot's state as the `moderate` plugin left it before 0.2: its list and its remembered
 * decisions in the bot's key-value state, written exactly as it wrote them (a ring of keys
 * `moderate:review...` and `moderate:example...`; an example had the words it compared, not the text).
 */
function stateOfBefore(): Store {
  const store = createMemoryStore();
  const kv = botStore(store, "host");
  const items = new RingRecord<unknown>(kv, "moderate:review", 500);
  const examples = new RingRecord<unknown>(kv, "moderate:example", 500);
  items.set("10", item("10"));
  items.set("20", {
    ...item("20", { text: "go away clown", state: "hidden", listed: "hidden" }),
    decision: { decision: "keep", by: "cli:op", at: 25, status: "none", state: "hidden" },
  });
  examples.set("20", {
    post: "20",
    author: "u1",
    signature: ["go", "away", "clown", "go away", "away clown"],
    state: "hidden",
    decision: "keep",
    at: 25,
  });
  // A decision whose reply has left the list since: only its words are left.
  examples.set("5", {
    post: "5",
    author: "u2",
    signature: ["nice", "try", "nice try"],
    state: "visible",
    decision: "unhide",
    at: 6,
  });
  kv.set("moderate:starter:1", "1"); // the plugin's own state, not the queue's
  return store;
}

describe("the review list kept before 0.2", () => {
  it("is read as the queue's until its first write, without writing (a reader beside bot start)", () => {
    const store = stateOfBefore();
    const queue = new ReviewQueue(store, "host");
    expect(queue.list().map((i) => [i.post, i.decision?.decision])).toEqual([
      ["20", "keep"],
      ["10", undefined],
    ]);
    expect(queue.list({ open: true }).map((i) => i.post)).toEqual(["10"]);
    expect(queue.get("20")?.text).toBe("go away clown");
    expect(queue.pending("20", "keep")).toBe(false);
    expect(queue.decisions().map((d) => [d.post, d.text, d.decision])).toEqual([
      ["20", "go away clown", "keep"],
      ["5", "nice try", "unhide"],
    ]);
    expect(store.entries("review:host")).toEqual([]);
  });

  it("moves into the queue on its first write, the operator's open items and decisions kept, and leaves the plugin's own state alone", () => {
    const store = stateOfBefore();
    const queue = new ReviewQueue(store, "host");
    const before = queue.version();
    queue.add(item("30"));
    expect(queue.list().map((i) => i.post)).toEqual(["30", "20", "10"]);
    expect(queue.decisions().map((d) => [d.post, d.text])).toEqual([
      ["20", "go away clown"],
      ["5", "nice try"],
    ]);
    expect(queue.version()).not.toBe(before);
    expect(store.entries("kv:host")).toEqual([["moderate:starter:1", "1"]]);
    queue.decide("10", { decision: "hide", by: "cli:op", at: 40, status: "sent" });
    expect(new ReviewQueue(store, "host").get("10")?.state).toBe("hidden");
    expect(new ReviewQueue(store, "host").decisions().map((d) => d.post)).toEqual(["10", "20", "5"]);
  });
});
