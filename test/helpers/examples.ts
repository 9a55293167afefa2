/**
 * The example bots and plugins this repository ships, by name: tests that run "the examples"
 * use these lists (the bots copied into a temporary directory), so a bot or plugin a user adds
 * to `bots/` or `plugins/` (README, "Your first bot", "Writing a plugin") changes no test's
 * outcome.
 */
import { copyFile, mkdir, mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ZodType } from "zod";
import { BUILT_IN_PLUGINS } from "../../src/plugins/built-ins.ts";
import type { Plugin } from "../../src/plugins/index.ts";

/** The bot files of `bots/` that come with postbot (the demo). */
export const EXAMPLE_BOTS = ["fan", "friendly", "greeter", "helpdesk", "host", "morning", "quiz"] as const;

/** The templates of `templates/` that come with postbot (the demo's connect page). */
export const EXAMPLE_TEMPLATES = ["greeter"] as const;

/** The plugins of `plugins/` that come with postbot: the built-ins' source (the examples the README documents). */
export const EXAMPLE_PLUGINS = BUILT_IN_PLUGINS;

/** Copies the example bot files into a new temporary directory and returns its path. */
export async function exampleBotsDir(): Promise<string> {
  const dir = join(await mkdtemp(join(tmpdir(), "postbot-examples-")), "bots");
  await mkdir(dir);
  for (const name of EXAMPLE_BOTS) await copyFile(join("bots", `${name}.yaml`), join(dir, `${name}.yaml`));
  return dir;
}

/** The example plugins' options schemas, by name: what `bot schema` builds the shipped bot.schema.json from. */
export async function exampleSchemas(): Promise<Record<string, ZodType | undefined>> {
  const schemas: Record<string, ZodType | undefined> = {};
  for (const name of EXAMPLE_PLUGINS)
    schemas[name] = ((await import(join(process.cwd(), "plugins", `${name}.ts`))).default as Plugin).options as
      | ZodType
      | undefined;
  return schemas;
}
