import { describe, expect, it } from "vitest";
import { parseEntities } from "../../../src/api/text/entities.ts";
import { weightedLength } from "../../../src/api/text/post-length.ts";

/** Slices by code points, as a client would with the entity indices. */
const slice = (text: string, e: { start: number; end: number }) => Array.from(text).slice(e.start, e.end).join("");

describe("parseEntities", () => {
  it("finds mentions, hashtags, cashtags and links with start-inclusive, end-exclusive indices", () => {
    const text = "@alice look at #Cats and $TWTR on https://example.com/a?b=1.";
    const e = parseEntities(text);
    expect(e.mentions).toEqual([{ start: 0, end: 6, username: "alice" }]);
    expect(e.hashtags).toEqual([{ start: 15, end: 20, tag: "Cats" }]);
    expect(e.cashtags).toEqual([{ start: 25, end: 30, tag: "TWTR" }]);
    expect(e.urls).toHaveLength(1);
    expect(e.urls![0]).toMatchObject({
      url: "https://example.com/a?b=1",
      expanded_url: "https://example.com/a?b=1",
      display_url: "example.com/a?b=1",
    });
    for (const list of [e.mentions!, e.hashtags!, e.cashtags!])
      for (const x of list) expect(slice(text, x)[0]).toMatch(/[@#$]/);
    expect(slice(text, e.urls![0]!)).toBe("https://example.com/a?b=1");
  });

  it("counts indices in code points, so an emoji before an entity shifts it by one", () => {
    const text = "😀 hi @bob #tag";
    const e = parseEntities(text);
    expect(e.mentions![0]).toEqual({ start: 5, end: 9, username: "bob" });
    expect(slice(text, e.mentions![0]!)).toBe("@bob");
    expect(slice(text, e.hashtags![0]!)).toBe("#tag");
  });

  it("does not take e-mail addresses, digit-only tags, overlong names or parts of links", () => {
    const e = parseEntities("mail me@example.com #123 @abcdefghijklmnop https://x.com/@carol#frag");
    expect(e.mentions).toBeUndefined();
    expect(e.hashtags).toBeUndefined();
    expect(e.urls).toHaveLength(1);
  });

  it("omits kinds that do not occur", () => {
    expect(parseEntities("plain words")).toEqual({});
  });

  it("recognises www. links and a hashtag in another script", () => {
    const e = parseEntities("visit www.example.org #café #日本");
    expect(e.urls![0]).toMatchObject({ url: "www.example.org", expanded_url: "http://www.example.org" });
    expect(e.hashtags!.map((h) => h.tag)).toEqual(["café", "日本"]);
  });
});

describe("weightedLength", () => {
  it("counts Latin once, CJK and emoji twice, links as 23", () => {
    expect(weightedLength("hello")).toBe(5);
    expect(weightedLength("日本")).toBe(4);
    expect(weightedLength("😀")).toBe(2);
    expect(weightedLength("see https://example.com/a/very/long/path/that/goes/on/and/on")).toBe(4 + 23);
  });

  it("counts every emoji sequence as 2, however many code points it joins", () => {
    const family = "\u{1F468}\u200D\u{1F469}\u200D\u{1F467}\u200D\u{1F466}"; // 7 code points
    expect(weightedLength(family)).toBe(2);
    expect(weightedLength(family.repeat(140))).toBe(280);
    expect(weightedLength("\u{1F44D}\u{1F3FD}")).toBe(2); // skin tone
    expect(weightedLength("\u{1F1E9}\u{1F1EA}")).toBe(2); // a flag
    expect(weightedLength("1\uFE0F\u20E3")).toBe(2); // a keycap
    expect(weightedLength("\u2764\uFE0F")).toBe(2);
    expect(weightedLength("© ™")).toBe(1 + 1 + 2); // text, not emoji: © is in a light range, ™ (U+2122) is not
    expect(weightedLength("hi \u{1F600} https://example.com/x \u{1F600}")).toBe(3 + 2 + 1 + 23 + 1 + 2);
  });

  it("normalises to NFC first (e + combining accent is one character)", () => {
    expect(weightedLength("e\u0301")).toBe(1);
  });
});
