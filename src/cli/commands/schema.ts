/**
 * `bot schema`: prints the JSON Schema of bot files, generated from the same zod schema the
 * loader validates with, and the options schema of each built-in plugin and each local one,
 * so editors complete and check exactly what `bot validate` accepts (`reply: { text: 42 }`
 * included).
 */
import type { Command } from "commander";

export default function register(program: Command): void {
  program
    .command("schema")
    .description(
      "print the JSON Schema of bot files, with the options of the built-in plugins and those in --plugins (bot schema > bot.schema.json)",
    )
    .option("--plugins <dir>", "directory of local plugins whose options to include", "plugins")
    .addHelpText(
      "after",
      "\nPoint an editor at it with a first line in a bot file:\n  # yaml-language-server: $schema=../bot.schema.json",
    )
    .action(async (options: { plugins: string }) => {
      const [{ botJsonSchemaText }, { findPlugin, localPluginNames, loadPlugin, BUILT_IN_PLUGINS }] = await Promise.all(
        [import("../../config/schema.ts"), import("../../plugins/index.ts")],
      );
      const schemas: Record<string, import("zod").ZodType | undefined> = {};
      const names = [...new Set([...BUILT_IN_PLUGINS, ...localPluginNames(options.plugins)])].sort();
      for (const name of names) {
        const location = findPlugin(name, { pluginsDir: options.plugins });
        const loaded = location && (await loadPlugin(location));
        if (loaded?.ok) schemas[name] = loaded.definition.options;
        else if (loaded)
          process.stderr.write(
            `warning: plugin ${name} ${loaded.message}; its options are left unchecked in the schema\n`,
          );
      }
      process.stdout.write(botJsonSchemaText(schemas));
    });
}
