/**
 * The bot file JSON Schema with the options of the built-in plugins and of the plugins in a
 * plugins directory (`bot schema`), and with the built-ins alone (the bot.schema.json of a
 * new project, `bot init`, whose own plugin cannot be loaded before `npm install`).
 */
import type { ZodType } from "zod";
import { botJsonSchemaText } from "../config/schema.ts";
import { BUILT_IN_PLUGINS, findPlugin, loadPlugin, localPluginNames } from "../plugins/index.ts";

/**
 * The text of the schema; each plugin that cannot be loaded is left unchecked in it, and
 * `warn` is told why.
 */
export async function pluginSchemaText(
  pluginsDir: string | undefined,
  warn: (line: string) => void = () => {},
): Promise<string> {
  const local = pluginsDir === undefined ? [] : localPluginNames(pluginsDir);
  const schemas: Record<string, ZodType | undefined> = {};
  for (const name of [...new Set([...BUILT_IN_PLUGINS, ...local])].sort()) {
    const location = findPlugin(name, { pluginsDir });
    const loaded = location && (await loadPlugin(location));
    if (loaded?.ok) schemas[name] = loaded.definition.options;
    else if (loaded) warn(`warning: plugin ${name} ${loaded.message}; its options are left unchecked in the schema`);
  }
  return botJsonSchemaText(schemas);
}

/** The schema with the built-in plugins' options only. */
export function builtInSchemaText(): Promise<string> {
  return pluginSchemaText(undefined);
}
