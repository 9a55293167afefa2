/**
 * The bot file: one zod schema that is the single source of truth for what a bot YAML may
 * say. The loader validates with it, `bot schema` exports it as JSON Schema for editors,
 * and its output type is what the runtime receives: durations in milliseconds, the budget
 * reserve as a fraction, plugins as an ordered list.
 *
 * Choices where the design leaves room (each written once, here):
 *
 * - `account` may be omitted or be `{stored: NAME}`: the token pair saved by
 *   `bot auth login --account NAME` in the state store is used, so secrets need not appear
 *   even as `${VAR}`. Omitted means `{stored: <bot name>}`; the embedded sandbox creates
 *   that account itself, so demo bots need no credentials at all.
 * - A mentions `interval` faster than the plan allows is an error, not a warning: the
 *   budget could never honour it, and a silent slowdown would hide the mistake.
 * - `reply_to_bots` (default false) and `reply_cooldown` (default 15m; `0s` turns it off)
 *   are top-level: they guard against reply loops, which is safety, not budget.
 * - Plugin options left empty (`like:`) mean `{}`, so a plugin whose options all have
 *   defaults needs nothing after its name.
 */
import { z } from "zod";
import type { ActionKind } from "../actions/action.ts";
import { ACTION_KINDS } from "../actions/kinds.ts";
import { PLANS, type Plan } from "../limits/index.ts";
import { checkSchedule } from "../triggers/schedule.ts";
import { DURATION_HINT, DURATION_PATTERN, formatDuration, parseDuration } from "./duration.ts";
import { cronProblem } from "./cron-message.ts";
import { showValue, valueError } from "./messages.ts";
import {
  fastestDmsIntervalMs,
  fastestFollowersIntervalMs,
  fastestMentionIntervalMs,
  planHasDms,
  planHasStream,
} from "./plan-rules.ts";

/** Bot names: lower-case letters, digits and dashes (they prefix stream rule tags and log lines). */
export const BOT_NAME_PATTERN = /^[a-z0-9][a-z0-9-]*$/;

/**
 * Plugin names as bot files use them: a local plugin's file name, or an npm package name
 * (scoped or not). They start with a letter (or `@`) so that no name looks like an array
 * index, which would reorder them in a JavaScript object.
 */
export const PLUGIN_NAME_PATTERN = /^(@[a-z0-9][a-z0-9._-]*\/)?[a-z][a-z0-9._-]*$/;

/**
 * The actions a plugin can take, each of which a bot file may cap in `budget`: the action
 * layer's kinds, so a new kind is cappable without touching the schema.
 */
export const ACTION_NAMES = Object.keys(ACTION_KINDS) as ActionKind[];

/** Defaults a bot file may leave out. */
export const DEFAULTS = {
  backfill: "1h",
  replyCooldown: "15m",
} as const;

const text = (what: string) =>
  z.string({ error: valueError(what) }).min(1, { error: `must not be empty; give ${what}` });

const notDuration = valueError(
  `a duration (${DURATION_HINT})`,
  (shown) => `${shown} is not a duration; ${DURATION_HINT}`,
);

function duration(description: string, minMs = 0) {
  return z
    .string({ error: notDuration })
    .regex(DURATION_PATTERN, { error: notDuration })
    .transform((value, ctx) => {
      const ms = parseDuration(value)!;
      if (ms < minMs) {
        ctx.issues.push({
          code: "custom",
          input: value,
          message: `${showValue(value)} is too short; the least allowed is ${formatDuration(minMs)}`,
        });
        return z.NEVER;
      }
      return ms;
    })
    .meta({ description: `${description} (${DURATION_HINT})` });
}

const botName = z
  .string({ error: valueError("a name (lower-case letters, digits and dashes)") })
  .max(60, { error: "is too long; use at most 60 characters" })
  .regex(BOT_NAME_PATTERN, {
    error: (iss) =>
      `${showValue(iss.input)} is not a valid name; use lower-case letters, digits and dashes (a-z, 0-9, -), starting with a letter or digit`,
  });

