/**
 * The abuse model taught by an operator: trained by `bot moderation train` on the replies
 * postbot ships plus the operator's labels (./labels.ts), and kept in the state store (never
 * in the installed package, which may be read-only), where `bot start` finds it and gives it
 * to every classifier of the process instead of the shipped one.
 *
 * **Weighing the operator's labels.** Against the 7,621 shipped replies and the 1,000
 * made-up harmless texts, a hundred labels counted once each would change little. So each
 * counts as {@link operatorWeight} examples: together the operator's labels weigh about as
 * much as {@link OPERATOR_SHARE} shipped replies when they are few (a hundred labels count 20
 * times each), and once each when there are thousands. Counting is by repeats in each pass
 * (./trainer.ts), so the model learns the operator's texts by ordinary steps.
 *
 * **The cut** is the shipped model's (chosen by cross-validation for the shipped weights):
 * the operator's labels move the model's probabilities, not the line it draws, so precision
 * on replies unlike the taught ones stays what it was, and what is found anew is what the
 * labels taught.
 */
import { shippedModel, loadModel, type AbuseModel, type ModelFile } from "../model.ts";
import { MODEL_KEY, MODEL_NAMESPACE } from "./namespaces.ts";
import { labelCounts, type LabelShelf, type OperatorLabel } from "./labels.ts";
import { shippedExamples } from "./shipped.ts";
import { toModelFile, train, type Example } from "./trainer.ts";

/** How many shipped replies the operator's labels weigh together, when they are few. */
export const OPERATOR_SHARE = 2_000;
/** The most one label counts as (a label among very few must not outweigh the shipped data of its kind). */
export const MAX_LABEL_WEIGHT = 20;
/** Weights smaller than this are dropped from the stored model, as from the shipped one. */
const PRUNE = 0.002;

/** How many examples each of `labels` operator's labels counts as; see the module comment. */
export function operatorWeight(labels: number): number {
  return Math.max(1, Math.min(MAX_LABEL_WEIGHT, Math.round(OPERATOR_SHARE / Math.max(1, labels))));
}

/** A taught model as kept in the state: the model file, and what it was taught. */
export interface TaughtModel extends ModelFile {
  readonly taught: {
    /** The operator's labels it learned from, and how many said abusive and fine. */
    readonly labels: number;
    readonly abusive: number;
    readonly fine: number;
    /** How many examples each label counted as. */
    readonly weight: number;
    /** The shipped replies it learned from. */
    readonly shipped: number;
    /** When it was trained (ms), and how long training took (ms). */
    readonly at: number;
    readonly ms: number;
  };
}

/**
 * Trains a model on the shipped replies and `labels`; `now` gives the time (the caller's
 * clock). Takes a few seconds for a few hundred labels, about 10 s for 10,000 on one core.
 */
export function trainTaught(
  labels: readonly Pick<OperatorLabel, "text" | "abusive">[],
  now: () => number,
  shipped: readonly Example[] = shippedExamples(),
): TaughtModel {
  const started = performance.now();
  const weight = operatorWeight(labels.length);
  const trained = train([...shipped, ...labels.map((l) => ({ text: l.text, abusive: l.abusive, weight }))]);
  const counts = labelCounts(labels);
  const file = toModelFile(
    trained,
    shippedModel().cut,
    PRUNE,
    `Trained by \`bot moderation train\` on ${shipped.length} shipped replies and ${labels.length} of the operator's labels; \`bot moderation train --reset\` removes it`,
    undefined,
  );
  const { measured: _, ...model } = file;
  return {
    ...model,
    taught: {
      labels: labels.length,
      ...counts,
      weight,
      shipped: shipped.length,
      at: now(),
      ms: Math.round(performance.now() - started),
    },
  };
}

/** The taught model kept in the state, as stored (undefined: none, the shipped one is used). */
export function storedTaughtModel(shelf: Pick<LabelShelf, "get">): TaughtModel | undefined {
  return shelf.get<TaughtModel>(MODEL_NAMESPACE, MODEL_KEY);
}

/** Keeps a taught model in the state (in memory: the caller flushes the store). */
export function keepTaughtModel(shelf: Pick<LabelShelf, "set">, model: TaughtModel): void {
  shelf.set(MODEL_NAMESPACE, MODEL_KEY, model);
}

/** Removes the taught model from the state; whether there was one. */
export function forgetTaughtModel(shelf: Pick<LabelShelf, "get" | "delete">): boolean {
  const had = storedTaughtModel(shelf) !== undefined;
  if (had) shelf.delete(MODEL_NAMESPACE, MODEL_KEY);
  return had;
}

/** The taught model of a state, ready to classify with, or why it cannot be used. */
export type TaughtModelUse =
  | { readonly model: AbuseModel; readonly taught: TaughtModel["taught"] }
  | { readonly refused: string; readonly taught: TaughtModel["taught"] };

/**
 * The state's taught model, loaded; `undefined` when there is none. A model trained behind
 * other rules, word lists or features (an upgraded postbot) is refused, with why and what
 * trains it again, rather than answering for a classifier it was not fitted to.
 */
export function taughtModel(shelf: Pick<LabelShelf, "get">): TaughtModelUse | undefined {
  const stored = storedTaughtModel(shelf);
  if (!stored) return undefined;
  try {
    return {
      model: loadModel(
        stored,
        "the model taught in the state",
        "Run `bot moderation train` to train it again on the same labels (until then the shipped model is used)",
      ),
      taught: stored.taught,
    };
  } catch (err) {
    return { refused: (err as Error).message, taught: stored.taught };
  }
}
