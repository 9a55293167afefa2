/**
 * Loading a project's bots: every bot file of the bots directory, each bot's plugins found
 * and imported, and each plugin's options checked by the plugin's own schema. `bot
 * validate` prints the problems; the runtime refuses to start on any and otherwise gets
 * bots whose plugins are ready to set up, in the order their files list them.
 *
 * Nothing here connects to the service.
 */
import { readdirSync, statSync } from "node:fs";
import { deserialize, serialize } from "node:v8";
import { join, resolve } from "node:path";
import { parseDocument } from "yaml";
import { UserError } from "../errors.ts";
import type { PluginEntry } from "../plugins/registry.ts";
import { BUILT_IN_PLUGINS } from "../plugins/built-ins.ts";
import { findPlugin, localCandidates, localPluginNames, packageCandidates } from "../plugins/discover.ts";
import { loadPlugin, type LoadedPlugin } from "../plugins/load.ts";
import { readBotFile, textSizeProblem } from "./bot-file-size.ts";
import { didYouMean } from "./did-you-mean.ts";
import { loadEnv, type BotEnv } from "./env.ts";
import { botFromData, parseBotFile, placedLater, type ParsedBotFile } from "./load-bot-file.ts";
import { compiledKey, type CompiledIndex } from "./compiled-index.ts";
import { fileDigest } from "./file-digest.ts";
import { dataOf, sourceOf, sourceOfSerialized } from "./bot-source.ts";
import { errorMap, explainIssues, type PathProblem } from "./messages.ts";
import { displayPath } from "../display-path.ts";
import { compareProblems, type BotFileProblem } from "./problem.ts";
import type { BotFile } from "./schema.ts";
import { timeSlicer, type TimeSlicer } from "../time-slice.ts";

/** A plugin of a bot, ready for the runtime to call `definition.setup(bot, options)`. */
export interface ResolvedPlugin extends PluginEntry {
  /** Where it was loaded from: a local file, a built-in, or an npm package name (for logs). */
  source: string;
  /** Set when the project's own plugin of this name replaces the built-in one. */
  shadows?: "built-in";
}

/** A valid bot: its file's settings and its plugins, in the file's order. */
export interface BotConfig extends Omit<BotFile, "plugins"> {
  /** The bot file, relative to the current directory when inside it. */
  file: string;
  plugins: ResolvedPlugin[];
}

export interface LoadBotsOptions {
  /** Default `bots`. */
  botsDir?: string;
  /** Default `plugins`. */
  pluginsDir?: string;
  /** Default `process.env` (a `.env` file adds to it; see src/config/env.ts). */
  env?: Readonly<Record<string, string | undefined>>;
  /** Where relative directories, `.env` and npm plugins are found; default `process.cwd()`. */
  cwd?: string;
  /** Bot files other processes parsed already, and where this one keeps what it parses (./compiled-index.ts). */
  index?: CompiledIndex;
  /** Whether each bot's data is kept too ({@link LoadBotsResult.sources}). */
  sources?: boolean;
}

export interface LoadBotsResult {
  /** The bots without problems (a file with any problem contributes none). */
  bots: BotConfig[];
  /** Every problem, ordered by file and position; the runtime must not start on any. */
  problems: BotFileProblem[];
  /** The bot files read. */
  files: string[];
  /**
   * Each file's text as read, as its digest (file as shown → ./file-digest.ts), for the live
   * fleet to compare a saved file with, so nothing reads 100,000 files twice.
   */
  digests: ReadonlyMap<string, string>;
  /** With {@link LoadBotsOptions.sources}: each good file's data in its kept form (./bot-source.ts), file as shown → source. */
  sources?: Map<string, string>;
  /** The environment the files saw, for the runtime's own settings. */
  env: BotEnv;
}

/** The file extensions of bot files. */
export const BOT_FILE_PATTERN = /\.ya?ml$/;

/**
 * Loads and checks every bot file of `botsDir`.
 *
 * @throws UserError when the bots directory does not exist (nothing to check at all).
 *
 * @example
 * ```ts
 * const { bots, problems } = await loadBots({ botsDir: "bots", pluginsDir: "plugins" });
 * if (problems.length) throw new UserError(problems.map(formatProblem).join("\n"));
 * for (const bot of bots) for (const plugin of bot.plugins) plugin.definition.setup(...);
 * ```
 */
