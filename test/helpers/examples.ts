/**
 * The example bots and plugins this repository ships, by name: tests that run "the examples"
 * use these lists (the bots copied into a temporary directory), so a bot or plugin a user adds
 * to `bots/` or `plugins/` (README, "Your first bot", "Writing a plugin") changes no test's
 * outcome.
 */
import { copyFile, mkdir, mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** The bot files of `bots/` that come with postbot (the demo). */
export const EXAMPLE_BOTS = ["fan", "friendly", "greeter", "host", "morning"] as const;

/** The plugins of `plugins/` that come with postbot (the examples the README documents). */
export const EXAMPLE_PLUGINS = [
  "follow-back",
  "like",
  "moderate",
  "reply",
  "repost",
  "schedule-post",
  "welcome-dm",
] as const;

/** Copies the example bot files into a new temporary directory and returns its path. */
export async function exampleBotsDir(): Promise<string> {
  const dir = join(await mkdtemp(join(tmpdir(), "postbot-examples-")), "bots");
  await mkdir(dir);
  for (const name of EXAMPLE_BOTS) await copyFile(join("bots", `${name}.yaml`), join(dir, `${name}.yaml`));
  return dir;
}
