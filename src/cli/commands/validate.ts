/**
 * `bot validate`: checks every bot file and every plugin's options without connecting to
 * the service, so a mistake is found before `bot start`, in CI or in an editor's task.
 */
import type { Command } from "commander";

export default function register(program: Command): void {
  program
    .command("validate")
    .description("check every bot file and every plugin's options, without connecting; prints file:line:col problems, exits 1 on any")
    .option("--bots <dir>", "directory of bot files (one bot per *.yaml file)", "bots")
    .option("--plugins <dir>", "directory of local plugins (NAME.ts, NAME.js or NAME/index.ts)", "plugins")
    .addHelpText("after", "\nVariables (${VAR}) are read from the environment, then from .env next to the bots directory, then ./.env.")
    .action(async (options: { bots: string; plugins: string }) => {
      const { loadBots, formatProblem } = await import("../../config/index.ts");
      const { bots, problems, files } = await loadBots({ botsDir: options.bots, pluginsDir: options.plugins });
      for (const problem of problems) process.stdout.write(`${formatProblem(problem)}\n`);
      if (problems.length > 0) {
        const badFiles = new Set(problems.map((p) => p.file)).size;
        process.stdout.write(`${problems.length} problem${problems.length === 1 ? "" : "s"} in ${badFiles} file${badFiles === 1 ? "" : "s"}; fix them before bot start\n`);
        process.exitCode = 1;
        return;
      }
      const plugins = new Set(bots.flatMap((bot) => bot.plugins.map((p) => p.name)));
      process.stdout.write(
        `OK: ${bots.length} bot${bots.length === 1 ? "" : "s"} in ${files.length} file${files.length === 1 ? "" : "s"} (${bots.map((b) => b.name).join(", ")}), ${plugins.size} plugin${plugins.size === 1 ? "" : "s"} checked\n`,
      );
    });
}