export async function loadBots(options: LoadBotsOptions = {}): Promise<LoadBotsResult> {
  const cwd = options.cwd ?? process.cwd();
  const botsDir = options.botsDir ?? "bots";
  const pluginsDir = options.pluginsDir ?? "plugins";
  const dir = resolve(cwd, botsDir);
  let entries: string[];
  try {
    if (!statSync(dir).isDirectory()) throw new Error("not a directory");
    entries = readdirSync(dir)
      .filter((f) => BOT_FILE_PATTERN.test(f))
      .sort();
  } catch {
    throw new UserError(
      `the bots directory ${botsDir} does not exist; create it with one YAML file per bot, or pass --bots DIR`,
    );
  }
  const env = loadEnv({ botsDir, cwd, env: options.env });
  const show = (file: string) => displayPath(file, cwd);
  const files = entries.map((name) => show(join(dir, name)));
  const problems: BotFileProblem[] = [];
  if (files.length === 0) {
    problems.push({ file: show(dir), message: "has no bot files (*.yaml or *.yml); write one file per bot" });
  }

  const digests = new Map<string, string>();
  const sources = options.sources ? new Map<string, string>() : undefined;
  const seen: BotsSeen = { owners: new Map(), appPlans: new Map() };
  const plugins = new PluginCache(pluginsDir, cwd);
  const bots: BotConfig[] = [];
  // The event loop gets a turn every few ms: 100,000 files are a minute of parsing on a busy
  // machine, and a process joining Redis meanwhile must see its connection answered and keep
  // its membership alive, not find its timers all due at once when the loading ends.
  const slice = timeSlicer();
  const parsed = await parseFiles({
    files,
    cwd,
    env,
    problems,
    slice,
    ...(options.index ? { index: options.index } : {}),
    sources: sources !== undefined,
  });
  // Checked in the files' order, whatever order they were parsed in: the first of two bots
  // of one name is the one kept.
  for (const [i, read] of parsed.entries()) {
    if (!read) continue;
    // Let go as it is checked: 100,000 parsed files held to the end were a start's peak of memory.
    parsed[i] = undefined;
    if (slice.due()) await slice.next();
    digests.set(read.file, fileDigest(read.text));
    problems.push(...read.result.problems);
    const bot = await checkBot(read.result, seen, plugins, problems);
    if (bot) bots.push(bot);
    if (bot && read.source !== undefined) sources?.set(read.file, read.source);
  }
  problems.sort(compareProblems);
  return { bots, problems, files, digests, ...(sources ? { sources } : {}), env };
}

/** A bot file read and parsed (or found in the index). */
interface ParsedFile {
  file: string;
  text: string;
  result: ParsedBotFile;
  /** Its data in its kept form, when asked for. */
  source?: string;
}

/** Files read and parsed a batch at a time, the index asked once a batch. */
const INDEX_BATCH = 250;

/**
 * Reads and parses every file (those the index holds from it: ./compiled-index.ts), a batch
 * at a time, in an order of this process's own with an index (shuffled batches), writing what
 * it parsed to the index a batch at a time. Returns
 * them in the files' order (`undefined`: not readable, its problem added to `problems`). No
 * YAML document is kept past its file: 10,000 documents alive at once made collecting garbage
 * a third of a start's CPU; a problem found later parses its file again for its position.
 */
async function parseFiles(input: {
  files: readonly string[];
  cwd: string;
  env: BotEnv;
  index?: CompiledIndex;
  problems: BotFileProblem[];
  slice: TimeSlicer;
  sources: boolean;
}): Promise<Array<ParsedFile | undefined>> {
  const { files, cwd, env, index, problems, slice } = input;
  const out = new Array<ParsedFile | undefined>(files.length);
  const batches = Array.from({ length: Math.ceil(files.length / INDEX_BATCH) }, (_, i) => i * INDEX_BATCH);
  if (index) shuffle(batches);
  const writes: Array<Promise<void>> = [];
  for (const from of batches) {
    const read: Array<{ at: number; text: string }> = [];
    for (let at = from; at < Math.min(from + INDEX_BATCH, files.length); at++) {
      if (slice.due()) await slice.next();
      const text = readText(resolve(cwd, files[at]!), files[at]!, problems);
      if (text !== undefined) read.push({ at, text });
    }
    const keys = index ? read.map((r) => compiledKey(r.text, env)) : [];
    const kept = index ? await index.get(keys).catch(() => []) : [];
    const fresh: Array<[string, Buffer]> = [];
    for (const [j, { at, text }] of read.entries()) {
      if (slice.due()) await slice.next();
      const file = files[at]!;
      let result = fromIndex(file, text, env, kept[j]);
      let source = result && input.sources ? sourceOfSerialized(kept[j]!) : undefined;
      if (!result) {
        result = parseBotFile(file, text, env);
        const data = result.data === undefined ? undefined : serialize(result.data);
        if (index && data) fresh.push([keys[j]!, data]);
        if (data && input.sources) source = sourceOfSerialized(data);
        if (result.bot) result = { file, bot: result.bot, problems: [], problemAt: placedLater(file, text, env) };
      }
      out[at] = { file, text, result, ...(source !== undefined ? { source } : {}) };
    }
    if (fresh.length > 0) writes.push(index!.set(fresh).catch(() => undefined));
  }
  await Promise.all(writes);
  return out;
}

