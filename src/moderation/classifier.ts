/**
 * The abuse classifier: profanity and slurs (obscenity), phrase rules for threats,
 * harassment and aimed insults, name-calling about a third person, the trained model
 * (`model.ts`) where no rule found abuse, and the bot's own block and allow lists, scored
 * by `score.ts`. Offline, synchronous and
 * pure, so the `moderate` plugin can run it on every reply without a network round trip and
 * tests get the same verdict every time.
 *
 * What "abusive" means here, for hiding replies to a bot's posts: a reply that threatens
 * or wishes harm, incites self-harm or threatens to expose someone's details; harasses or
 * insults a person (the bot, its owner, another replier), with or without swear words;
 * uses a slur; or contains a term the bot blocks. Swearing for emphasis or about things
 * ("this is fucking awesome", "the traffic was shit"), criticism of a post or an idea,
 * insults said about absent third parties ("the referee is an idiot"; name-calling them,
 * "this twat thinks ...", is insult: `third-person.ts`), abuse quoted to report it ("he
 * told me to 'kys'"), figures of speech ("I'm dying of laughter", "this game kills it")
 * and look-alike words ("Scunthorpe", "cocktail") are not: hiding them would silence the
 * bot's friendliest audience.
 */
import { normalize, type Normalized } from "./normalize.ts";
import { createProfanityMatcher, type ProfanityMatcher } from "./profanity.ts";
import { compiledRules, type CompiledRule } from "./rules/index.ts";
import { phraseHits } from "./phrase-hits.ts";
import { compileAllowList, compileBlockList } from "./lists.ts";
import { reportedQuotes } from "./quotes.ts";
import { aimedInsults } from "./aimed.ts";
import { thirdPersonInsults } from "./third-person.ts";
import { tokenize } from "./insult-tokens.ts";
import { DEFAULT_THRESHOLD, kindOf, score, WEIGHTS } from "./score.ts";
import { ModerationOptionError } from "./option-error.ts";
import { modelText, shippedModel, type AbuseModel } from "./model.ts";
import { assessment } from "./band.ts";
import type { Classifier, ClassifierOptions, PlacedHit, RuleHit, Verdict } from "./types.ts";

// The built-in rules are the same for every bot, so they are compiled once, on first use.
let shared: { profanity: ProfanityMatcher; rules: readonly CompiledRule[] } | undefined;
function builtIns() {
  shared ??= { profanity: createProfanityMatcher(), rules: compiledRules() };
  return shared;
}

/**
 * The phrase rules' hits plus the aimed-insult and third-person detectors', except where an
 * earlier one already caught an insult in the same words (one insult, one hit: "you
 * worthless piece of shit" is `insult:piece of shit`, not that and `insult:piece`).
 */
function withAimed(hits: PlacedHit[], text: Normalized): PlacedHit[] {
  const insults = hits.filter((h) => h.rule.startsWith("insult:"));
  const tokens = tokenize(text.collapsed.text);
  for (const found of [...aimedInsults(text, tokens), ...thirdPersonInsults(text, tokens)]) {
    if (!insults.some((h) => h.start < found.end && found.start < h.end)) insults.push(found);
  }
  const added = insults.filter((h) => !hits.includes(h));
  return added.length === 0 ? hits : [...hits, ...added];
}

/**
 * Laughter and affection beside an insult ("you idiot 😂😂", "haha you absolute clown, love
 * it", "you muppet, you've done it again 😂") mark banter between people who like each
 * other. "lol" and "lmao" are not counted: they are as often a sneer.
 */
const BANTER =
  /[\u{1F602}\u{1F923}\u{1F606}\u{1F639}\u{1F480}\u{2764}\u{2665}\u{1F618}\u{1F970}\u{1F60D}]|<3|\b(?:a?ha(?:ha)+h?|he(?:he)+|ily|love (?:you|ya|u|it|this|that|him|her))\b/iu;

/**
 * With a banter cue, an insult counts half ({@link WEIGHTS}.insult / 2, below the default
 * threshold alone), so banter passes while an insult with swearing ("you fucking idiot
 * 😂") or with a threat, slur or harassment still scores as abuse.
 */
function banter(text: string, hits: PlacedHit[]): PlacedHit[] {
  if (!hits.some((h) => h.rule.startsWith("insult:")) || !BANTER.test(text)) return hits;
  return hits.map((h) => (h.rule.startsWith("insult:") ? { ...h, weight: WEIGHTS.insult / 2 } : h));
}

/**
 * One hit per rule and stretch of text: several patterns of a rule may catch the same words
 * ("what a bunch of idiots" and its "bunch of idiots"), so a hit inside another hit of the
 * same rule is dropped.
 */
function dedupe(hits: PlacedHit[]): PlacedHit[] {
  const kept: PlacedHit[] = [];
  for (const hit of [...hits].sort((a, b) => a.start - b.start || b.end - a.end)) {
    if (kept.some((k) => k.rule === hit.rule && k.start <= hit.start && hit.end <= k.end)) continue;
    kept.push(hit);
  }
  return kept;
}

function checkThreshold(threshold: unknown): number {
  if (threshold === undefined) return DEFAULT_THRESHOLD;
  if (typeof threshold !== "number" || !Number.isFinite(threshold) || threshold <= 0 || threshold > 1) {
    throw new ModerationOptionError(
      "threshold",
      undefined,
      `must be a number above 0 and at most 1 (got ${JSON.stringify(threshold)}); ` +
        `0.5, the default, hides threats, slurs, insults and harassment but not swearing alone`,
    );
  }
  return threshold;
}

