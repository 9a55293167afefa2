/**
 * Why a reply was listed for review, as `bot review` and the status page's `/review` table
 * both say it: the rule and its words, or the evidence and whether the model gave it (a
 * reply no rule named, listed unsure by the model, read "score 0" beside "evidence 0.392").
 */
import { describe, expect, it } from "vitest";
import { reviewWhy } from "../../src/observe/review-words.ts";

describe("reviewWhy", () => {
  it("names the rule and the words it matched, shortened where the caller asks", () => {
    const item = { rule: "insult:idiot", match: "you're an idiot", score: 1, evidence: 1 };
    expect(reviewWhy(item)).toBe(`insult:idiot matched "you're an idiot"`);
    expect(reviewWhy(item, (t) => t.slice(0, 6))).toBe(`insult:idiot matched "you're"`);
    expect(reviewWhy({ rule: "spam:links", score: 0.8, evidence: 0.8 })).toBe("spam:links");
  });

  it("gives the evidence of a reply no rule named, and says when the model gave it", () => {
    expect(reviewWhy({ score: 0, evidence: 0.392 })).toBe("evidence 0.392 from the model, rule score 0");
    expect(reviewWhy({ score: 0.5, evidence: 0.5 })).toBe("evidence 0.5");
    // Listed before evidence was kept: its score is its evidence.
    expect(reviewWhy({ score: 0.35 } as never)).toBe("evidence 0.35");
  });
});
