/**
 * A model's text made fit to post (src/llm/shape.ts): `fitToLength` counts a run of plain
 * ASCII (no link in it) by its length instead of counting the whole run again at each segment.
 * It must cut exactly where counting each run with `weightedLength` cuts: the reference below
 * is that loop, as it was, and both are run on texts where the two could part (emoji, CJK,
 * combining marks, links, a link's start split over two words, short links that count more
 * than their length) and on random mixes of them, at the service's limit and at small ones.
 */
import { describe, expect, it } from "vitest";
import { MAX_POST_LENGTH, weightedLength } from "../../src/api/text/post-length.ts";
import { fitToLength } from "../../src/llm/shape.ts";
import { mulberry32 } from "../helpers/random.ts";

/** `fitToLength` before the fast path: every run counted whole with `weightedLength`. */
function reference(text: string, limit = MAX_POST_LENGTH): string {
  const fits = (t: string, l: number) => weightedLength(t, l) <= l;
  const longest = (granularity: "sentence" | "word" | "grapheme", l: number) => {
    let kept = "";
    for (const { segment } of new Intl.Segmenter("en", { granularity }).segment(text)) {
      if (!fits(kept + segment, l)) break;
      kept += segment;
    }
    return kept.trimEnd();
  };
  if (fits(text, limit)) return text;
  const bySentence = longest("sentence", limit);
  if (bySentence) return bySentence;
  const room = limit - weightedLength("…");
  const byWord = longest("word", room).replace(/[\s\p{P}]+$/u, "");
  if (byWord) return byWord + "…";
  return longest("grapheme", room) + "…";
}

const WORDS = "thanks for asking our shop opens at nine on weekdays and ten on saturdays".split(" ");

const TRICKY = [
  "Answer to: @writer0 when do you open on day 5?",
  `${"We open at nine on weekdays and at ten on Saturdays, ".repeat(8)}and we close at six.`,
  `${"Short one. ".repeat(40)}`,
  `See www.ab.cd ${"and more words ".repeat(30)}`,
  `${"word ".repeat(50)}www.example.com/${"path/".repeat(40)} after the link ${"tail ".repeat(30)}`,
  `${"a ".repeat(100)}https://example.com/${"x".repeat(300)} ${"b ".repeat(100)}`,
  `${"text ".repeat(53)}www.${"c".repeat(40)}`,
  `${"text ".repeat(54)}WWW.EXAMPLE.COM and ${"more ".repeat(20)}`,
  `${"text ".repeat(54)}HTTPS://X.CO/abc and ${"more ".repeat(20)}`,
  `${"go ".repeat(90)}http ://not-a-link www .not-a-link either ${"x ".repeat(40)}`,
  `${"We love bikes 👍🏽 ".repeat(20)}`,
  `${"family 👨‍👩‍👧 trip ".repeat(25)}`,
  `${"flags 🇬🇧🇫🇷 ".repeat(30)}`,
  `${"日本語の文章です。".repeat(30)}`,
  `${"mixed 日本 words ".repeat(30)}`,
  `${"cafe\u0301 ".repeat(70)}`,
  `${"e\u0301".repeat(300)}`,
  "x".repeat(400),
  `${"z".repeat(279)} 👍🏽 more`,
  `${"y".repeat(276)}👍🏽👍🏽`,
  `${"keycap 1\u20e3 ".repeat(40)}`,
  `${"ok. ".repeat(69)}https://example.com/done`,
];

/** A random mix of words, punctuation, spaces, emoji, CJK, combining marks and links. */
function randomText(random: () => number): string {
  const parts = [
    () => WORDS[Math.floor(random() * WORDS.length)]!,
    () => " ",
    () => " ",
    () => ". ",
    () => "! ",
    () => ", ",
    () => "👍🏽",
    () => "👨‍👩‍👧",
    () => "日本",
    () => "e\u0301",
    () => "https://example.com/" + "p".repeat(Math.floor(random() * 60)),
    () => "www.ab.cd",
    () => "www",
    () => ".",
    () => "http",
    () => "s://x.co",
    () => "HTTP://",
    () => "“quoted”",
  ];
  const length = 20 + Math.floor(random() * 400);
  let text = "";
  while (text.length < length) text += parts[Math.floor(random() * parts.length)]!();
  return text;
}

describe("fitToLength", () => {
  it("cuts tricky texts where counting every run whole cuts them", () => {
    for (const text of TRICKY)
      for (const limit of [MAX_POST_LENGTH, 100, 40, 10]) expect(fitToLength(text, limit)).toBe(reference(text, limit));
  });

  it("cuts 2,000 random mixes of words, emoji, CJK, combining marks and links as counting every run whole does", () => {
    const random = mulberry32(27);
    for (let i = 0; i < 2_000; i++) {
      const text = randomText(random);
      const limit = [MAX_POST_LENGTH, 120, 30][i % 3]!;
      expect(fitToLength(text, limit), `text ${JSON.stringify(text)} at ${limit}`).toBe(reference(text, limit));
    }
  });

  it("counts a short link as the service does (23), not by its length", () => {
    const text = `${"word ".repeat(52)}www.ab.cd and more`;
    const fitted = fitToLength(text);
    expect(weightedLength(fitted)).toBeLessThanOrEqual(MAX_POST_LENGTH);
    expect(fitted).toBe(`${"word ".repeat(52).trimEnd()}…`);
  });
});
