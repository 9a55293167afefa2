/**
 * The author's history and the thread (src/moderation/evidence): near-identical texts, the
 * author's hides within 30 days (kept in the bot's state), pile-ons within minutes, and how
 * each moves the cut.
 */
import { describe, expect, it } from "vitest";
import {
  AuthorHistory,
  cutFor,
  HISTORY_WINDOW_MS,
  mutualMatters,
  nearIdentical,
  PileOns,
  signatureOf,
  type KeyValue,
} from "../../src/moderation/index.ts";

/** A bot store in memory, JSON-copied as the state store does. */
function memoryKv(): KeyValue & { data: Map<string, string> } {
  const data = new Map<string, string>();
  return {
    data,
    get: <T>(k: string) => (data.has(k) ? (JSON.parse(data.get(k)!) as T) : undefined),
    set: (k, v) => void data.set(k, JSON.stringify(v)),
    delete: (k) => void data.delete(k),
  };
}

const DAY = 86_400_000;

describe("near-identical texts", () => {
  it("sees through handles, leetspeak, case, text-speak, punctuation and emoji, and tells different insults apart", () => {
    const s = signatureOf;
    expect(nearIdentical(s("@bot you are a clown 🤡"), s("@host @bot u are a cl0wn!!"))).toBe(true);
    expect(nearIdentical(s("@bot you are a clown 🤡"), s("@host @bot U R A CLOWN!!"))).toBe(true);
    expect(nearIdentical(s("@bot you're a clown"), s("youre a clown"))).toBe(true);
    expect(nearIdentical(s("go back to where you came from"), s("GO BACK to where you came from."))).toBe(true);
    expect(nearIdentical(s("you are a clown"), s("your dog is lovely"))).toBe(false);
    expect(nearIdentical(s(""), s(""))).toBe(false);
  });
});

describe("the author's history", () => {
  it("counts the bot's hides of an author within 30 days, across a restart (it is kept in the bot's state)", () => {
    const kv = memoryKv();
    const t0 = Date.parse("2026-03-02T12:00:00Z");
    new AuthorHistory(kv).hid("u1", t0);
    new AuthorHistory(kv).hid("u1", t0 + DAY);
    const later = new AuthorHistory(kv); // as after a restart
    expect(later.of("u1", t0 + 2 * DAY)).toEqual({ hides: 2, last: t0 + DAY });
    expect(later.of("u2", t0 + 2 * DAY)).toBeUndefined();
    expect(later.of("u1", t0 + DAY + HISTORY_WINDOW_MS)).toBeUndefined();
  });
});

describe("pile-ons", () => {
  it("are near-identical replies from three accounts to one post within 10 minutes", () => {
    const p = new PileOns();
    const t = 1_000_000;
    const s = signatureOf("@bot ratio + nobody asked + L");
    expect(p.observe("post1", "a", s, t)).toBeUndefined();
    // The same account again is not a second account.
    expect(p.observe("post1", "a", s, t + 1_000)).toBeUndefined();
    expect(p.observe("post1", "b", signatureOf("@bot ratio + nobody asked + L!!"), t + 2_000)).toBeUndefined();
    expect(p.observe("post1", "c", s, t + 60_000)).toEqual({ accounts: 3 });
    // Another post, or the same words long after, is not part of it.
    expect(p.observe("post2", "d", s, t + 61_000)).toBeUndefined();
    expect(p.observe("post1", "e", s, t + 60_000 + 11 * 60_000)).toBeUndefined();
  });
});

describe("the cut", () => {
  it("moves down for a history or a pile-on, up for a mutual follow, never below swearing alone, and says why", () => {
    expect(cutFor(0.5, {})).toEqual({ cut: 0.5, reasons: [] });
    expect(cutFor(0.5, { history: { hides: 2, last: 0 } })).toEqual({
      cut: 0.35,
      reasons: ["the bot hid 2 replies of this author in the last 30 days"],
    });
    expect(cutFor(0.5, { history: { hides: 1, last: 0 }, pileOn: { accounts: 4 } }).cut).toBe(0.31);
    expect(cutFor(0.5, { mutual: true })).toEqual({ cut: 0.75, reasons: ["the author and the bot follow each other"] });
    // A bot that hides any swearing (threshold 0.3) keeps its own threshold as the floor.
    expect(cutFor(0.3, { history: { hides: 1, last: 0 } }).cut).toBe(0.3);
  });

  it("asks about a mutual follow only when it could change the verdict", () => {
    expect(mutualMatters(0.7, 0.5, {})).toBe(true); // one insult: hidden, unless they follow each other
    expect(mutualMatters(0.95, 0.5, {})).toBe(false); // a threat is hidden anyway
    expect(mutualMatters(0.3, 0.5, {})).toBe(false); // swearing is kept anyway
  });
});
