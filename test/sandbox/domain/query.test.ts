import { describe, expect, it } from "vitest";
import { matches, parseQuery, QueryError, tokenize, type PostFacts } from "../../../src/sandbox/domain/query.ts";

function facts(text: string, extra: Partial<PostFacts> = {}): PostFacts {
  return {
    id: "100",
    tokens: tokenize(text),
    authorId: "1",
    authorUsername: "alice",
    authorVerified: false,
    conversationId: "100",
    lang: "en",
    mentions: [...text.matchAll(/@(\w+)/g)].map((m) => m[1]!.toLowerCase()),
    hashtags: [...text.matchAll(/#(\w+)/g)].map((m) => m[1]!.toLowerCase()),
    cashtags: [],
    urls: [...text.matchAll(/https?:\/\/\S+/g)].map((m) => m[0]),
    ...extra,
  };
}

const m = (q: string, text: string, extra: Partial<PostFacts> = {}) => matches(parseQuery(q), facts(text, extra));

describe("query language", () => {
  it("matches keywords case-insensitively as whole tokens", () => {
    expect(m("cat", "My CAT is here")).toBe(true);
    expect(m("cat", "cats everywhere")).toBe(false);
    expect(m("cat", "love #cat")).toBe(true);
  });

  it("matches exact phrases as consecutive tokens", () => {
    expect(m('"happy cat"', "a Happy cat!")).toBe(true);
    expect(m('"happy cat"', "a cat, happy")).toBe(false);
  });

  it("ANDs by default, ORs with OR (AND binding tighter), groups with parentheses", () => {
    expect(m("cat dog", "cat and dog")).toBe(true);
    expect(m("cat dog", "cat only")).toBe(false);
    expect(m("cat OR dog", "dog only")).toBe(true);
    expect(m("cat OR dog bird", "dog only")).toBe(false);
    expect(m("cat OR dog bird", "cat only")).toBe(true);
    expect(m("(cat OR dog) bird", "cat only")).toBe(false);
    expect(m("(cat OR dog) bird", "dog bird")).toBe(true);
  });

  it("an OR of many @name, to:, from:, #tag and $TAG operands (packed mention rules) matches a post naming any one of them, and nothing else", () => {
    const names = Array.from({ length: 40 }, (_, i) => `u${String(i).padStart(5, "0")}`);
    const packed = parseQuery(`(${names.map((n) => `@${n} OR to:${n}`).join(" OR ")}) -is:repost`);
    expect(matches(packed, facts("hello @U00039"))).toBe(true);
    expect(matches(packed, facts("hello @u00000 and @someone"))).toBe(true);
    expect(
      matches(packed, facts("a reply", { inReplyToUsername: "u00007", inReplyToUserId: "7", inReplyToPostId: "9" })),
    ).toBe(true);
    expect(
      matches(
        packed,
        facts("hello @u00040 u00001", { inReplyToUsername: "bob", inReplyToUserId: "2", inReplyToPostId: "9" }),
      ),
    ).toBe(false);
    expect(matches(packed, facts("RT @u00001", { repostOfId: "5" }))).toBe(false);
    // Mixed with other operands, each still counts.
    const mixed = parseQuery("@ann OR #cats OR $ACME OR from:7 OR (dog bird) OR (owl -fish)");
    expect(matches(mixed, facts("#CATS!"))).toBe(true);
    expect(matches(mixed, facts("x", { cashtags: ["acme"] }))).toBe(true);
    expect(matches(mixed, facts("x", { authorId: "7" }))).toBe(true);
    expect(matches(mixed, facts("a dog and a bird fish"))).toBe(true);
    expect(matches(mixed, facts("a fish"))).toBe(false);
    expect(matches(mixed, facts("an owl"))).toBe(true);
    expect(matches(mixed, facts("an owl and a fish"))).toBe(false);
    expect(matches(mixed, facts("an owl, a fish and @Ann"))).toBe(true);
  });

  it("negates terms and groups", () => {
    expect(m("cat -dog", "cat and dog")).toBe(false);
    expect(m("cat -(dog OR bird)", "cat bird")).toBe(false);
    expect(m("cat -(dog OR bird)", "cat fish")).toBe(true);
  });

  it("knows from:, to:, @, #, conversation_id:, lang: and the is:/has: flags", () => {
    expect(m("from:Alice", "x")).toBe(true);
    expect(m("from:1", "x")).toBe(true);
    expect(m("from:bob", "x")).toBe(false);
    expect(m("to:bob", "x", { inReplyToUsername: "bob", inReplyToUserId: "2", inReplyToPostId: "9" })).toBe(true);
    expect(m("@Bob", "hi @bob")).toBe(true);
    expect(m("#Cats", "i love #cats")).toBe(true);
    expect(m("#cat", "i love #cats")).toBe(false);
    expect(m("conversation_id:100", "x")).toBe(true);
    expect(m("hi lang:en", "hi")).toBe(true);
    expect(m("hi lang:de", "hi")).toBe(false);
    expect(m("hi is:reply", "hi")).toBe(false);
    expect(m("hi -is:reply", "hi")).toBe(true);
    expect(m("hi is:repost", "hi", { repostOfId: "5" })).toBe(true);
    expect(m("hi is:quote", "hi", { quotePostId: "5" })).toBe(true);
    expect(m("hi has:mentions", "hi @x")).toBe(true);
    expect(m("hi has:hashtags", "hi")).toBe(false);
    expect(m("hi has:links", "hi https://a.example")).toBe(true);
  });

  it("refuses invalid queries, saying where", () => {
    const bad: Array<[string, RegExp, number]> = [
      ["(cat", /never closed/, 1],
      ["cat)", /closes no/, 4],
      ["cat OR", /right/, 5],
      ["OR cat", /left/, 1],
      ['"cat', /Unterminated/, 1],
      ["foo:bar", /invalid operator 'foo:'/, 1],
      ["cat is:dog", /invalid field 'is:dog'/, 5],
      ["-cat", /positive/, 1],
      ["is:reply", /positive/, 1],
      ["cat ()", /Empty parentheses/, 5],
      ["  ", /empty/, 1],
    ];
    for (const [q, re, pos] of bad) {
      let err: unknown;
      try {
        parseQuery(q);
      } catch (e) {
        err = e;
      }
      expect(err, q).toBeInstanceOf(QueryError);
      expect((err as QueryError).message, q).toMatch(re);
      expect((err as QueryError).position, q).toBe(pos);
    }
  });

  it("enforces the length limit", () => {
    expect(() => parseQuery("a".repeat(13), 12)).toThrow(/longer than 12/);
  });
});
