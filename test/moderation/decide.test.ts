/**
 * The decision about one reply (src/moderation/decide.ts): an operator's example first, then
 * the judge in the unsure band, then the built-in with the cut the evidence moved; every
 * reason said.
 */
import { describe, expect, it } from "vitest";
import { decide, JudgeError, signatureOf, type DecisionInput } from "../../src/moderation/index.ts";
import { classifier } from "./verdicts.ts";

const input = (text: string, o: Partial<DecisionInput> = {}): DecisionInput => ({
  assessment: classifier.assess(text),
  hide: "abusive",
  threshold: 0.5,
  facts: {},
  ...o,
});
const judged = (flagged: boolean, categories: string[] = flagged ? ["S1"] : []) => ({
  name: "chat m at x",
  result: {
    ok: true as const,
    cached: false,
    opinion: { flagged, categories, kinds: flagged ? ["threat" as const] : [] },
  },
});
const failed = { name: "chat m at x", result: { ok: false as const, error: new JudgeError("timeout", "no answer") } };

describe("deciding about a reply", () => {
  it("without a judge, the built-in decides at the cut", () => {
    expect(decide(input("you're an idiot"))).toMatchObject({ abusive: true, source: "built-in", cut: 0.5 });
    expect(decide(input("you idiot 😂😂"))).toMatchObject({ abusive: false, source: "built-in" });
    // A history lowers the cut: the same banter is hidden, and the reason is given.
    const d = decide(input("you idiot 😂😂", { facts: { history: { hides: 1, last: 0 } } }));
    expect(d).toMatchObject({ abusive: true, cut: 0.35 });
    expect(d.reasons).toContain("the bot hid a reply of this author in the last 30 days");
  });

  it("in the unsure band the judge's opinion decides, either way", () => {
    const safe = decide(input("you're an idiot", { judge: judged(false) }));
    expect(safe).toMatchObject({ abusive: false, source: "judge", categories: [] });
    expect(safe.reasons).toEqual(["unsure: evidence 0.7 in [0.3, 0.75)", "judge chat m at x: safe"]);
    const unsafe = decide(input("this is fucking brilliant", { judge: judged(true, ["S1", "S10"]) }));
    expect(unsafe).toMatchObject({ abusive: true, source: "judge" });
    expect(unsafe.reasons.at(-1)).toBe("judge chat m at x: unsafe S1 (Violent Crimes), S10 (Hate)");
  });

  it("when the judge fails, the built-in's verdict stands, and the log says why", () => {
    const d = decide(input("you're an idiot", { judge: failed }));
    expect(d).toMatchObject({ abusive: true, source: "built-in" });
    expect(d.reasons.at(-1)).toBe("judge chat m at x gave no opinion (timeout); the built-in's verdict stands");
  });

  it("with when: always, a judge flags what the built-in missed below the band, but does not overturn a sure hit", () => {
    expect(decide(input("lovely weather today", { judge: judged(true) }))).toMatchObject({
      abusive: true,
      source: "judge",
    });
    expect(decide(input("I will kill you", { judge: judged(false) }))).toMatchObject({
      abusive: true,
      source: "built-in",
    });
  });

  it("follows a person's decision: for a near-identical text always, for the same author only when unsure", () => {
    const example = (by: "text" | "author", state: "hidden" | "visible") => ({
      by,
      example: {
        post: "9",
        author: "u1",
        text: "x",
        signature: signatureOf("x"),
        state,
        decision: "keep" as const,
        at: 0,
      },
    });
    expect(decide(input("I will kill you", { example: example("text", "visible") }))).toMatchObject({
      abusive: false,
      source: "review",
    });
    expect(decide(input("I will kill you", { example: example("author", "visible") }))).toMatchObject({
      abusive: true,
      source: "built-in",
    });
    const d = decide(input("you're an idiot", { example: example("author", "visible"), judge: judged(true) }));
    expect(d).toMatchObject({ abusive: false, source: "review" });
    expect(d.reasons.at(-1)).toBe("follows a person's decision (keep) about this author, post 9");
  });

  it("hide: flagged hides on any rule", () => {
    expect(decide(input("this is fucking brilliant", { hide: "flagged" }))).toMatchObject({ abusive: true });
  });
});