/** Shuffles `items` in place (Fisher-Yates). */
function shuffle<T>(items: T[]): void {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
}

/** A file's text, or `undefined` with its problem added (unreadable, too large). */
function readText(path: string, file: string, problems: BotFileProblem[]): string | undefined {
  try {
    const read = readBotFile(path, file);
    if ("text" in read) return read.text;
    problems.push(read.problem);
  } catch (error) {
    problems.push({ file, message: `cannot be read: ${(error as Error).message}` });
  }
  return undefined;
}

/** The parsed file from what the index kept for its text, if anything usable. */
function fromIndex(
  file: string,
  text: string,
  env: BotEnv,
  kept: Buffer | null | undefined,
): ParsedBotFile | undefined {
  if (!kept) return undefined;
  try {
    return botFromData(file, text, env, deserialize(kept));
  } catch {
    return undefined; // not what this postbot wrote: parsed afresh
  }
}

/** A table the checks read and add to: a `Map`, or a view of bots that are there already. */
interface Claims<V> {
  get(key: string): V | undefined;
  set(key: string, value: V): unknown;
}

/** What the bots checked so far claim: their names (and files), and each API key's plan. */
interface BotsSeen {
  owners: Claims<string>;
  /** An app has one plan: the first bot naming an API key sets it for the others. */
  appPlans: Claims<{ plan: string; file: string }>;
}

/**
 * The other bots a bot file is checked beside, looked up rather than listed: a running fleet
 * of 10,000 bots answers by name (and by app) without a pass over all of them for each file
 * that changes.
 */
export interface OtherBots {
  /** The file of the other bot named `name`, if there is one. */
  fileOf(name: string): string | undefined;
  /** The plan (and file) of the first other bot naming the app `consumerKey`, if any. */
  appOf(consumerKey: string): { plan: string; file: string } | undefined;
}

/**
 * The checks of one parsed bot file that need more than its text: its name unique, its app's
 * plan agreeing with the bots before it, its plugins found and their options valid. Adds its
 * problems to `problems`; returns the bot when it has none.
 */
async function checkBot(
  result: ParsedBotFile,
  seen: BotsSeen,
  plugins: PluginCache,
  problems: BotFileProblem[],
): Promise<BotConfig | undefined> {
  const bot = result.bot;
  if (!bot) return undefined;
  const owner = seen.owners.get(bot.name);
  const before = problems.length;
  if (owner) {
    problems.push(
      result.problemAt({
        path: ["name"],
        at: "value",
        message: `"${bot.name}" is already the name of the bot in ${owner}; bot names must be unique`,
      }),
    );
  } else seen.owners.set(bot.name, result.file);
  if (bot.app) {
    const first = seen.appPlans.get(bot.app.consumer_key);
    if (!first) seen.appPlans.set(bot.app.consumer_key, { plan: bot.plan, file: result.file });
    else if (first.plan !== bot.plan) {
      problems.push(
        result.problemAt({
          path: ["plan"],
          at: "value",
          message: `the bot's app (app.consumer_key) is also the app of ${first.file}, which names the ${first.plan} plan; an app has one plan: give both the same`,
        }),
      );
    }
  }
  const resolved: ResolvedPlugin[] = [];
  for (const entry of bot.plugins) {
    const outcome = await resolvePlugin(entry.name, entry.options, plugins);
    if ("problems" in outcome)
      problems.push(
        ...outcome.problems.map((p) => result.problemAt({ ...p, path: ["plugins", entry.name, ...p.path] })),
      );
    else resolved.push(outcome);
  }
  return problems.length === before ? { ...bot, file: result.file, plugins: resolved } : undefined;
}