const account = z
  .strictObject({
    token: text("the account's OAuth 1.0a access token").optional().meta({
      description: "OAuth 1.0a access token of the bot's account; write ${VAR} to read it from the environment",
    }),
    token_secret: text("the access token's secret")
      .optional()
      .meta({ description: "OAuth 1.0a access token secret; write ${VAR} to read it from the environment" }),
    stored: botName
      .optional()
      .meta({ description: "An account saved by `bot auth login --account NAME` in the state store" }),
  })
  .superRefine((value, ctx) => {
    const hasPair = value.token !== undefined || value.token_secret !== undefined;
    if (value.stored !== undefined && hasPair) {
      ctx.addIssue({
        code: "custom",
        path: ["stored"],
        input: value.stored,
        message: "give either token and token_secret, or stored, not both",
      });
      return;
    }
    if (value.stored !== undefined) return;
    if (value.token === undefined)
      ctx.addIssue({
        code: "custom",
        path: ["token"],
        input: undefined,
        message:
          "is required with token_secret (or write stored: NAME to use an account saved by `bot auth login --account NAME`)",
      });
    if (value.token_secret === undefined)
      ctx.addIssue({
        code: "custom",
        path: ["token_secret"],
        input: undefined,
        message: "is required with token (the secret that `bot auth login` printed with it)",
      });
  })
  .transform(
    (value): AccountRef =>
      value.stored !== undefined
        ? { kind: "stored", stored: value.stored }
        : { kind: "oauth1", token: value.token!, token_secret: value.token_secret! },
  )
  .meta({
    description:
      "The bot's account: {token, token_secret} (OAuth 1.0a user context) or {stored: NAME} (saved by `bot auth login --account NAME`). Omitted: the stored account named like the bot.",
  });

const plan = z
  .enum(PLANS as [Plan, ...Plan[]], {
    error: valueError(
      `a plan: one of ${PLANS.join(", ")}`,
      (shown) => `${shown} is not a plan; use one of ${PLANS.join(", ")}`,
    ),
  })
  .meta({ description: "The app's plan: picks the limit table of the spec's part 8" });

const app = z
  .strictObject({
    consumer_key: text("the app's API key").meta({
      description: "The app's API key (consumer key); write ${VAR} to read it from the environment",
    }),
    consumer_secret: text("the app's API key secret").meta({
      description: "The app's API key secret; write ${VAR} to read it from the environment",
    }),
    plan: plan
      .optional()
      .meta({ description: "The app's plan; when given, it must be the bot's `plan` (an app has one plan)" }),
  })
  .meta({
    description:
      "The app this bot's account belongs to, when not the environment's (POSTBOT_CONSUMER_KEY): each app has its own windows, bearer token and stream connection. All bots naming one API key must name the same plan.",
  });

/** The app a bot file names (`app:`); absent: the environment's app. */
export type AppRef = z.output<typeof app>;

/** How the runtime finds a bot's user credentials. */
export type AccountRef = { kind: "oauth1"; token: string; token_secret: string } | { kind: "stored"; stored: string };

const mentions = z
  .strictObject({
    interval: duration(
      "How often to poll the mention timeline; default: the fastest the plan allows",
      1_000,
    ).optional(),
    backfill: duration("How far back the very first poll reaches", 1_000).prefault(DEFAULTS.backfill),
    via: z
      .enum(["poll", "stream"], {
        error: valueError("poll or stream", (shown) => `${shown} is not a way to get mentions; use poll or stream`),
      })
      .optional()
      .meta({
        description:
          "How mentions arrive: `stream` (the app's filtered stream, with one catch-up poll at start and after each reconnect; the default on plans with a stream) or `poll` (the mention timeline at the interval; the default on the others)",
      }),
  })
  .meta({
    description:
      "The bot's mentions (`mentions: {}` for the defaults): through the app's stream on plans that have one, else by polling the mention timeline",
  });

const followers = z
  .strictObject({
    interval: duration("How often to look for new followers; default: the fastest the plan allows", 1_000).optional(),
  })
  .meta({
    description: "Poll the bot's followers for new ones (the `follow` event; `followers: {}` for the defaults)",
  });

const dms = z
  .strictObject({
    interval: duration(
      "How often to look for new direct messages; default: the fastest the plan allows (pro: every minute, basic: once a day)",
      1_000,
    ).optional(),
    backfill: duration("How far back the very first look reaches", 1_000).prefault(DEFAULTS.backfill),
  })
  .meta({
    description:
      "The direct messages people send the bot (the `dm` event; `dms: {}` for the defaults), polled within the bot's own window; needs a plan with DM lookup (basic or pro)",
  });

