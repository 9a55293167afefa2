import { describe, expect, it } from "vitest";
import { createClassifier } from "../../../src/moderation/index.ts";
import { content, seededRandom } from "../../../src/sandbox/crowd/index.ts";

const {
  ABUSIVE_OPENINGS,
  ABUSIVE_REPLIES,
  BENIGN_REPLIES,
  CHATTER,
  CITIES,
  ENDINGS,
  MENTIONS,
  REPLY_OPENINGS,
  TOPIC_POSTS,
  personas,
  topicOf,
} = content;

const classifier = createClassifier();
const fill = (t: string, slots: Record<string, string>) => t.replace(/\{(\w+)\}/g, (_, k: string) => slots[k]!);

describe("the crowd's texts", () => {
  it("has every benign reply pass the moderation classifier, with every opening and ending", () => {
    const flagged: string[] = [];
    for (const o of REPLY_OPENINGS)
      for (const b of BENIGN_REPLIES)
        for (const e of ENDINGS) {
          const text = `@host ${o}${b}${e}`;
          if (classifier.classify(text).abusive) flagged.push(text);
        }
    expect(flagged).toEqual([]);
  });

  it("has every abusive reply, plain or obfuscated, caught by the classifier", () => {
    const missed: string[] = [];
    for (const o of ABUSIVE_OPENINGS)
      for (const b of ABUSIVE_REPLIES)
        for (const e of ENDINGS) {
          const text = `@host ${o}${b}${e}`;
          if (!classifier.classify(text).abusive) missed.push(text);
        }
    expect(missed).toEqual([]);
    // Both kinds are there: some need de-obfuscation to be caught.
    expect(ABUSIVE_REPLIES.some((t) => /[0-9*]|(\w ){2}\w/.test(t))).toBe(true);
  });

  it("writes mentions, topic posts and chatter on which no rule fires at all", () => {
    const fired: string[] = [];
    for (const t of [...MENTIONS, ...TOPIC_POSTS, ...CHATTER])
      for (const city of CITIES)
        for (const e of ENDINGS) {
          const text = fill(t, { bot: "greeter", city, topic: "#postbot" }) + e;
          if (classifier.classify(text).rules.length > 0) fired.push(text);
        }
    expect(fired).toEqual([]);
  });

  it("has people with valid, distinct usernames, however many are asked for", () => {
    const people = personas(40);
    expect(people).toHaveLength(40);
    expect(new Set(people.map((p) => p.username.toLowerCase())).size).toBe(40);
    for (const p of people) {
      expect(p.username).toMatch(/^[A-Za-z0-9_]{1,15}$/);
      expect(p.name.length).toBeGreaterThan(0);
      expect(p.bio.length).toBeLessThanOrEqual(160);
    }
  });

  it("derives topics from stream rules: keywords, phrases and tags, one branch of an OR, nothing negated", () => {
    const rng = seededRandom(1);
    expect(topicOf("#postbot -is:repost", rng)).toBe("#postbot");
    expect(topicOf('"bot framework" -spam', rng)).toBe("bot framework");
    expect(topicOf("@greeter $POST", rng)).toBe("@greeter $post");
    const branches = new Set(Array.from({ length: 40 }, () => topicOf("(cats OR #dogs) pets", rng)));
    expect(branches).toEqual(new Set(["cats pets", "#dogs pets"]));
    // An OR never picks a branch that cannot be written.
    expect(new Set(Array.from({ length: 20 }, () => topicOf("from:alice OR #news", rng)))).toEqual(new Set(["#news"]));
    expect(topicOf("from:alice is:reply", rng)).toBeUndefined();
    expect(topicOf("(unbalanced", rng)).toBeUndefined();
  });
});
