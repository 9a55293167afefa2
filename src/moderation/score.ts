/**
 * How rule hits become a score. The model is deliberately small enough to reason about
 * from a YAML file:
 *
 * | kind         | weight | alone at the default threshold 0.5 |
 * |--------------|--------|------------------------------------|
 * | `block`      | 1.00   | abusive                            |
 * | `threat`     | 0.95   | abusive                            |
 * | `slur`       | 0.90   | abusive                            |
 * | `insult`     | 0.70   | abusive                            |
 * | `harassment` | 0.70   | abusive                            |
 * | `model`      | 0.70   | abusive                            |
 * | `profanity`  | 0.30   | not abusive (swearing for emphasis) |
 *
 * Within a kind only the strongest hit counts (ten swear words are still swearing); across
 * kinds the weights combine as independent evidence, `1 - Π(1 - w)`, so an insult with a
 * swear word scores 0.79 and a threat with a slur 0.995. A threshold of 0.3 hides any
 * swearing; 0.75 hides only insults that swear, threats, slurs and blocked terms.
 */
import type { RuleHit, RuleKind } from "./types.ts";

/** The weight of each kind of rule; see the module comment for what they mean together. */
export const WEIGHTS: Readonly<Record<RuleKind, number>> = {
  block: 1,
  threat: 0.95,
  slur: 0.9,
  insult: 0.7,
  harassment: 0.7,
  model: 0.7,
  profanity: 0.3,
};

/** The default `threshold`: any one non-profanity rule is enough, profanity alone is not. */
export const DEFAULT_THRESHOLD = 0.5;

/** The kind of a rule id (`"threat:kys"` → `"threat"`). */
export function kindOf(rule: string): RuleKind {
  return rule.slice(0, rule.indexOf(":")) as RuleKind;
}

/** Combines hits into a score in 0..1, rounded to three decimals so logs stay readable. */
export function score(hits: readonly RuleHit[]): number {
  const strongest = new Map<RuleKind, number>();
  for (const hit of hits) {
    const kind = kindOf(hit.rule);
    strongest.set(kind, Math.max(strongest.get(kind) ?? 0, hit.weight));
  }
  let miss = 1;
  for (const weight of strongest.values()) miss *= 1 - weight;
  return Math.round((1 - miss) * 1000) / 1000;
}
