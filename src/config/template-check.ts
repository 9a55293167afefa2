/**
 * Every template of a directory checked as `bot validate` checks bot files: each rendered for
 * {@link SAMPLE_USERNAME} and checked as the bot file it becomes (its plugins and their
 * options, its app's plan agreeing with the bot files'), each problem at the template's own
 * line and column.
 */
import type { BotEnv } from "./env.ts";
import { loadBotText, PluginCache, type BotConfig } from "./load-bots.ts";
import type { BotFileProblem } from "./problem.ts";
import { readTemplates, renderChecked, SAMPLE_USERNAME, templatesDirOf } from "./template.ts";

export interface CheckTemplatesOptions {
  /** The templates directory (default: `templates` next to `botsDir`). */
  dir?: string;
  botsDir: string;
  pluginsDir: string;
  /** The environment the bot files were read with (`${VAR}`). */
  env: BotEnv;
  /** The bot files' bots: an app's plan must agree with theirs. */
  others: readonly BotConfig[];
  cwd?: string;
}

/** The templates' names and sample bots, and every problem; see the module comment. */
export async function checkTemplates(
  options: CheckTemplatesOptions,
): Promise<{ names: string[]; bots: BotConfig[]; problems: BotFileProblem[] }> {
  const cwd = options.cwd ?? process.cwd();
  const read = readTemplates(options.dir ?? templatesDirOf(options.botsDir), cwd);
  const plugins = new PluginCache(options.pluginsDir, cwd);
  const problems = [...read.problems];
  const bots: BotConfig[] = [];
  const names: string[] = [];
  for (const template of read.templates) {
    const checked = await renderChecked(template, SAMPLE_USERNAME, (file, text) =>
      loadBotText({ file, text, env: options.env, others: options.others, plugins }),
    );
    if ("problems" in checked) problems.push(...checked.problems);
    else {
      bots.push(checked.bot);
      names.push(template.name);
    }
  }
  return { names, bots, problems };
}
