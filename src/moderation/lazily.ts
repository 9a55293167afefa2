/**
 * A value built on its first use and kept: what the classifier's word lists, compiled into
 * regular-expression sources and tables, are wrapped in. Building them takes a noticeable
 * part of a second, and every `import { definePlugin } from "postbot"` evaluates this
 * folder (the entry exports the classifier), so at import time each bot and `bot validate`
 * would pay it even when no bot moderates. The first classifier built (or `warmClassifier`)
 * pays it instead.
 */

/**
 * A function that returns `build()`, called once, on the first call.
 *
 * @example
 * ```ts
 * export const you = lazily(() => oneOf(YOU));
 * const pattern = `${you()} ${mods()}(?<word>${nouns()})`;
 * ```
 */
export function lazily<T>(build: () => T): () => T {
  let built: { value: T } | undefined;
  return () => (built ??= { value: build() }).value;
}