const streamRule = z
  .strictObject({
    value: text('the rule (e.g. "#askgreeter -is:repost")').meta({ description: "The filtered-stream rule" }),
    tag: text("a tag for the rule")
      .optional()
      .meta({ description: "Tells handlers which rule matched (ctx.rule.tag)" }),
  })
  .meta({ description: "A filtered-stream rule of this bot" });

const schedule = z
  .strictObject({
    name: text("a name for the schedule").meta({
      description: "Tells handlers which schedule fired (ctx.schedule.name)",
    }),
    cron: text('a cron expression (e.g. "0 9 * * *")').meta({
      description: "Cron expression: 5 fields (minute hour day-of-month month day-of-week), or 6 with seconds first",
    }),
    timezone: text("an IANA time zone (e.g. Europe/Berlin)")
      .optional()
      .meta({ description: "IANA time zone (default: the process's)" }),
  })
  .superRefine((value, ctx) => {
    const problem = cronProblem(value.cron);
    if (problem) {
      ctx.addIssue({ code: "custom", path: ["cron"], input: value.cron, message: problem });
      return;
    }
    const zoneProblem = checkSchedule(value);
    if (zoneProblem) ctx.addIssue({ code: "custom", path: ["timezone"], input: value.timezone, message: zoneProblem });
  });

const triggers = z
  .strictObject({
    mentions: mentions.optional(),
    followers: followers.optional(),
    dms: dms.optional(),
    stream: z
      .array(streamRule)
      .default([])
      .meta({ description: "Filtered-stream rules; needs a plan with stream access (pro)" }),
    schedule: z
      .array(schedule)
      .default([])
      .superRefine((entries, ctx) => {
        const seen = new Set<string>();
        entries.forEach((entry, index) => {
          if (seen.has(entry.name))
            ctx.addIssue({
              code: "custom",
              path: [index, "name"],
              input: entry.name,
              message: `${showValue(entry.name)} is already the name of another schedule of this bot; names must differ`,
            });
          seen.add(entry.name);
        });
      })
      .meta({ description: "Cron schedules (the `schedule` event)" }),
  })
  .meta({ description: "What wakes the bot: mentions, new followers, direct messages, stream rules, schedules" });

const pluginName = z.string().regex(PLUGIN_NAME_PATTERN, {
  error: (iss) =>
    `${showValue(iss.input)} is not a plugin name; use a plugin file's name (reply for plugins/reply.ts) or an npm package name`,
});

const plugins = z
  .record(pluginName, z.unknown())
  .default({})
  .transform((entries) =>
    Object.entries(entries).map(([name, options]) => ({ name, options: (options ?? {}) as unknown })),
  )
  .meta({
    description: "Plugin name -> its options (checked by the plugin's own schema). Handlers run in this order.",
  });

const notPercent = valueError(
  "a percentage such as 10%",
  (shown) => `${shown} is not a percentage; write it with a % sign, e.g. 10%`,
);
const percent = z
  .string({ error: notPercent })
  .regex(/^\d+(\.\d+)?%$/, { error: notPercent })
  .transform((value, ctx) => {
    const fraction = Number(value.slice(0, -1)) / 100;
    if (fraction >= 1) {
      ctx.issues.push({
        code: "custom",
        input: value,
        message: `${showValue(value)} would keep the whole budget unused; use less than 100%`,
      });
      return z.NEVER;
    }
    return fraction;
  });

const cap = z
  .strictObject({
    max: z
      .number({ error: valueError("a whole number (0 turns the action off)") })
      .int({ error: valueError("a whole number (0 turns the action off)") })
      .min(0, { error: (iss) => `${showValue(iss.input)} is negative; use 0 or more (0 turns the action off)` }),
    per: duration("The window the cap counts in", 1_000),
  })
  .meta({ description: "At most `max` of this action in any `per` interval" });

const wholeAtLeastOne = (what: string) =>
  z
    .number({ error: valueError(`a whole number of ${what}`) })
    .int({ error: valueError(`a whole number of ${what}`) })
    .min(1, {
      error: (iss) => `${showValue(iss.input)} is too few; use 1 or more ${what} (leave it out for no limit)`,
    });

