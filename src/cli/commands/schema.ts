/**
 * `bot schema`: prints the JSON Schema of bot files, generated from the same zod schema the
 * loader validates with, so editors complete and check exactly what `bot validate` accepts.
 */
import type { Command } from "commander";

export default function register(program: Command): void {
  program
    .command("schema")
    .description("print the JSON Schema of bot files (bot schema > bot.schema.json)")
    .addHelpText("after", "\nPoint an editor at it with a first line in a bot file:\n  # yaml-language-server: $schema=../bot.schema.json")
    .action(async () => {
      const { botJsonSchemaText } = await import("../../config/schema.ts");
      process.stdout.write(botJsonSchemaText());
    });
}
