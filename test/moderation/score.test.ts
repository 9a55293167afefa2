import { describe, expect, it } from "vitest";
import { kindOf, score, WEIGHTS } from "../../src/moderation/score.ts";
import type { RuleHit } from "../../src/moderation/types.ts";

const hit = (rule: string): RuleHit => ({ rule, match: "", weight: WEIGHTS[kindOf(rule)] });

describe("score", () => {
  it("is 0 without hits and the weight of a single hit", () => {
    expect(score([])).toBe(0);
    expect(score([hit("threat:kys")])).toBe(0.95);
  });

  it("counts only the strongest hit of each kind", () => {
    expect(score([hit("profanity:fuck"), hit("profanity:shit"), hit("profanity:piss")])).toBe(0.3);
  });

  it("combines kinds as independent evidence", () => {
    expect(score([hit("insult:idiot"), hit("profanity:fuck")])).toBe(0.79);
    expect(score([hit("threat:kys"), hit("slur:fag")])).toBe(0.995);
    expect(score([hit("block:spam"), hit("profanity:fuck")])).toBe(1);
  });

  it("reads the kind from a rule id", () => {
    expect(kindOf("block:crypto: scam")).toBe("block");
    expect(kindOf("insult:piece of shit")).toBe("insult");
  });
});
