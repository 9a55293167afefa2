/**
 * The review list (src/moderation/review): replies listed with why, decisions recorded once,
 * and remembered as examples for later replies.
 */
import { describe, expect, it } from "vitest";
import { ReviewStore, signatureOf, type KeyValue, type ReviewItem } from "../../src/moderation/index.ts";

function memoryKv(): KeyValue {
  const data = new Map<string, string>();
  return {
    get: <T>(k: string) => (data.has(k) ? (JSON.parse(data.get(k)!) as T) : undefined),
    set: (k, v) => void data.set(k, JSON.stringify(v)),
    delete: (k) => void data.delete(k),
  };
}

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

describe("the review store", () => {
  it("lists replies newest first, and open ones apart", () => {
    const store = new ReviewStore(memoryKv());
    store.add(item("10"));
    store.add(item("20", { state: "hidden", listed: "hidden" }));
    store.decided("10", { decision: "keep", by: "cli:op", at: 30, status: "none" });
    expect(store.list().map((i) => i.post)).toEqual(["20", "10"]);
    expect(store.list({ open: true }).map((i) => i.post)).toEqual(["20"]);
  });

  it("a decision that took effect is not pending any more, and is an example for near-identical texts and the author", () => {
    const kv = memoryKv();
    const store = new ReviewStore(kv);
    store.add(item("20", { state: "hidden", listed: "hidden" }));
    expect(store.pending("20", "unhide")).toBe(true);
    const after = store.decided("20", { decision: "unhide", by: "cli:op", at: 100, status: "sent" });
    expect(after?.state).toBe("visible");
    expect(after?.decision).toEqual({ decision: "unhide", by: "cli:op", at: 100, status: "sent", state: "visible" });
    expect(new ReviewStore(kv).pending("20", "unhide")).toBe(false);
    expect(store.pending("20", "hide")).toBe(true);

    const later = new ReviewStore(kv); // a restart
    expect(later.exampleFor(signatureOf("@bot U ARE A CLOWN"), "u9", 200)).toMatchObject({
      by: "text",
      example: { post: "20", state: "visible", decision: "unhide" },
    });
    expect(later.exampleFor(signatureOf("something else entirely"), "u1", 200)).toMatchObject({ by: "author" });
    expect(later.exampleFor(signatureOf("something else entirely"), "u1", 100 + 31 * 86_400_000)).toBeUndefined();
  });

  it("a decision whose action failed is recorded but stays pending, and is no example", () => {
    const store = new ReviewStore(memoryKv());
    store.add(item("20", { state: "hidden", listed: "hidden" }));
    store.decided("20", { decision: "unhide", by: "cli:op", at: 100, status: "failed" });
    expect(store.pending("20", "unhide")).toBe(true);
    expect(store.get("20")?.state).toBe("hidden");
    expect(store.exampleFor(signatureOf("you are a clown"), "u1", 200)).toBeUndefined();
  });

  it("listing a reply again keeps its decision", () => {
    const store = new ReviewStore(memoryKv());
    store.add(item("20"));
    store.decided("20", { decision: "keep", by: "cli:op", at: 100, status: "none" });
    store.add(item("20"));
    expect(store.get("20")?.decision?.decision).toBe("keep");
  });
});