/**
 * Whether the model is asked: only where no rule but swearing fired. Where a rule found a
 * threat, slur, insult, harassment or blocked term, that rule already says what is wrong,
 * with the words that fired it; asking the model too would only stack a second hit on the
 * same words and change what a bot's `threshold` means. So the model stands in for a rule
 * where none fired, and costs nothing on the replies the rules already caught.
 */
export function modelAsked(hits: readonly RuleHit[]): boolean {
  return hits.every((hit) => kindOf(hit.rule) === "profanity");
}

/**
 * The model's hit, when its probability reaches its cut: `model:abuse`, with the whole text
 * as the match (the model reads all of it), weighted like an insult or harassment so that
 * at the default threshold the model alone hides a reply, as any one rule does.
 */
function modelHit(model: AbuseModel, text: Normalized, probability: number): PlacedHit[] {
  if (probability < model.cut) return [];
  return [{ rule: "model:abuse", match: text.original, weight: WEIGHTS.model, start: 0, end: text.original.length }];
}

/**
 * Creates a classifier for one bot's moderation settings. Bad settings throw a
 * {@link ModerationOptionError} (a `UserError`) that names the option in its message and
 * carries it as data, so the `moderate` plugin reports it at its place in the bot file.
 *
 * @example
 * ```ts
 * const classifier = createClassifier({ block: ["crypto giveaway"], allow: ["Cockburn"], threshold: 0.5 });
 * const verdict = classifier.classify("k y s, loser");
 * // { abusive: true, score: 0.985, rules: [
 * //   { rule: "threat:kys", match: "k y s", weight: 0.95 }, { rule: "insult:loser", match: "loser", weight: 0.7 } ] }
 * if (verdict.abusive) log.info({ rule: verdict.rules[0]?.rule }, "hiding reply");
 * ```
 *
 * @param model the trained model to ask beside the rules: the shipped one
 *   (`model-weights.json`) by default; `null` for the rules alone, which the training script
 *   needs to choose the model's cut and tests need to tell what the model adds.
 */
export function createClassifier(
  options: ClassifierOptions = {},
  model: AbuseModel | null = shippedModel(),
): Classifier {
  const threshold = checkThreshold(options.threshold);
  const block = compileBlockList(options.block);
  const allow = compileAllowList(options.allow);
  const { profanity, rules } = builtIns();
  /** `allow: ["model:abuse"]` turns the model off: its probability is then no evidence either. */
  const modelOff =
    allow(normalize(""), [{ rule: "model:abuse", match: "", weight: WEIGHTS.model, start: 0, end: 0 }]).length === 0;
  /** The verdict, and the model's probability when it was asked. */
  const run = (text: string): { verdict: Verdict; probability?: number } => {
    if (typeof text !== "string") throw new TypeError(`classify() takes the text of a post, not ${typeof text}`);
    const normalized = normalize(text);
    const quoted = reportedQuotes(text);
    const ruled = [
      ...profanity.find(normalized.folded, text),
      ...withAimed(phraseHits(rules, normalized), normalized),
      ...block(normalized),
    ].filter((hit) => !quoted.some((q) => q.start <= hit.start && hit.end <= q.end));
    const probability =
      model !== null && modelAsked(ruled)
        ? model.probability(modelText(normalized.original, normalized, quoted))
        : undefined;
    const found = probability === undefined ? ruled : [...ruled, ...modelHit(model!, normalized, probability)];
    const hits = banter(text, dedupe(allow(normalized, found))).sort(
      (a, b) => a.start - b.start || b.weight - a.weight,
    );
    const value = score(hits);
    const verdict: Verdict = {
      abusive: value >= threshold,
      score: value,
      rules: hits.map(({ rule, pattern, match, weight }) =>
        pattern === undefined ? { rule, match, weight } : { rule, pattern, match, weight },
      ),
    };
    return probability === undefined ? { verdict } : { verdict, probability };
  };
  return {
    classify: (text) => run(text).verdict,
    assess(text) {
      const { verdict, probability } = run(text);
      // The model's probability counts only where it was asked and the bot did not turn it off.
      return assessment(verdict, modelOff ? undefined : probability, model?.cut);
    },
  };
}

/**
 * Replies of every kind the classifier meets, for {@link warmClassifier}: plain ones (which
 * the model reads), ones with a rule's words (insults, threats, profanity), a mention and
 * a link, so the first burst finds the rules' regular expressions compiled, the model's word
 * clusters read and the paths between them optimised.
 */
const WARM_TEXTS: readonly string[] = [
  "@ana thanks! We open at nine and close at six on Sundays.",
  "you are a worthless idiot and nobody would miss you",
  "I know where you live, watch your back",
  "what a damn good ride lol, see https://example.com/ride",
  "Helmets are on the second shelf, next to the blue bikes.",
  "shut up, you pathetic loser. go away",
  "Is the repair shop open tomorrow? My tyre is flat :(",
  "this take is so stupid it hurts, honestly",
];

let warming: Promise<void> | undefined;

/**
 * Classifies a few sample replies with `classifier`, one per turn of the event loop, once per
 * process (later calls return the first one's promise). A fresh process otherwise pays the
 * classifier's first uses, about 100 ms of compiling (the rules' regular expressions are
 * compiled on their first run, the model's clusters read on its first text), on the first
 * replies it checks: the plugins that check replies (`moderate`, `llm-reply`) call it when
 * set up, so it runs while the process starts and waits for the service, one text at a
 * time, never holding anything else back for longer than one text.
 */
export function warmClassifier(classifier: Pick<Classifier, "classify">): Promise<void> {
  warming ??= (async () => {
    for (const text of WARM_TEXTS) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      classifier.classify(text);
    }
  })();
  return warming;
}
