import { isDeepStrictEqual } from "node:util";
import { describe, expect, it } from "vitest";
import { englishDataset, RegExpMatcher } from "obscenity";
import { normalize } from "../../src/moderation/normalize.ts";
import { phraseHits } from "../../src/moderation/phrase-hits.ts";
import { collapseRepeats } from "../../src/moderation/profanity.ts";
import { hasRequired, RequiredIndex, requiredText } from "../../src/moderation/required-text.ts";
import { compiledRules } from "../../src/moderation/rules/index.ts";
import { createTermMatcher } from "../../src/moderation/term-matcher.ts";
import { fullLength, loadBatches } from "../../scripts/moderation-batches.ts";

/**
 * The classifier's two fast paths give what the plain ones give, on every labelled text
 * (all batches, and 280-character runs of them) and on disguised text: a phrase rule skipped
 * for lacking the words it needs (`required-text.ts`) would not have matched, and the term
 * matcher (`term-matcher.ts`) finds what obscenity's own matcher finds. Together they are
 * everything that changed in how a verdict is reached, so verdicts and scores are the same.
 *
 * What the paths are compared on is worked out once per file (each text normalized once, the
 * plain path's needs checked once), and a pair of results is handed to `expect` only when they
 * differ (`same`): thousands of texts, compared as strictly as before, for a few seconds less CPU.
 */
const short = loadBatches().flatMap((b) => b.rows.map((r) => r.text));
const runs = fullLength(short);

/** Disguises the prefilter must see through: case, spacing, leetspeak, masks, look-alikes, repeats, emoji. */
const DISGUISED = [
  "KILL YOURSELF",
  "k.i.l.l y.o.u.r.s.e.l.f",
  "k i l l   y o u r s e l f",
  "killyourself",
  "k1ll y0urs3lf",
  "ｋｉｌｌ ｙｏｕｒｓｅｌｆ",
  "kiiiiill yourselllf 💀",
  "I kn0w wh3re u l1ve",
  "i KNOW where YOU live!!!",
  "f**k you",
  "F U C K   Y O U",
  "you're a w0rthle$$ m0r0n",
  "you absolute ＩＤＩＯＴ",
  "yoooou stuuupid cuuunt",
  "@Scunthorpe_FC you ugly b!tch 😂",
  "go d1e in a f1re",
  "hope you get hit by a bus",
  "send nudes babe",
  "ur a fμcking loser",
];
const texts = [...short, ...runs, ...DISGUISED];

/** Computes `make()` on first use, once per file. */
const once = <T>(make: () => T): (() => T) => {
  let value: T | undefined;
  return () => (value ??= make());
};

/** Every text normalized, in the order of `texts`. */
const normalized = once(() => texts.map((text) => normalize(text)));

/** The plain path's answer, by text and rule: does the collapsed text have what the rule needs (each rule's own search)? */
const plainNeeds = once(() => {
  const rules = compiledRules();
  return normalized().map((n) => rules.map((rule) => hasRequired(n.collapsed.text, rule.needs)));
});

/**
 * `expect(actual, what).toEqual(expected)`, called only when the two are not deeply strictly
 * equal (strict equality implies toEqual's): the same verdict and failure message, without
 * `expect`'s cost on the thousands of pairs that are equal.
 */
function same(actual: unknown, expected: unknown, what: string): void {
  if (!isDeepStrictEqual(actual, expected)) expect(actual, what).toEqual(expected);
}

