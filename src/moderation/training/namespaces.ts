/**
 * Where an operator's labels and the model they taught live in the state store: the one place
 * that names them, for ./labels.ts and ./taught.ts and for the store's table of files, which
 * gives each a file of its own (src/store/shards.ts).
 */

/** The operator's labelled replies, one per text. */
export const LABELS_NAMESPACE = "moderation.labels";
/** The model taught by them (one value, {@link MODEL_KEY}). */
export const MODEL_NAMESPACE = "moderation.model";
export const MODEL_KEY = "taught";
