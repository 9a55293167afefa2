/**
 * A plugin whose `setup` threw (or whose session schema cannot hold a new user's session):
 * the plugin named, with what it threw. Hosting tells it from other failures of a bot's start:
 * that bot is reported with its file and does not run, and the other bots start (a plugin's
 * mistake is its bot's, never the fleet's).
 */
export class PluginSetupError extends Error {
  override name = "PluginSetupError";
  constructor(
    /** The plugin, as the bot file names it. */
    readonly plugin: string,
    cause: unknown,
  ) {
    super(`plugin ${plugin} failed in its setup: ${(cause as Error)?.message ?? String(cause)}`, { cause });
  }
}
