/**
 * What `bot validate` warns about in how bots use their plugins, beyond what their schemas
 * refuse: mistakes that pass validation and then cost a user an afternoon.
 *
 * - A plugin whose options schema is a plain `z.object` drops a key it does not know, so a
 *   typo in a bot file (`shout: { tims: 2 }`) is silently ignored; `z.strictObject` makes it
 *   a problem at its line.
 * - Two plugins of one bot handling mentions (or replies to its posts): a post gets one
 *   answer, from the first listed, and the other's reply resolves `duplicate` every time.
 *   Which events a plugin handles is known only from its `setup`, so each is run against a
 *   stand-in bot that records what it registers and can do nothing else (no service, no
 *   state, no model; `bot.models` says where the service is, as at start).
 *
 * And one problem: a setup that throws against that stand-in ({@link setupProblems}). It
 * would throw at `bot start` too, where its bot does not start (the others do), so `bot
 * validate` says it and exits 1. A setup that does not finish in a moment is left to `bot
 * start`; one that needs the service or the state to set up is not one `bot validate` can
 * check (it fails here too: set up from the handlers instead, when the first event comes).
 */
import { systemClock } from "../clock.ts";
import { z } from "zod";
import type { BotConfig, BotFileProblem, ResolvedPlugin } from "../config/index.ts";
import { silentLogger } from "../log.ts";
import type { EventName, PluginBot } from "../plugins/plugin.ts";
import { ReviewQueue } from "../plugins/review-queue.ts";
import { createMemoryStore } from "../store/store.ts";

/** Events a plugin handles by answering the post: two plugins on one of these answer twice. */
const ANSWERED: ReadonlyArray<{ event: EventName; what: string }> = [
  { event: "mention", what: "mentions" },
  { event: "reply", what: "replies to the bot's posts" },
];

/** How long a plugin's setup may take in `bot validate` before it is left alone. */
const SETUP_MS = 2_000;

type JsonSchema = { type?: string; additionalProperties?: unknown; anyOf?: JsonSchema[]; oneOf?: JsonSchema[] };

/** Whether options of this schema may carry keys it does not name, dropped without a word (`z.object`). */
export function dropsUnknownKeys(schema: z.ZodType): boolean {
  let json: JsonSchema;
  try {
    json = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as JsonSchema;
  } catch {
    return false; // a schema JSON Schema cannot show: nothing to say about it
  }
  const objects = [json, ...(json.anyOf ?? []), ...(json.oneOf ?? [])].filter((s) => s.type === "object");
  return objects.some((s) => s.additionalProperties === undefined);
}

/** One warning per plugin (by its source) whose options schema drops unknown keys. */
export function looseOptionWarnings(bots: readonly BotConfig[]): string[] {
  const seen = new Map<string, ResolvedPlugin>();
  for (const bot of bots) for (const p of bot.plugins) if (!seen.has(p.source)) seen.set(p.source, p);
  return [...seen.values()]
    .filter((p) => p.definition.options && dropsUnknownKeys(p.definition.options as z.ZodType))
    .map(
      (p) =>
        `${p.source}: warning: plugin "${p.name}" ignores options it does not know (its schema is z.object), so a misspelt option in a bot file is dropped without a word; use z.strictObject`,
    );
}

/** What a plugin's setup did against the stand-in: the events it registers handlers for, or what it threw; neither when it took too long. */
interface SetupRun {
  plugin: ResolvedPlugin;
  events?: Set<EventName>;
  error?: unknown;
}

/** Each bot's plugins' setups, run against stand-ins once (see the module comment), by bot. */
export type SetupRuns = ReadonlyMap<BotConfig, readonly SetupRun[]>;

/** Runs every plugin's setup of every bot against a stand-in; `serviceUrl` is what `bot.models` says of the service. */
export async function runSetups(bots: readonly BotConfig[], serviceUrl: string): Promise<SetupRuns> {
  const runs = new Map<BotConfig, SetupRun[]>();
  for (const bot of bots) runs.set(bot, await Promise.all(bot.plugins.map((p) => setupOnce(bot, p, serviceUrl))));
  return runs;
}

/** One problem per plugin whose setup threw: `bot start` would not start its bot. */
export function setupProblems(runs: SetupRuns): BotFileProblem[] {
  const problems: BotFileProblem[] = [];
  for (const [bot, list] of runs)
    for (const run of list)
      if (run.error !== undefined)
        problems.push({
          file: bot.file,
          key: `plugins.${run.plugin.name}`,
          message: `plugin "${run.plugin.name}" (${run.plugin.source}) failed in its setup: ${(run.error as Error)?.message ?? String(run.error)}; bot start would not start bot ${bot.name} (bot validate runs each setup against a stand-in bot: no service, no state)`,
        });
  return problems;
}

/** What `plugin`'s setup did against a stand-in bot (see {@link SetupRun}). */
async function setupOnce(bot: BotConfig, plugin: ResolvedPlugin, serviceUrl: string): Promise<SetupRun> {
  const events = new Set<EventName>();
  const kept = new Map<string, unknown>();
  const standIn: PluginBot = {
    name: bot.name,
    identity: { name: bot.name, userId: "0", username: bot.name, plan: bot.plan },
    log: silentLogger,
    clock: systemClock,
    store: {
      get: <T>(key: string) => kept.get(key) as T | undefined,
      set: (key, value) => void kept.set(key, value),
      delete: (key) => void kept.delete(key),
    },
    review: new ReviewQueue(createMemoryStore(), bot.name),
    models: { bot: bot.name, clock: systemClock, serviceUrl },
    on: (event) => void events.add(event),
    filter: () => {},
    dialog: (name) => ({
      name,
      start: async () => ({ started: false, reason: "stopped" }),
      state: () => undefined,
    }),
  };
  let timer: NodeJS.Timeout | undefined;
  try {
    const setup = Promise.resolve(plugin.definition.setup(standIn as never, plugin.options as never));
    const late = new Promise<"late">((resolve) => (timer = setTimeout(() => resolve("late"), SETUP_MS)));
    if ((await Promise.race([setup, late])) === "late") return { plugin };
    return { plugin, events };
  } catch (error) {
    return { plugin, error };
  } finally {
    clearTimeout(timer);
  }
}

/** One warning per bot and event that two or more of its plugins answer. */
export function sharedEventWarnings(runs: SetupRuns): string[] {
  const warnings: string[] = [];
  for (const [bot, handled] of runs) {
    for (const { event, what } of ANSWERED) {
      const names = handled.filter((h) => h.events?.has(event)).map((h) => h.plugin.name);
      if (names.length < 2) continue;
      const [first, ...others] = names;
      warnings.push(
        `${bot.file}: warning: bot ${bot.name} has ${names.length} plugins handling ${what} (${names.join(", ")}): if they all answer, a post gets one answer, from ${first} (listed first), and the reply of ${others.join(" and ")} resolves "duplicate"; keep one, or filter in each handler`,
      );
    }
  }
  return warnings;
}