describe("required text (the phrase rules' prefilter)", () => {
  it("lists what every match must contain, and nothing from zero-width or optional parts", () => {
    expect(requiredText("kil[^a-z0-9]*yourself")).toEqual([["yourself"], ["kil"]]);
    expect(requiredText("(?<![a-z0-9])(?:know where)(?=[^a-z0-9]*you)(?![a-z0-9])")).toEqual([["know where"]]);
    expect(requiredText("(?:id(?:iot|iots)|mor(?:on)?)s?")).toEqual([["mor", "idiot"]]);
    expect(requiredText("(?:you)?[a-z]+")).toEqual([]);
    expect(requiredText("a(?:b|c*)d")).toEqual([["a"], ["d"]]);
  });

  it("requires nothing of an expression it cannot read, so that expression always runs", () => {
    expect(requiredText("(a)\\1")).toEqual([]);
    expect(requiredText("abc)")).toEqual([]);
  });

  it("gives every phrase rule a list, and spares most rules on most texts", { timeout: 60_000 }, () => {
    const rules = compiledRules();
    expect(rules.filter((r) => r.needs.length === 0).map((r) => r.id)).toEqual([]);
    let skipped = 0;
    for (const needs of plainNeeds()) for (const has of needs) if (!has) skipped++;
    expect(skipped).toBeGreaterThan((texts.length * rules.length) / 2);
  });

  it("checks every rule's needs in one pass as each rule's own search of the text does", { timeout: 60_000 }, () => {
    const rules = compiledRules();
    const index = new RequiredIndex(rules.map((r) => r.needs));
    const differ: string[] = [];
    const plain = plainNeeds();
    normalized().forEach(({ collapsed }, t) => {
      index.scan(collapsed.text);
      rules.forEach((rule, r) => {
        if (index.satisfied(r) !== plain[t]![r]) differ.push(`${rule.id} on ${collapsed.text}`);
      });
    });
    expect(differ).toEqual([]);
  });

  it("finds strings inside one another, overlapping, at the ends, and beside characters none has", () => {
    const needs = [[["he"], ["hers"]], [["she", "xyz"]], [["ushers"]], [["é"]], [["a&e"], ["s"]], []];
    const index = new RequiredIndex(needs);
    const satisfied = (text: string) => {
      index.scan(text);
      return needs.map((_, r) => index.satisfied(r));
    };
    expect(satisfied("ushers")).toEqual([true, true, true, false, false, true]);
    expect(satisfied("he\u00e9 🙂 a&e's")).toEqual([false, false, false, true, true, true]);
    expect(satisfied("")).toEqual([false, false, false, false, false, true]);
    for (const text of ["hers", "she", "xyz", "a&es", "ushe", "ushers"]) {
      index.scan(text);
      needs.forEach((required, r) => expect(index.satisfied(r), `${r} in ${text}`).toBe(hasRequired(text, required)));
    }
  });

  it("finds the same phrase hits as every rule run on every text, disguised text included", { timeout: 60_000 }, () => {
    const rules = compiledRules();
    const plain = rules.map((r) => ({ ...r, needs: [] }));
    normalized().forEach((n, t) => same(phraseHits(rules, n), phraseHits(plain, n), texts[t]!));
    const fired = DISGUISED.filter((t) => phraseHits(compiledRules(), normalize(t)).length > 0);
    expect(fired.length).toBeGreaterThan(DISGUISED.length / 2);
    expect(phraseHits(compiledRules(), normalize("ｋｉｌｌ ｙｏｕｒｓｅｌｆ")).map((h) => h.rule)).toContain(
      "threat:kill-yourself",
    );
  });
});

describe("term matcher (obscenity's terms, compiled once)", () => {
  const { blacklistedTerms } = englishDataset.build();
  const ours = createTermMatcher(blacklistedTerms, collapseRepeats());
  const theirs = new RegExpMatcher({ blacklistedTerms, blacklistMatcherTransformers: [collapseRepeats()] });

  it("finds what obscenity's RegExpMatcher finds, in its order, on folded and raw text", { timeout: 60_000 }, () => {
    let found = 0;
    normalized().forEach((n, t) => {
      for (const input of [n.folded.text, texts[t]!]) {
        const matches = ours.matches(input);
        same(matches, theirs.getAllMatches(input, true), input);
        found += matches.length;
      }
    });
    expect(found).toBeGreaterThan(1000);
  });

  it("keeps obscenity's indices across surrogate pairs and repeated letters", () => {
    for (const input of ["💩 fuuuuck 💩", "𝒻 shiiit𝒻", "ass💀", "a$$ sssshit"]) {
      expect(ours.matches(input), input).toEqual(theirs.getAllMatches(input, true));
    }
    expect(ours.matches("💩 fuuuuck 💩").length).toBeGreaterThan(0);
  });
});
