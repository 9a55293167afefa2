/**
 * A package loaded when it is first used, not when a module that needs it is imported: every
 * `bot` command imports much of postbot, and the heavy CommonJS packages only some of them use
 * (undici for requests, pino-pretty for a terminal, obscenity for the classifier, oauth-1.0a for
 * signing) cost `bot validate` and `bot --help` about a third of their start-up otherwise.
 * Node's own `require` loads them, so the instance is the one an `import` would give.
 */
import { createRequire } from "node:module";

const load = createRequire(import.meta.url);

/** A function that returns the package `name`, required on its first call. */
export function lazyPackage<T>(name: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= load(name) as T);
}
