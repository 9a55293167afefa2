/**
 * A lazy child logger (src/lazy-log.ts) is made on its first line at an enabled level, and
 * logs then exactly as a pino child: the same lines, with every binding of its chain.
 */
import { describe, expect, it } from "vitest";
import { lazyChild } from "../src/lazy-log.ts";
import { createLogger, type Logger } from "../src/log.ts";

/** A logger at `info` whose lines are kept, counting the pino children made under it. */
function capturing() {
  const lines: Array<Record<string, unknown>> = [];
  const logger = createLogger({
    level: "info",
    pretty: false,
    destination: { write: (s) => lines.push(JSON.parse(s)) },
  });
  const child = logger.child;
  const made = { count: 0 };
  // Own property of the root: the children (pino makes them with the root as prototype) count theirs here too.
  logger.child = function (this: Logger, ...args: Parameters<Logger["child"]>) {
    made.count++;
    return child.apply(this, args);
  } as Logger["child"];
  return { lines, logger, made };
}

const withoutTime = (line: Record<string, unknown>) => {
  const { time: _, ...rest } = line;
  return rest;
};

describe("lazyChild", () => {
  it("makes nothing for a level read, a child, or a line at a level that is off", () => {
    const { lines, logger, made } = capturing();
    const bot = lazyChild(logger, { bot: "greeter" });
    const plugin = bot.child({ plugin: "welcome" });
    expect(bot.level).toBe("info");
    expect(plugin.isLevelEnabled("debug")).toBe(false);
    expect(plugin.isLevelEnabled("warn")).toBe(true);
    plugin.debug({ post: "1" }, "not logged");
    bot.trace("not logged either");
    expect(made.count).toBe(0);
    expect(lines).toEqual([]);
  });

  it("logs, once made, the lines a pino child would, with every binding of the chain", () => {
    const { lines, logger, made } = capturing();
    const bot = lazyChild(logger, { bot: "greeter" });
    const plugin = bot.child({ plugin: "welcome" });
    plugin.info({ post: "1" }, "hello");
    expect(made.count).toBe(2);
    bot.warn("careful");
    plugin.error({ err: new Error("boom") }, "failed");
    expect(made.count).toBe(2);
    const eager = logger.child({ bot: "greeter" });
    eager.child({ plugin: "welcome" }).info({ post: "1" }, "hello");
    eager.warn("careful");
    expect(lines.map(withoutTime).slice(0, 2)).toEqual([
      { level: 30, bot: "greeter", plugin: "welcome", post: "1", msg: "hello" },
      { level: 40, bot: "greeter", msg: "careful" },
    ]);
    expect(lines[2]).toMatchObject({ level: 50, bot: "greeter", plugin: "welcome", err: { message: "boom" } });
    expect(lines.slice(3).map(withoutTime)).toEqual(lines.slice(0, 2).map(withoutTime));
    expect(plugin.bindings()).toEqual({ bot: "greeter", plugin: "welcome" });
  });
});
