/**
 * Whether a plugin module's default export is a `Plugin` (./plugin.ts): the loader checks an
 * imported module against its shape, so a wrong export is refused at load time with a
 * message, not at the first event with a TypeError.
 */

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
