/**
 * The shape a plugin module's default export must have. The runtime's `definePlugin` gives
 * plugin authors the full typing (events, contexts); this is the minimal structural type
 * the loader checks an imported module against, so a wrong export is refused at load time
 * with a message, not at the first event with a TypeError.
 */
import type { ZodType } from "zod";

/**
 * A plugin: its name (for logs), the zod schema of its options in bot files, and `setup`,
 * which the runtime calls once per bot that lists the plugin, with the parsed options.
 *
 * @example
 * ```ts
 * export default {
 *   name: "reply",
 *   options: z.object({ text: z.string() }),
 *   setup(bot, options) { bot.on("mention", (ctx) => ctx.reply(options.text)); },
 * } satisfies PluginDefinition;
 * ```
 */
export interface PluginDefinition {
  readonly name: string;
  /** Validates and defaults the options a bot file gives; absent: the plugin takes none. */
  readonly options?: ZodType;
  /** Typed by `definePlugin`; any function is structurally acceptable here. */
  readonly setup: (...args: never[]) => unknown;
}

/**
 * What is wrong with `value` as a plugin definition, in words a plugin author can act on,
 * or undefined when it is one.
 */
export function definitionProblem(value: unknown): string | undefined {
  const usage = "export default definePlugin({ name, options, setup })";
  if (value === undefined) return `it has no default export; write ${usage}`;
  if (value === null || typeof value !== "object")
    return `its default export is ${value === null ? "null" : `a ${typeof value}`}, not a plugin; write ${usage}`;
  const plugin = value as Record<string, unknown>;
  if (typeof plugin.name !== "string" || plugin.name === "")
    return `its default export has no name (a non-empty string); write ${usage}`;
  if (typeof plugin.setup !== "function") return `its default export has no setup function; write ${usage}`;
  const options = plugin.options as { safeParseAsync?: unknown } | undefined;
  if (options !== undefined && (options === null || typeof options.safeParseAsync !== "function")) {
    return "its options are not a zod schema; write options: z.object({ ... })";
  }
  return undefined;
}

/**
 * The plugin definition in an imported module: its default export, or the default export
 * of that (a CommonJS build of an ES module).
 */
export function definitionOf(module: Record<string, unknown>): unknown {
  const exported = module.default;
  const nested = (exported as { default?: { setup?: unknown } } | undefined)?.default;
  if (exported && typeof (exported as { setup?: unknown }).setup !== "function" && typeof nested?.setup === "function")
    return nested;
  return exported;
}
