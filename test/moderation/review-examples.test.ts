/**
 * An operator's decisions as examples (src/moderation/review/examples.ts): a later
 * near-identical text follows a decision, a later reply of the same author within the
 * history window too, and the index follows the queue as decisions are recorded.
 */
import { describe, expect, it } from "vitest";
import { ReviewExamples, signatureOf, type DecidedReply } from "../../src/moderation/index.ts";

/** A queue's decisions as the examples read them. */
function decisions(list: DecidedReply[]) {
  let version = 0;
  return {
    source: { decisions: () => list, version: () => version },
    record(d: DecidedReply) {
      list.unshift(d);
      version++;
    },
  };
}

const unhid: DecidedReply = {
  post: "20",
  author: "u1",
  text: "you are a clown",
  state: "visible",
  decision: "unhide",
  at: 100,
};

describe("review examples", () => {
  it("a near-identical text follows a decision whoever wrote it; the author's other replies only within the window", () => {
    const examples = new ReviewExamples(decisions([unhid]).source);
    expect(examples.exampleFor(signatureOf("@bot U ARE A CLOWN"), "u9", 200)).toMatchObject({
      by: "text",
      example: { post: "20", state: "visible", decision: "unhide" },
    });
    expect(examples.exampleFor(signatureOf("something else entirely"), "u1", 200)).toMatchObject({ by: "author" });
    expect(examples.exampleFor(signatureOf("something else entirely"), "u1", 100 + 31 * 86_400_000)).toBeUndefined();
    expect(examples.exampleFor(signatureOf("something else entirely"), "u9", 200)).toBeUndefined();
  });

  it("sees a decision recorded after it was indexed, the latest of near-identical ones winning", () => {
    const queue = decisions([unhid]);
    const examples = new ReviewExamples(queue.source);
    expect(examples.exampleFor(signatureOf("you are a clown!!"), "u9", 200)?.example.decision).toBe("unhide");
    queue.record({ ...unhid, post: "30", author: "u2", state: "hidden", decision: "hide", at: 150 });
    expect(examples.exampleFor(signatureOf("you are a clown!!"), "u9", 200)?.example).toMatchObject({
      post: "30",
      decision: "hide",
    });
  });
});
