import { describe, expect, it } from "vitest";
import { compileLiteral, compilePattern, notFollowedBy, oneOf } from "../../src/moderation/pattern.ts";

const matches = (re: RegExp, text: string) => [...text.matchAll(re)].map((m) => m[0]);

describe("phrase patterns", () => {
  it("match whole words, with any separators or none between words", () => {
    const re = compilePattern("kill yourself");
    expect(matches(re, "kil yourself")).toEqual(["kil yourself"]);
    expect(matches(re, "kil... yourself")).toEqual(["kil... yourself"]);
    expect(matches(re, "kilyourself")).toEqual(["kilyourself"]);
    expect(matches(re, "skil yourselfie")).toEqual([]);
  });

  it("require a separator where the pattern has an underscore", () => {
    const re = compilePattern("you_r");
    expect(matches(re, "you r")).toEqual(["you r"]);
    expect(matches(re, "your")).toEqual([]);
  });

  it("prefer the longest alternative, share prefixes and escape regex characters", () => {
    expect(oneOf(["such", "such a", "a.b"])).toBe("(?:(?:such(?: a)?|a\\.b))");
    expect(oneOf(["idiot", "imbecile"])).toBe("(?:i(?:diot|mbecile))");
    expect(matches(compilePattern(`${oneOf(["such", "such a"])} fol`), "such a fol")).toEqual(["such a fol"]);
    expect(matches(compilePattern(`${oneOf(["such", "such a"])} fol`), "such fol")).toEqual(["such fol"]);
    expect(matches(compilePattern(oneOf(["a.b", "i.e"])), "a.b axb")).toEqual(["a.b"]);
  });

  it("refuse following words only as whole words", () => {
    const re = compilePattern(`die${notFollowedBy(["on", "laughing"])}`);
    expect(matches(re, "die laughing")).toEqual([]);
    expect(matches(re, "die on that hil")).toEqual([]);
    expect(matches(re, "die one day")).toEqual(["die"]);
  });

  it("compile list terms as their words, whole, with any separators", () => {
    const re = compileLiteral("buy (folowers)");
    expect(matches(re, "buy folowers, buy-folowers, buyfolowers")).toEqual([
      "buy folowers",
      "buy-folowers",
      "buyfolowers",
    ]);
    expect(matches(re, "rebuy folowers, buy folowersx")).toEqual([]);
  });
});