export interface LoadBotTextOptions {
  /** The name to show in problems: the file's path, or what stands for it (`POST /api/admin/bots`). */
  file: string;
  text: string;
  /** The environment `${VAR}` reads (from {@link loadEnv}, as `loadBots` reads it). */
  env: BotEnv;
  /**
   * The other bots of the fleet: the new one's name must differ, and its app's plan agree.
   * A list (the first to name an app sets its plan), or a lookup for a fleet too large to list.
   */
  others: readonly BotConfig[] | OtherBots;
  /** Where its plugins are found; one loader for many calls imports each plugin once. */
  plugins: PluginCache;
  /**
   * Bot files whose text must not carry the account's token (`account: {token,
   * token_secret}` other than `${VAR}`): a bot kept in the state, where no secret may be.
   */
  noSecrets?: boolean;
}

/**
 * One bot file's text checked exactly as {@link loadBots} checks each file of the bots
 * directory: its syntax, `${VAR}`, the schema, its plugins and their options, its name unique
 * and its app's plan agreeing among `others`. For a file that changed while `bot start` runs,
 * or a bot sent to the admin API. Never throws for anything in the text.
 */
export async function loadBotText(
  options: LoadBotTextOptions,
): Promise<{ bot?: BotConfig; problems: BotFileProblem[]; source?: string }> {
  const oversized = textSizeProblem(options.file, options.text);
  if (oversized) return { problems: [oversized] };
  const result = parseBotFile(options.file, options.text, options.env);
  const problems = [...result.problems];
  if (options.noSecrets && result.bot?.account.kind === "oauth1") {
    // As written, before `${VAR}` was read: a value that reads no variable is the secret itself.
    const written = parseDocument(options.text);
    const literal = (["token", "token_secret"] as const).find((key) => {
      const value = written.getIn(["account", key]);
      return typeof value === "string" && !value.includes("${");
    });
    if (literal)
      problems.push(
        result.problemAt({
          path: ["account", literal],
          at: "value",
          message: `a bot kept in the state must not carry its account's token in plain text (the state is no place for secrets); sign the account in (bot auth login --account NAME) and write account: {stored: NAME}, or read it from the environment with \${VAR}`,
        }),
      );
  }
  const bot =
    problems.length === 0 ? await checkBot(result, seenOf(options.others), options.plugins, problems) : undefined;
  if (!bot) return { problems: problems.sort(compareProblems) };
  return { bot, problems, source: sourceOf(result.data) };
}

/** What {@link loadBotSource} checks: a bot's kept data (./bot-source.ts) in place of its text. */
export interface LoadBotSourceOptions extends Omit<LoadBotTextOptions, "text" | "noSecrets"> {
  source: string;
  /** The text the data was read from, read only when a problem needs its line and column. */
  text(): string;
}

/**
 * A bot checked again from the data its text was read into (./bot-source.ts), as
 * {@link loadBotText} checks the text: the schema, its plugins and their options (a plugin
 * changed since), its name and its app's plan among `others`; without parsing the text.
 */
export async function loadBotSource(
  options: LoadBotSourceOptions,
): Promise<{ bot?: BotConfig; problems: BotFileProblem[] }> {
  const result = botFromData(options.file, options.text, options.env, dataOf(options.source));
  if (!result) return loadBotText({ ...options, text: options.text() });
  const problems: BotFileProblem[] = [];
  const bot = await checkBot(result, seenOf(options.others), options.plugins, problems);
  return { ...(bot ? { bot } : {}), problems: problems.sort(compareProblems) };
}

/** What {@link loadBotText}'s bot is checked against: `others`, as they are (its own claims go nowhere). */
function seenOf(others: readonly BotConfig[] | OtherBots): BotsSeen {
  if (!Array.isArray(others)) {
    const lookup = others as OtherBots;
    const ignored = () => undefined;
    return {
      owners: { get: (name) => lookup.fileOf(name), set: ignored },
      appPlans: { get: (key) => lookup.appOf(key), set: ignored },
    };
  }
  const seen = { owners: new Map<string, string>(), appPlans: new Map<string, { plan: string; file: string }>() };
  for (const other of others as readonly BotConfig[]) {
    seen.owners.set(other.name, other.file);
    if (other.app && !seen.appPlans.has(other.app.consumer_key))
      seen.appPlans.set(other.app.consumer_key, { plan: other.plan, file: other.file });
  }
  return seen;
}

/**
 * Each plugin is found and imported once, however many bots use it, until {@link reload}
 * (its file changed while `bot start` runs): then it is found and imported afresh.
 */
