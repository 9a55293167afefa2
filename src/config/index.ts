/**
 * Bot configuration: the bot file schema (the single source of truth, also exported as JSON
 * Schema), loading with `file:line:col` problems, `${VAR}` interpolation, and what each plan
 * allows a bot file to ask for.
 */
export {
  loadBots,
  loadBotText,
  loadBotSource,
  PluginCache,
  shadowNotes,
  BOT_FILE_PATTERN,
  type BotConfig,
  type LoadBotTextOptions,
  type LoadBotSourceOptions,
  type OtherBots,
  type ResolvedPlugin,
  type LoadBotsOptions,
  type LoadBotsResult,
} from "./load-bots.ts";
export { parseBotFile, type ParsedBotFile } from "./load-bot-file.ts";
export { compiledKey, type CompiledIndex } from "./compiled-index.ts";
export { BOT_FILE_MAX_BYTES, readBotFile } from "./bot-file-size.ts";
export { fileDigest } from "./file-digest.ts";
export {
  botFileSchema,
  botJsonSchema,
  botJsonSchemaText,
  ACTION_NAMES,
  BOT_NAME_PATTERN,
  PLUGIN_NAME_PATTERN,
  DEFAULTS,
  type AccountRef,
  type BotFile,
  type BotFileInput,
} from "./schema.ts";
export { loadEnv, interpolate, type BotEnv, type LoadEnvOptions } from "./env.ts";
export {
  fastestDmsIntervalMs,
  fastestFollowersIntervalMs,
  fastestMentionIntervalMs,
  fastestPollIntervalMs,
  planHasDms,
  planHasStream,
} from "./plan-rules.ts";
export { parseDuration, formatDuration, DURATION_PATTERN } from "./duration.ts";
export { formatProblem, compareProblems, type BotFileProblem } from "./problem.ts";
export { countOf } from "./messages.ts";
