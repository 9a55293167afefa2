/**
 * Proves that a change to the classifier's code or data changes no verdict: classifies every
 * labelled text (all batches, shipped and held out) with the
 * rules alone and with the shipped model, and prints a digest of the verdicts (`abusive`,
 * `score` and each hit's `rule`, `match` and `weight`, in order), per batch role and in all.
 * Run it before and after a refactor (`npx tsx scripts/moderation-verdicts.ts`): equal
 * digests mean equal verdicts on every text.
 *
 * Prints figures only, never a text: held-out batches are not to be read (see
 * moderation-batches.ts). With `--save <file>` it also writes one digest per text (no text);
 * with `--compare <file>` it names the batch and line of each text whose verdict differs
 * from the saved one, so a difference can be found without printing a held-out text.
 */
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { createClassifier, type Verdict } from "../src/moderation/index.ts";
import { loadBatches, type Role } from "./moderation-batches.ts";

/** The parts of a verdict that predate rule-pattern ids, so digests compare across that change. */
const canonical = (v: Verdict): string =>
  JSON.stringify({
    abusive: v.abusive,
    score: v.score,
    rules: v.rules.map(({ rule, match, weight }) => ({ rule, match, weight })),
  });

const sha = (text: string) => createHash("sha256").update(text).digest("hex").slice(0, 16);

export function main(args: readonly string[]): void {
  const flag = (name: string) => {
    const at = args.indexOf(name);
    if (at < 0) return undefined;
    const value = args[at + 1];
    if (value === undefined) throw new Error(`${name} needs a file name after it`);
    return value;
  };
  const save = flag("--save");
  const compare = flag("--compare");
  const rulesAlone = createClassifier({}, null);
  const withModel = createClassifier();
  const perText: Record<string, string> = {};
  const byRole = new Map<
    Role | "all",
    { texts: number; rules: string[]; model: string[]; abusive: [number, number] }
  >();
  const add = (role: Role | "all", rules: Verdict, model: Verdict) => {
    const entry = byRole.get(role) ?? { texts: 0, rules: [], model: [], abusive: [0, 0] };
    entry.texts++;
    entry.rules.push(canonical(rules));
    entry.model.push(canonical(model));
    if (rules.abusive) entry.abusive[0]++;
    if (model.abusive) entry.abusive[1]++;
    byRole.set(role, entry);
  };
  for (const batch of loadBatches()) {
    for (const row of batch.rows) {
      const rules = rulesAlone.classify(row.text);
      const model = withModel.classify(row.text);
      add(batch.role, rules, model);
      add("all", rules, model);
      perText[`${batch.file}:${row.line}`] = sha(canonical(rules) + "\n" + canonical(model));
    }
  }
  for (const [role, e] of [...byRole].sort(([a], [b]) => (a === "all" ? 1 : b === "all" ? -1 : 0))) {
    console.log(
      `${role.padEnd(8)} ${String(e.texts).padStart(5)} texts: rules alone ${sha(e.rules.join("\n"))} ` +
        `(${e.abusive[0]} abusive), with the model ${sha(e.model.join("\n"))} (${e.abusive[1]} abusive)`,
    );
  }
  if (save) {
    writeFileSync(save, JSON.stringify(perText, null, 1) + "\n");
    console.log(`wrote ${Object.keys(perText).length} digests to ${save}`);
  }
  if (compare) {
    const saved = JSON.parse(readFileSync(compare, "utf8")) as Record<string, string>;
    const differ = Object.keys({ ...saved, ...perText }).filter((k) => saved[k] !== perText[k]);
    console.log(
      differ.length === 0
        ? `every verdict equals ${compare}'s`
        : `${differ.length} verdicts differ from ${compare}'s: ${differ.join(", ")}`,
    );
    if (differ.length > 0) process.exitCode = 1;
  }
}

if (import.meta.url === `file://${process.argv[1]}`) main(process.argv.slice(2));
