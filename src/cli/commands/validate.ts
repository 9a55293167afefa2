/**
 * `bot validate`: checks every bot file and every plugin's options without connecting to
 * the service, so a mistake is found before `bot start`, in CI or in an editor's task; and
 * every template (`templates/NAME.yaml`, for accounts that connect themselves), rendered for a
 * sample username and checked as the bot file it becomes.
 */
import type { Command } from "commander";
import { BUILT_IN_PLUGINS } from "../../plugins/built-ins.ts";

export default function register(program: Command): void {
  program
    .command("validate")
    .description(
      "check every bot file, every plugin's options and that each plugin sets up, without connecting; prints file:line:col problems, exits 1 on any",
    )
    .option("--bots <dir>", "directory of bot files (one bot per *.yaml file)", "bots")
    .option("--plugins <dir>", "directory of local plugins (NAME.ts, NAME.js or NAME/index.ts)", "plugins")
    .option("--templates <dir>", "directory of bot templates (NAME.yaml; default: templates next to --bots)")
    .addHelpText(
      "after",
      `\nVariables (\${VAR}) are read from the environment, then from .env next to the bots directory, then ./.env.\n\nA plugin name is found in --plugins first, then among the built-in plugins (${BUILT_IN_PLUGINS.join(", ")}), then as the npm package postbot-plugin-NAME.`,
    )
    .action(async (options: { bots: string; plugins: string; templates?: string }) => {
      // Everything validate runs is imported before the first plugin: once a plugin's loader
      // is registered (tsx, for a TypeScript plugin), each later import resolves through it
      // in another thread, one round trip per module.
      const [config, templateCheck, warnings, pluginIndex] = await Promise.all([
        import("../../config/index.ts"),
        import("../../config/template-check.ts"),
        import("../plugin-warnings.ts"),
        import("../../plugins/index.ts"),
      ]);
      const { loadBots, formatProblem, countOf: count, compareProblems, shadowNotes } = config;
      const loaded = await loadBots({ botsDir: options.bots, pluginsDir: options.plugins });
      const { bots, files } = loaded;
      const { checkTemplates } = templateCheck;
      const templates = await checkTemplates({
        dir: options.templates,
        botsDir: options.bots,
        pluginsDir: options.plugins,
        env: loaded.env,
        others: bots,
      });
      // Each plugin's setup, run once against a stand-in bot: one that throws would leave its bot unstarted.
      const { runSetups, setupProblems, sharedEventWarnings, looseOptionWarnings } = warnings;
      // Where the bots will run (the embedded sandbox's address is known only once it starts).
      const runs = await runSetups(bots, loaded.env.vars.POSTBOT_BASE_URL ?? "http://127.0.0.1");
      const problems = [...loaded.problems, ...templates.problems, ...setupProblems(runs)].sort(compareProblems);
      for (const problem of problems) process.stdout.write(`${formatProblem(problem)}\n`);
      if (problems.length > 0) {
        const badFiles = new Set(problems.map((p) => p.file)).size;
        process.stdout.write(
          `${count(problems.length, "problem")} in ${count(badFiles, "file")}; fix them before bot start\n`,
        );
        process.exitCode = 1;
        return;
      }
      const plugins = new Set([...bots, ...templates.bots].flatMap((bot) => bot.plugins.map((p) => p.name)));
      // Mistakes that pass validation: options that drop unknown keys, two plugins answering one event.
      for (const line of [...looseOptionWarnings(bots), ...sharedEventWarnings(runs)])
        process.stdout.write(`${line}\n`);
      for (const line of shadowNotes([...bots, ...templates.bots])) process.stdout.write(`note: ${line}\n`);
      // A plugin in the plugins directory that no bot lists never runs: say so (not a problem).
      const { localPluginNames, findPlugin } = pluginIndex;
      for (const name of localPluginNames(options.plugins).filter((n) => !plugins.has(n))) {
        const found = findPlugin(name, { pluginsDir: options.plugins });
        if (found?.kind === "built-in") continue; // postbot's own repository: the built-ins' source
        const file = found?.label ?? name;
        process.stdout.write(
          `${file}: warning: no bot uses the plugin "${name}", so it never runs; list it under plugins: in a bot file (plugins: { ${name}: {} })\n`,
        );
      }
      const checked = templates.bots.length
        ? `, ${count(templates.bots.length, "template")} (${templates.names.join(", ")})`
        : "";
      process.stdout.write(
        `OK: ${count(bots.length, "bot")} in ${count(files.length, "file")} (${bots.map((b) => b.name).join(", ")})${checked}, ${count(plugins.size, "plugin")} checked\n`,
      );
    });
}
