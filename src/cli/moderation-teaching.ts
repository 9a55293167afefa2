/**
 * What `bot moderation teach`, `train` and `score` do (./commands/moderation.ts): open the
 * state (a data directory, or Redis with `--state`), read a label file, and say what came of
 * it. Writing a state directory takes its lock, as `bot start` does: with the bots running
 * on it, stop them first (they read the taught model only when they start anyway). A state
 * in Redis is shared: teaching and training write beside running processes, which use the
 * new model from their next start.
 */
import { readFile } from "node:fs/promises";
import { userInfo } from "node:os";
import { systemClock } from "../clock.ts";
import { UserError } from "../errors.ts";
import { createClassifier } from "../moderation/classifier.ts";
import { parseLabelFile, type LabelFile } from "../moderation/training/label-file.ts";
import { keepLabels, labelCounts, operatorLabels } from "../moderation/training/labels.ts";
import { formatMisses, formatScore, scoreLabels } from "../moderation/training/score-labels.ts";
import {
  forgetTaughtModel,
  keepTaughtModel,
  taughtModel,
  trainTaught,
  type TaughtModel,
} from "../moderation/training/taught.ts";
import { hasState, openFileStore } from "../store/index.ts";
import { describeFsError } from "../store/fs-error.ts";
import type { Store } from "../store/store.ts";
import { stateOption } from "./state-option.ts";

export interface StateOptions {
  data: string;
  state?: string;
}

/**
 * Opens the state to write it, or with `read` to read it beside a running `bot start`
 * (`undefined`: there is no state directory yet, so nothing taught).
 */
async function openState(options: StateOptions, mode: "write"): Promise<Store>;
async function openState(options: StateOptions, mode: "read"): Promise<Store | undefined>;
async function openState(options: StateOptions, mode: "write" | "read"): Promise<Store | undefined> {
  const shared = stateOption(options.state, process.env);
  if (shared) {
    const [{ connectRedis }, { openRedisStore }] = await Promise.all([
      import("../redis/connect.ts"),
      import("../redis/store.ts"),
    ]);
    const redis = await connectRedis(shared.url, { source: shared.source, name: "postbot:moderation" });
    try {
      return await openRedisStore({ redis, loadBots: false, readOnly: mode === "read" });
    } catch (err) {
      redis.disconnect();
      throw err;
    }
  }
  if (mode === "read")
    return (await hasState(options.data)) ? openFileStore(options.data, { readOnly: true }) : undefined;
  return openFileStore(options.data);
}

/** Reads and parses a label file; the skipped lines go to stderr, with their line numbers. */
async function readLabelFile(file: string): Promise<LabelFile> {
  let contents: string;
  try {
    contents = await readFile(file, "utf8");
  } catch (err) {
    throw new UserError(`cannot read ${file}: ${describeFsError(err)}`, { cause: err });
  }
  const parsed = parseLabelFile(file, contents);
  for (const { line, problem } of parsed.skipped) process.stderr.write(`bot: ${file}:${line}: skipped: ${problem}\n`);
  return parsed;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** `bot moderation teach FILE`: keeps the file's labels in the state, all of them in one write. */
export async function teach(file: string, options: StateOptions): Promise<void> {
  const { rows, skipped } = await readLabelFile(file);
  const store = await openState(options, "write");
  try {
    const by = `cli:${userInfo().username}`;
    const at = systemClock.now();
    const kept = keepLabels(
      store,
      rows.map((r) => ({ text: r.text, abusive: r.abusive, by, at, from: { file, line: r.line } })),
    );
    await store.flush();
    const all = labelCounts(operatorLabels(store));
    process.stdout.write(
      `${file}: kept ${plural(rows.length, "label")} (${kept.added} new, ${kept.relabelled} relabelled, ${kept.same} as before)` +
        `${skipped.length ? `; skipped ${plural(skipped.length, "bad line")}` : ""}. ` +
        `The state holds ${plural(all.abusive + all.fine, "label")} (${all.abusive} abusive, ${all.fine} fine): ` +
        "bot moderation train teaches them to the model\n",
    );
  } finally {
    await store.close();
  }
}

/** What a taught model learned from, for messages. */
const learned = (t: TaughtModel["taught"]) =>
  `${plural(t.labels, "of the operator's labels", "of the operator's labels")} (${t.abusive} abusive, ${t.fine} fine)`;

const NO_MODEL = "the state has no trained model: bot start uses the shipped model already";

/** `bot moderation train [--reset]`. */
export async function train(options: StateOptions & { reset?: boolean }): Promise<void> {
  const noLabels = () =>
    new UserError(
      "the state has no labels to train on: keep some with bot moderation teach FILE, or decide about replies with bot review",
    );
  // A state directory that does not exist yet is not made just to say it holds nothing.
  if (!stateOption(options.state, process.env) && !(await hasState(options.data))) {
    if (!options.reset) throw noLabels();
    process.stdout.write(`${NO_MODEL}\n`);
    return;
  }
  const store = await openState(options, "write");
  try {
    if (options.reset) {
      const had = forgetTaughtModel(store);
      await store.flush();
      const labels = operatorLabels(store).length;
      process.stdout.write(
        had
          ? `removed the trained model from the state: bot start uses the shipped model from its next start (the ${plural(labels, "label")} stay; bot moderation train teaches them again)\n`
          : `${NO_MODEL}\n`,
      );
      return;
    }
    const labels = operatorLabels(store);
    if (labels.length === 0) throw noLabels();
    const model = trainTaught(labels, () => systemClock.now());
    keepTaughtModel(store, model);
    await store.flush();
    const t = model.taught;
    process.stdout.write(
      `trained on ${t.shipped} shipped replies and ${learned(t)}, each counting as ${t.weight}, in ${(t.ms / 1000).toFixed(1)} s; ` +
        "kept in the state: bot start uses it from its next start (bot moderation train --reset goes back to the shipped model)\n",
    );
  } finally {
    await store.close();
  }
}

/** `bot moderation score FILE [--misses]`: the state's model (the taught one, else the shipped one) on a labelled file. */
export async function score(file: string, options: StateOptions & { misses?: boolean }): Promise<void> {
  const { rows } = await readLabelFile(file);
  const store = await openState(options, "read");
  let use;
  try {
    use = store && taughtModel(store);
  } finally {
    await store?.close();
  }
  if (use && "refused" in use) process.stderr.write(`bot: ${use.refused}\n`);
  const model = use && "model" in use ? use.model : undefined;
  const result = scoreLabels(createClassifier({}, model), rows);
  const which =
    use && "model" in use
      ? `the model trained on ${learned(use.taught)}`
      : "the shipped model (none trained in the state)";
  process.stdout.write(
    `${formatScore(result)}\nscored ${plural(rows.length, "labelled reply", "labelled replies")} with ${which}\n`,
  );
  if (options.misses) for (const line of formatMisses(result)) process.stdout.write(`${line}\n`);
}
