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
      const { pluginSchemaText } = await import("../built-in-schema.ts");
      process.stdout.write(await pluginSchemaText(options.plugins, (line) => process.stderr.write(`${line}\n`)));
    });
}
