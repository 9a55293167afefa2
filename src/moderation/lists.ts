/**
 * A bot's own `block` and `allow` lists. Both are matched like the built-in phrases
 * (whole words, through the same de-obfuscation), so a bot owner writes a term once and
 * its leetspeak and spaced-out spellings follow.
 */
import { ModerationOptionError } from "./option-error.ts";
import { normalize, originalSpan, type Normalized } from "./normalize.ts";
import { compileLiteral } from "./pattern.ts";
import { phraseRuleIds } from "./rules/index.ts";
import { kindOf, WEIGHTS } from "./score.ts";
import type { PlacedHit, RuleKind } from "./types.ts";

/** Finds every occurrence of one list term in a text, as spans of the original. */
type Finder = (text: Normalized) => Array<{ start: number; end: number }>;

function finderFor(term: string): Finder {
  const collapsed = normalize(term).collapsed.text;
  if (/[a-z0-9]/.test(collapsed)) {
    const regex = compileLiteral(collapsed);
    return (text) => {
      const spans: Array<{ start: number; end: number }> = [];
      regex.lastIndex = 0;
      for (let m = regex.exec(text.collapsed.text); m; m = regex.exec(text.collapsed.text)) {
        spans.push(originalSpan(text.collapsed, m.index, m.index + m[0].length));
      }
      return spans;
    };
  }
  // No letters or digits (an emoji, "🖕"): nothing to de-obfuscate, match it as written.
  const literal = term.trim().toLowerCase();
  return (text) => {
    const spans: Array<{ start: number; end: number }> = [];
    const haystack = text.original.toLowerCase();
    for (let at = haystack.indexOf(literal); at >= 0; at = haystack.indexOf(literal, at + literal.length)) {
      spans.push({ start: at, end: at + literal.length });
    }
    return spans;
  };
}

const KINDS: readonly RuleKind[] = ["threat", "slur", "insult", "harassment", "model", "profanity", "block"];

function checkTerms(name: "block" | "allow", terms: unknown): string[] {
  if (terms === undefined) return [];
  if (!Array.isArray(terms)) {
    throw new ModerationOptionError(name, undefined, `must be a list of words or phrases (got ${typeof terms})`);
  }
  return terms.map((term, i) => {
    if (typeof term !== "string" || term.trim() === "") {
      throw new ModerationOptionError(
        name,
        i,
        `must be a non-empty word or phrase (got ${JSON.stringify(term)}); remove it or write the term`,
      );
    }
    // An allow entry shaped like a rule id must name a kind of rule, or it would silently
    // allow nothing ("treat:kys" for "threat:kys"); one shaped like a phrase rule's own id
    // must name one ("threat:dox/found-you-details" for "threat:dox/found-your-details").
    const id = /^([a-z]+):[a-z0-9][a-z0-9 ._-]*$/i.exec(term.trim());
    if (name === "allow" && id && !KINDS.includes(id[1]!.toLowerCase() as RuleKind)) {
      throw new ModerationOptionError(
        name,
        i,
        `names a rule of kind "${id[1]}", which does not exist; a rule id starts with ${KINDS.join(", ")} (as in "profanity:damn")`,
      );
    }
    if (name === "allow" && /^(?:threat|harassment|insult):[^\s/]+\/[^\s/]+$/i.test(term.trim())) {
      checkPatternId(term.trim().toLowerCase(), i);
    }
    return term.trim();
  });
}

/** Refuses an allow entry shaped like a phrase rule's id that names none, saying which ids its family has. */
function checkPatternId(entry: string, index: number): void {
  const ids = phraseRuleIds();
  if (ids.has(entry)) return;
  const family = entry.slice(0, entry.indexOf("/"));
  const siblings = [...ids].filter((id) => id.startsWith(`${family}/`));
  throw new ModerationOptionError(
    "allow",
    index,
    siblings.length > 0
      ? `names no pattern of ${family}; its patterns are ${siblings.join(", ")} (or allow "${family}" for all of them)`
      : `names no phrase rule's pattern: a pattern id is kind:family/name, as in "threat:dox/found-your-details" (the ids are in src/moderation/rules/)`,
  );
}

/** The compiled block list: hits for every blocked term in a text. */
export function compileBlockList(terms: unknown): (text: Normalized) => PlacedHit[] {
  const entries = checkTerms("block", terms).map((term) => ({ rule: `block:${term}`, find: finderFor(term) }));
  return (text) =>
    entries.flatMap(({ rule, find }) =>
      find(text).map((span) => ({
        rule,
        match: text.original.slice(span.start, span.end),
        weight: WEIGHTS.block,
        ...span,
      })),
    );
}

/** The compiled allow list: removes the hits it allows from a text's hits. */
export function compileAllowList(terms: unknown): (text: Normalized, hits: PlacedHit[]) => PlacedHit[] {
  const entries = checkTerms("allow", terms);
  if (entries.length === 0) return (_text, hits) => hits;
  const names = new Set(entries.map((t) => t.toLowerCase()));
  const finders = entries.map(finderFor);
  return (text, hits) => {
    const byName = hits.filter((hit) => {
      const rule = hit.rule.toLowerCase();
      return (
        !names.has(rule) &&
        !names.has(rule.slice(kindOf(rule).length + 1)) &&
        (hit.pattern === undefined || !names.has(hit.pattern))
      );
    });
    if (byName.length === 0) return byName;
    const allowed = finders.flatMap((find) => find(text));
    return byName.filter((hit) => !allowed.some((span) => span.start <= hit.start && hit.end <= span.end));
  };
}
