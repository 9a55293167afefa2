import { describe, expect, it } from "vitest";
import { codePointsUpTo } from "../../../src/sandbox/domain/code-points.ts";
import { parseEntities } from "../../../src/api/text/entities.ts";
import {
  MAX_EMOJI_CODE_POINTS,
  MAX_POST_LENGTH,
  MAX_POST_UNITS,
  weightedLength,
} from "../../../src/api/text/post-length.ts";
import { mulberry32 } from "../../helpers/random.ts";

/**
 * The count as it was made before it was made linear: the whole text cut into grapheme
 * clusters at once. The linear count must agree with it on every text without a link.
 */
function wholeTextCount(text: string): number {
  const light = (cp: number) =>
    cp <= 4351 || (cp >= 8192 && cp <= 8205) || (cp >= 8208 && cp <= 8223) || (cp >= 8242 && cp <= 8247);
  const emoji = (c: string) =>
    /\p{Emoji_Presentation}|\uFE0F|\u20E3|\p{Emoji_Modifier}|\p{Regional_Indicator}/u.test(c) ||
    (c.includes("\u200D") && /\p{Extended_Pictographic}/u.test(c));
  let total = 0;
  for (const { segment } of new Intl.Segmenter("en", { granularity: "grapheme" }).segment(text.normalize("NFC"))) {
    const cps = Array.from(segment);
    if (emoji(segment) && cps.length <= MAX_EMOJI_CODE_POINTS) total += 2;
    else for (const ch of cps) total += light(ch.codePointAt(0)!) ? 1 : 2;
  }
  return total;
}

/** Pieces that make clusters of every kind, many of them across the count's windows. */
const PIECES = [
  "a",
  " ",
  "1",
  "#",
  "\r\n",
  "é",
  "e\u0301",
  "a\u20DD",
  "日",
  "한",
  "\u1100\u1161\u11A8", // Hangul jamo, one cluster
  "\u{1F600}",
  "\u{1F44D}\u{1F3FD}",
  "\u{1F468}\u200D\u{1F469}\u200D\u{1F467}\u200D\u{1F466}",
  "\u{1F1E9}\u{1F1EA}",
  "\u{1F1E9}",
  "1\uFE0F\u20E3",
  "\u2764\uFE0F",
  "\u2764",
  "\u200D",
  "\uFE0F",
  "©",
  "™",
  "\u{1F3F4}\u{E0067}\u{E0062}\u{E0065}\u{E006E}\u{E0067}\u{E007F}",
  "\u0600", // a prepended concatenation mark
  "ก\u0E33", // a spacing mark
];

describe("the weighted length, counted in linear time", () => {
  it("agrees with counting the whole text's clusters at once, on random texts across many windows", () => {
    const random = mulberry32(26);
    for (let round = 0; round < 200; round++) {
      let text = "";
      const size = 1 + Math.floor(random() * 400);
      for (let i = 0; i < size; i++) text += PIECES[Math.floor(random() * PIECES.length)];
      expect(weightedLength(text), JSON.stringify(text)).toBe(wholeTextCount(text));
    }
  });

  it("stops counting once the count passes a limit, and is exact up to it", () => {
    const text = "日\u{1F600}".repeat(10_000);
    expect(weightedLength(text)).toBe(40_000);
    const limited = weightedLength(text, 560);
    expect(limited).toBeGreaterThan(560);
    expect(limited).toBeLessThan(600);
    expect(weightedLength("日".repeat(280), 560)).toBe(560);
    expect(weightedLength("a".repeat(300) + " https://example.com/x", 560)).toBe(300 + 1 + 23);
  });

  it("counts a link of up to 4,096 characters as 23 and a longer one as its characters", () => {
    const link = (length: number) => "https://example.com/" + "a".repeat(length - 20);
    expect(weightedLength(link(4096))).toBe(23);
    expect(parseEntities(link(4096)).urls).toHaveLength(1);
    expect(weightedLength(link(4097))).toBe(4097);
    expect(parseEntities(link(4097)).urls).toBeUndefined();
  });

  it("strips any run of trailing punctuation from a link, and keeps punctuation inside it", () => {
    const inside = "https://example.com/" + ".".repeat(4_000) + "a";
    expect(parseEntities(`${inside}!!`).urls![0]!.url).toBe(inside);
    expect(parseEntities("see https://example.com/x" + ".".repeat(5_000)).urls![0]!.url).toBe("https://example.com/x");
  });

  it("counts a cluster of more code points than any emoji by its code points", () => {
    const thumb = "\u{1F44D}";
    expect(weightedLength(thumb + "\uFE0F".repeat(MAX_EMOJI_CODE_POINTS - 1))).toBe(2);
    expect(weightedLength(thumb + "\uFE0F".repeat(MAX_EMOJI_CODE_POINTS))).toBe(2 * (MAX_EMOJI_CODE_POINTS + 1));
  });

  it("bounds the units of any text within the limit: 12 links of 4,096 and emoji of 16 code points", () => {
    const link = "https://example.com/" + "a".repeat(4076);
    const links = Array.from({ length: 12 }, () => link).join("\n");
    expect(weightedLength(links)).toBe(12 * 23 + 11);
    expect(links.length).toBeLessThanOrEqual(MAX_POST_UNITS);
    const emoji = "\u{1F44D}" + "\uFE0F".repeat(MAX_EMOJI_CODE_POINTS - 1);
    const emojis = emoji.repeat(MAX_POST_LENGTH / 2);
    expect(weightedLength(emojis)).toBe(MAX_POST_LENGTH);
    expect(emojis.length).toBeLessThanOrEqual(MAX_POST_UNITS);
  });
});

describe("codePointsUpTo", () => {
  it("counts code points, a surrogate pair as one, and stops one past the limit", () => {
    expect(codePointsUpTo("", 5)).toBe(0);
    expect(codePointsUpTo("héllo", 5)).toBe(5);
    expect(codePointsUpTo("😀😀😀", 3)).toBe(3);
    expect(codePointsUpTo("😀😀😀😀", 3)).toBe(4);
    expect(codePointsUpTo("a".repeat(1_000_000), 50)).toBe(51);
    expect(codePointsUpTo("\uD83D", 5)).toBe(1);
  });
});