export class PluginCache {
  private readonly loaded = new Map<string, Promise<LoadedPlugin | undefined>>();
  /** How many times each plugin was reloaded: its next import is a module of its own. */
  private readonly changes = new Map<string, number>();
  constructor(
    readonly pluginsDir: string,
    readonly cwd: string,
  ) {}

  get(name: string): Promise<LoadedPlugin | undefined> {
    let entry = this.loaded.get(name);
    if (!entry) {
      const location = findPlugin(name, { pluginsDir: this.pluginsDir, projectDir: this.cwd });
      entry = location ? loadPlugin(location, this.changes.get(name) ?? 0) : Promise.resolve(undefined);
      this.loaded.set(name, entry);
    }
    return entry;
  }

  /** Forgets plugin `name`: the next {@link get} finds it again and imports its code as it is now. */
  reload(name: string): void {
    this.loaded.delete(name);
    this.changes.set(name, (this.changes.get(name) ?? 0) + 1);
  }
}

async function resolvePlugin(
  name: string,
  raw: unknown,
  cache: PluginCache,
): Promise<ResolvedPlugin | { problems: PathProblem[] }> {
  const loaded = await cache.get(name);
  if (!loaded) return { problems: [{ path: [], at: "key", message: unknownPluginMessage(name, cache) }] };
  if (!loaded.ok) return { problems: [{ path: [], at: "key", message: `plugin "${name}" ${loaded.message}` }] };
  const { definition, location } = loaded;
  const schema = definition.options;
  if (!schema) {
    const empty =
      raw === undefined ||
      raw === null ||
      (typeof raw === "object" && !Array.isArray(raw) && Object.keys(raw).length === 0);
    if (!empty)
      return {
        problems: [
          { path: [], at: "key", message: `plugin "${name}" takes no options; leave its value empty (${name}: {})` },
        ],
      };
    return { name, options: {}, definition, ...origin(location) };
  }
  let result: Awaited<ReturnType<typeof schema.safeParseAsync>>;
  try {
    result = await schema.safeParseAsync(raw, { error: errorMap } as Parameters<typeof schema.safeParseAsync>[1]);
  } catch (error) {
    return {
      problems: [
        {
          path: [],
          at: "key",
          message: `plugin "${name}" (${location.label}) failed while checking its options: ${(error as Error)?.message ?? String(error)}`,
        },
      ],
    };
  }
  if (!result.success) return { problems: explainIssues(result.error.issues, schema) };
  return { name, options: result.data, definition, ...origin(location) };
}

function origin(location: LoadedPlugin["location"]): Pick<ResolvedPlugin, "source" | "shadows"> {
  return { source: location.label, ...(location.shadows ? { shadows: location.shadows } : {}) };
}

/**
 * One line per project plugin that replaces a built-in of its name, with the bots that use
 * it: `bot start` logs it once, `bot validate` prints it (a plugin named like a built-in
 * by chance would otherwise go unnoticed).
 */
export function shadowNotes(bots: readonly BotConfig[]): string[] {
  const users = new Map<string, { source: string; bots: string[] }>();
  for (const bot of bots)
    for (const plugin of bot.plugins) {
      if (!plugin.shadows) continue;
      const entry = users.get(plugin.name) ?? { source: plugin.source, bots: [] };
      entry.bots.push(bot.name);
      users.set(plugin.name, entry);
    }
  return [...users].map(
    ([name, { source, bots }]) =>
      `${source} replaces the built-in plugin "${name}" for ${bots.join(", ")} (a project's plugins/ comes first; rename it to use both)`,
  );
}

function unknownPluginMessage(name: string, cache: PluginCache): string {
  const suggestion = didYouMean(name, [...localPluginNames(cache.pluginsDir, cache.cwd), ...BUILT_IN_PLUGINS]);
  const local = localCandidates(name);
  const dir = cache.pluginsDir.replace(/\/+$/, "");
  const places = local.length > 0 ? `${dir}/${name}.{ts,js,mts,mjs}, ${dir}/${name}/index.{ts,js}, ` : "";
  const packages = packageCandidates(name).join(", ");
  const looked = `ooked for ${places}the built-in plugins (${BUILT_IN_PLUGINS.join(", ")}) and the npm packages ${packages}`;
  return suggestion
    ? `unknown plugin "${name}"; did you mean "${suggestion}"? L${looked}`
    : `unknown plugin "${name}"; l${looked}`;
}