/**
 * `budget.llm`: what the bot's language model may use (the `llm-reply` plugin). `tokens` (prompt
 * and answer, from each answer's `usage`) in any `per` (default 24h); `requests` in any `per`
 * too, or in any minute with `per_minute: true`. Each left out: no limit of that kind.
 */
const llmBudget = z
  .strictObject({
    tokens: wholeAtLeastOne("tokens")
      .optional()
      .meta({ description: "Tokens (prompt and answer) at most in any `per`" }),
    per: duration("The window tokens (and requests, unless per_minute) are counted in; default 24h", 60_000).optional(),
    requests: wholeAtLeastOne("requests")
      .optional()
      .meta({ description: "Requests to the model at most in any `per` (or minute, with per_minute: true)" }),
    per_minute: z
      .boolean({ error: valueError("true or false") })
      .default(false)
      .meta({ description: "true: `requests` is counted per minute, not per `per`" }),
  })
  .transform((b) => {
    const per = b.per ?? 24 * 3_600_000;
    return { tokens: b.tokens, tokensPerMs: per, requests: b.requests, requestsPerMs: b.per_minute ? 60_000 : per };
  })
  .meta({ description: "What the bot's language model may use (llm-reply): tokens and requests per window" });

const budget = z
  .strictObject({
    reserve: percent.prefault("0%").meta({ description: "Share of every plan window kept unused, e.g. 10%" }),
    ...(Object.fromEntries(ACTION_NAMES.map((action) => [action, cap.optional()])) as Record<
      ActionKind,
      z.ZodOptional<typeof cap>
    >),
    llm: llmBudget.optional(),
  })
  .meta({ description: "Limits stricter than the plan's" });

/** Sessions: what the bot's plugins keep per user (`ctx.session`, src/plugins/dialogs/durable-scope.ts). */
const session = z
  .strictObject({
    ttl: duration(
      "A user's session unchanged for this long is forgotten: the next event of that user starts a new one; default: kept",
      60_000,
    ).optional(),
    max_bytes: z
      .number({ error: valueError("a number of bytes") })
      .int({ error: "must be a whole number of bytes" })
      .min(256, { error: "must be at least 256 (bytes)" })
      .max(1_048_576, { error: "must be at most 1048576 (1 MiB); keep large data out of sessions" })
      .default(8192)
      .meta({
        description:
          "The most bytes one plugin's session of one user may take as JSON (default 8192); a handler that makes it larger is refused",
      }),
  })
  .meta({ description: "Per-user sessions of the bot's plugins (ctx.session)" });

/**
 * The bot file schema. Parse with the loader (src/config/load-bot-file.ts), which adds
 * file:line:col positions and `${VAR}` interpolation; this schema sees plain data.
 */
