/**
 * An operator's labels: replies a person said were abusive or fine, kept in the state store
 * (files or Redis) so that `bot moderation train` can teach the abuse model what this
 * community hides. They come from two places: each decision made in `bot review` or on the
 * status page's `/review` (hide, unhide, keep), and files of past decisions imported with
 * `bot moderation teach`.
 *
 * One label per text: the key is a digest of the text, so the same reply decided twice, or a
 * file imported twice, leaves one label (the latest), and training never counts a text twice.
 * The state is reached through {@link LabelShelf}, the few methods of the state store this
 * needs, so this layer does not depend on the store's.
 */
import { createHash } from "node:crypto";
import { LABELS_NAMESPACE } from "./namespaces.ts";

/** One reply, labelled by a person. */
export interface OperatorLabel {
  readonly text: string;
  readonly abusive: boolean;
  /** Who decided: `cli:USER` (`bot review`, `bot moderation teach`) or `admin:NAME` (the status page's token). */
  readonly by: string;
  /** When it was decided or imported (ms). */
  readonly at: number;
  /** Where it came from: a review decision, or a file imported with `bot moderation teach` (its name). */
  readonly from: "review" | { file: string; line: number };
  /** The bot whose reply it was (review decisions). */
  readonly bot?: string;
  /** The reply's post id (review decisions). */
  readonly post?: string;
}

/** The methods of the state store the labels need (the store's `Store` has them). */
export interface LabelShelf {
  get<T>(namespace: string, key: string): T | undefined;
  set<T>(namespace: string, key: string, value: T): void;
  delete(namespace: string, key: string): void;
  entries<T>(namespace: string): Array<[string, T]>;
}

/** The key of a text's label: a digest of the text, so one text has one label. */
export function labelKey(text: string): string {
  return createHash("sha256").update(text).digest("hex").slice(0, 24);
}

/** What keeping labels changed: new texts, texts whose label changed, and texts labelled as before. */
export interface KeptLabels {
  added: number;
  relabelled: number;
  same: number;
}

/**
 * Keeps labels in the state (in memory: the caller flushes the store). A text labelled
 * before takes the new label, with who and when.
 */
export function keepLabels(shelf: LabelShelf, labels: Iterable<OperatorLabel>): KeptLabels {
  const kept: KeptLabels = { added: 0, relabelled: 0, same: 0 };
  for (const label of labels) {
    const key = labelKey(label.text);
    const before = shelf.get<OperatorLabel>(LABELS_NAMESPACE, key);
    if (!before) kept.added++;
    else if (before.abusive !== label.abusive) kept.relabelled++;
    else kept.same++;
    shelf.set(LABELS_NAMESPACE, key, label);
  }
  return kept;
}

/** Every label kept in the state, oldest first. */
export function operatorLabels(shelf: LabelShelf): OperatorLabel[] {
  return shelf
    .entries<OperatorLabel>(LABELS_NAMESPACE)
    .map(([, label]) => label)
    .sort((a, b) => a.at - b.at);
}

/** How many of the labels say abusive, and how many fine. */
export function labelCounts(labels: readonly Pick<OperatorLabel, "abusive">[]): { abusive: number; fine: number } {
  const abusive = labels.filter((l) => l.abusive).length;
  return { abusive, fine: labels.length - abusive };
}
