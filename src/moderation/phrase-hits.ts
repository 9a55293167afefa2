/**
 * The phrase rules' hits in a text: each rule's expression run over the collapsed text
 * (`normalize.ts`), where the text has what the expression needs (`required-text.ts`), each
 * match traced back to the words of the original that it covers.
 */
import { originalSpan, type Normalized } from "./normalize.ts";
import { RequiredIndex } from "./required-text.ts";
import { insultWords, type CompiledRule } from "./rules/index.ts";
import { WEIGHTS } from "./score.ts";
import type { PlacedHit } from "./types.ts";

/** Each list of rules' needs, indexed once (the built-in rules are one list for every bot). */
const indexes = new WeakMap<readonly CompiledRule[], RequiredIndex>();
function indexOf(rules: readonly CompiledRule[]): RequiredIndex {
  let index = indexes.get(rules);
  if (index === undefined) indexes.set(rules, (index = new RequiredIndex(rules.map((r) => r.needs))));
  return index;
}

/**
 * Every hit of the rules in a text, rule by rule in their order, each rule's hits in the
 * order they occur. A hit of a rule of the family `<word>` is named after the insult its
 * `(?<word>…)` group caught.
 */
export function phraseHits(rules: readonly CompiledRule[], text: Normalized): PlacedHit[] {
  const hits: PlacedHit[] = [];
  const collapsed = text.collapsed;
  const required = indexOf(rules);
  required.scan(collapsed.text);
  for (let r = 0; r < rules.length; r++) {
    // Most rules need words most replies do not have (`required-text.ts`): no search then.
    if (!required.satisfied(r)) continue;
    const { id, kind, family, namedByWord, regex } = rules[r]!;
    regex.lastIndex = 0;
    for (let m = regex.exec(collapsed.text); m; m = regex.exec(collapsed.text)) {
      if (m[0].length === 0) {
        regex.lastIndex++;
        continue;
      }
      let rule = family;
      if (namedByWord) {
        // `word2` catches a belittling phrase ("sad little man"), `word3` a comparison
        // ("thick as mince"): both named for what they do rather than their words.
        const g = m.groups ?? {};
        const caught = (
          g.word ?? (g.word2 !== undefined ? "belittling" : g.word3 !== undefined ? "dumb-as" : "")
        ).replace(/[^a-z0-9]+/g, " ");
        rule = family + (insultWords().get(caught) ?? caught);
      }
      const span = originalSpan(collapsed, m.index, m.index + m[0].length);
      hits.push({
        rule,
        pattern: id,
        match: text.original.slice(span.start, span.end),
        weight: WEIGHTS[kind],
        ...span,
      });
    }
  }
  return hits;
}