export const botFileSchema = z
  .strictObject({
    name: botName.meta({ description: "Unique among the bot files; lower-case letters, digits and dashes" }),
    account: account.optional(),
    plan,
    app: app.optional(),
    triggers: triggers.prefault({}),
    plugins,
    budget: budget.prefault({}),
    reply_to_bots: z
      .boolean({ error: valueError("true or false") })
      .default(false)
      .meta({
        description:
          "Whether the bot may reply to itself or to other bots of the same process (reply loops get accounts suspended)",
      }),
    reply_cooldown: duration(
      "The bot never replies twice in one conversation within this time; 0s turns it off",
    ).prefault(DEFAULTS.replyCooldown),
    session: session.optional(),
  })
  .superRefine((bot, ctx) => {
    if (bot.app?.plan !== undefined && bot.app.plan !== bot.plan) {
      ctx.addIssue({
        code: "custom",
        path: ["app", "plan"],
        input: bot.app.plan,
        message: `the app's plan (${bot.app.plan}) differs from the bot's plan (${bot.plan}); an app has one plan: make them the same, or leave app.plan out`,
      });
    }
    if (bot.triggers.mentions?.via === "stream" && !planHasStream(bot.plan)) {
      ctx.addIssue({
        code: "custom",
        path: ["triggers", "mentions", "via"],
        input: "stream",
        message: `the ${bot.plan} plan has no filtered stream, so mentions cannot come through it; write via: poll or leave via out`,
      });
    }
    if (bot.triggers.stream.length > 0 && !planHasStream(bot.plan)) {
      ctx.addIssue({
        code: "custom",
        path: ["triggers", "stream"],
        input: bot.triggers.stream,
        message: `the ${bot.plan} plan has no filtered stream, so stream rules cannot run; remove them or use the pro plan`,
      });
    }
    if (bot.triggers.dms && !planHasDms(bot.plan)) {
      ctx.addIssue({
        code: "custom",
        path: ["triggers", "dms"],
        input: bot.triggers.dms,
        message: `the ${bot.plan} plan has no DM lookup, so no direct message can be read; remove dms or use the basic plan (DMs checked once a day) or pro (every minute)`,
      });
    }
    const polled = [
      ["mentions", bot.triggers.mentions?.interval, fastestMentionIntervalMs(bot.plan)],
      ["followers", bot.triggers.followers?.interval, fastestFollowersIntervalMs(bot.plan)],
      ...(planHasDms(bot.plan) ? [["dms", bot.triggers.dms?.interval, fastestDmsIntervalMs(bot.plan)] as const] : []),
    ] as const;
    for (const [trigger, interval, fastest] of polled) {
      if (interval !== undefined && interval < fastest) {
        ctx.addIssue({
          code: "custom",
          path: ["triggers", trigger, "interval"],
          input: formatDuration(interval),
          message: `${formatDuration(interval)} is faster than the ${bot.plan} plan allows; use ${formatDuration(fastest)} or more, or leave interval out to poll at the fastest allowed`,
        });
      }
    }
  })
  .transform((bot) => ({ ...bot, account: bot.account ?? ({ kind: "stored", stored: bot.name } as AccountRef) }))
  .meta({
    title: "postbot bot file",
    description:
      "One bot of postbot: its account, plan, triggers, plugins and budget. Write ${VAR} or ${VAR:-default} to read the environment.",
  });

/** A bot file after validation: typed values (durations in ms, reserve as a fraction). */
export type BotFile = z.output<typeof botFileSchema>;
/** A bot file as written (what editors complete). */
export type BotFileInput = z.input<typeof botFileSchema>;

/** Plugin name → its options schema (undefined for a plugin that takes none). */
export type PluginOptionSchemas = Readonly<Record<string, z.ZodType | undefined>>;

/**
 * The JSON Schema of bot files (draft 2020-12), describing what users write: it is what
 * `bot schema` prints and what `bot.schema.json` holds. Point an editor at it with a first
 * line `# yaml-language-server: $schema=../bot.schema.json`.
 *
 * Each plugin given has its options checked too (from its zod schema, as the plugin reads
 * them), so an editor flags `reply: { text: 42 }`; other names (npm plugins) stay open.
 */
export function botJsonSchema(plugins: PluginOptionSchemas = {}): Record<string, unknown> {
  const schema = z.toJSONSchema(botFileSchema, { io: "input", unrepresentable: "any" }) as {
    properties: Record<string, Record<string, unknown>>;
  };
  const names = Object.keys(plugins).sort();
  if (names.length > 0) {
    schema.properties.plugins!.properties = Object.fromEntries(
      names.map((name) => {
        const options = plugins[name];
        // Options left empty (`like:`) mean {}.
        const given = options ? toOptionsSchema(options) : { type: "object", maxProperties: 0 };
        return [name, { anyOf: [given, { type: "null" }], description: `Options of the plugin ${name}` }];
      }),
    );
  }
  return schema as unknown as Record<string, unknown>;
}

/** A plugin's options schema as JSON Schema, without its own `$schema` line. */
function toOptionsSchema(options: z.ZodType): Record<string, unknown> {
  const { $schema: _, ...rest } = z.toJSONSchema(options, { io: "input", unrepresentable: "any" }) as Record<
    string,
    unknown
  >;
  return rest;
}

/** {@link botJsonSchema} as `bot schema` prints it and `bot.schema.json` stores it. */
export function botJsonSchemaText(plugins: PluginOptionSchemas = {}): string {
  return `${JSON.stringify(botJsonSchema(plugins), null, 2)}\n`;
}
