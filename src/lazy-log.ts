/**
 * A child logger made when it first has something to do. A process runs thousands of bots,
 * each with its logger (`{ bot }`) and one per plugin under it (`{ plugin }`), and most of
 * them log nothing for hours: a pino child is an object with the parent as its prototype, its
 * bindings as a string and its formatters, and a logger that has children of its own becomes
 * a prototype, which V8 gives a map of its own: several hundred bytes of each bot's live
 * memory, for lines that may never come. The bindings are kept as they are (one small
 * object); the pino child is made on the first line logged at an enabled level (or on any
 * other use: a level set, a binding read). Lines at a level that is off, a level read and
 * `child()` leave it unmade: a child of a child waits too.
 *
 * @example
 * ```ts
 * const log = lazyChild(logger, { bot: "greeter" });
 * const pluginLog = log.child({ plugin: "welcome" }); // nothing made yet
 * pluginLog.debug("skipped"); // with the level at info: still nothing made
 * pluginLog.info("hello"); // both children made, the line logged with both bindings
 * ```
 */
import type { Bindings, ChildLoggerOptions, Logger } from "pino";

/** What a lazy child holds until it is made. */
interface LazyChild {
  parent: Logger;
  bindings: Bindings;
  made: Logger | undefined;
}

/** Asked of a lazy child, it answers the pino child (made now); a real logger has no such property. */
const REAL = Symbol("postbot.lazyChild.real");

const LEVELS = new Set<string | symbol>(["trace", "debug", "info", "warn", "error", "fatal"]);

const noop = () => {};

/** The pino logger behind a logger (itself, unless it is a lazy child). */
const realOf = (logger: Logger): Logger => (logger as unknown as Record<symbol, Logger | undefined>)[REAL] ?? logger;

const made = (t: LazyChild): Logger => (t.made ??= realOf(t.parent).child(t.bindings));

/** One handler for every lazy child (a closure per child would be memory again). */
const handler: ProxyHandler<LazyChild> = {
  get(t, key, receiver) {
    if (key === REAL) return made(t);
    if (t.made === undefined) {
      if (key === "child")
        return (bindings: Bindings, options?: ChildLoggerOptions) =>
          options === undefined ? lazyChild(receiver as Logger, bindings) : made(t).child(bindings, options);
      if (key === "level") return t.parent.level;
      if (key === "isLevelEnabled") return (level: string) => t.parent.isLevelEnabled(level);
      if (LEVELS.has(key) && !t.parent.isLevelEnabled(key as string)) return noop;
    }
    const real = made(t);
    const value: unknown = Reflect.get(real, key);
    return typeof value === "function" ? value.bind(real) : value;
  },
  set: (t, key, value) => Reflect.set(made(t), key, value),
  has: (t, key) => Reflect.has(made(t), key),
};

/** `parent.child(bindings)`, made when first needed (see the module comment). */
export function lazyChild(parent: Logger, bindings: Bindings): Logger {
  return new Proxy<LazyChild>({ parent, bindings, made: undefined }, handler) as unknown as Logger;
}
