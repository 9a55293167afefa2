/**
 * How a bot file's triggers become the engine's (src/runtime/bot-triggers.ts): each poll no
 * faster than the plan allows for all the bots sharing the app's window, mentions through
 * the app's stream when the plan has one (unless the bot asks to poll), and a warning when a
 * plugin handles events that no trigger of the bot will bring.
 */
import {
  fastestDmsIntervalMs,
  fastestFollowersIntervalMs,
  fastestMentionIntervalMs,
  planHasStream,
  type BotConfig,
} from "../config/index.ts";
import type { TriggerSpecs } from "../runtime/bot-triggers.ts";
import { TRIGGER_OF, type EventName, type TriggerName } from "../triggers/events.ts";
import type { FleetBot, HostedBot } from "./types.ts";

/** Whether a bot's mentions come through its app's stream (the plan has one, and the bot did not ask to poll). */
export function mentionsVia(hosted: FleetBot): "poll" | "stream" {
  const mentions = hosted.config.triggers.mentions;
  return mentions && mentions.via !== "poll" && planHasStream(hosted.app.plan) ? "stream" : "poll";
}

/** Whether the bot file has this trigger. */
export const hasTrigger = (config: Pick<BotConfig, "triggers">, trigger: TriggerName) =>
  trigger === "mentions" || trigger === "followers" || trigger === "dms"
    ? !!config.triggers[trigger]
    : config.triggers[trigger].length > 0;

/** How many bots of an app poll an endpoint (they share its A window): counted once for all bots. */
export type PollerCount = (appId: string, trigger: "mentions" | "followers") => number;

/** {@link PollerCount} of `bots`. */
export function pollerCounts(bots: readonly FleetBot[]): PollerCount {
  const tally = new PollerTally();
  for (const b of bots) tally.add(b);
  return tally.counts();
}

/**
 * The pollers of each app, kept as bots come and go: at each change of a fleet of 10,000 one
 * bot is counted, not all of them again.
 */
export class PollerTally {
  private readonly byApp = new Map<string, { mentions: number; followers: number }>();

  /** A bot came (`sign` -1: it left, as it was counted). */
  add(bot: FleetBot, sign: 1 | -1 = 1): void {
    const mentions = hasTrigger(bot.config, "mentions") && mentionsVia(bot) === "poll";
    const followers = hasTrigger(bot.config, "followers");
    if (!mentions && !followers) return;
    let app = this.byApp.get(bot.app.id);
    if (!app) this.byApp.set(bot.app.id, (app = { mentions: 0, followers: 0 }));
    if (mentions) app.mentions += sign;
    if (followers) app.followers += sign;
  }

  /** The counts as they are now (later changes do not move them). */
  counts(): PollerCount {
    const now = new Map([...this.byApp].map(([id, c]) => [id, { ...c }]));
    return (appId, trigger) => now.get(appId)?.[trigger] ?? 0;
  }
}

/**
 * The engine's triggers for a bot: its file's, each poll at the file's interval or the
 * fastest its plan allows for the bots sharing the app's window, whichever is slower.
 */
export function triggerSpecs(hosted: HostedBot, pollers: PollerCount, via: "poll" | "stream"): TriggerSpecs {
  const { config, app } = hosted;
  const { mentions, followers, dms, schedule } = config.triggers;
  // `schedules` first: an object literal that starts with a spread gets a hidden class of its
  // own in V8 (a few hundred bytes for each of 10,000 bots).
  return {
    schedules: schedule,
    ...(mentions
      ? {
          mentions: {
            intervalMs: Math.max(
              mentions.interval ?? 0,
              fastestMentionIntervalMs(app.plan, pollers(app.id, "mentions")),
            ),
            backfillMs: mentions.backfill,
            via,
          },
        }
      : {}),
    ...(followers
      ? {
          followers: {
            intervalMs: Math.max(
              followers.interval ?? 0,
              fastestFollowersIntervalMs(app.plan, pollers(app.id, "followers")),
            ),
          },
        }
      : {}),
    // Each bot polls its DMs in its own (user) window: no share of the app's to divide.
    ...(dms
      ? {
          dms: {
            intervalMs: Math.max(dms.interval ?? 0, fastestDmsIntervalMs(app.plan)),
            backfillMs: dms.backfill,
          },
        }
      : {}),
  };
}

/** How a bot file asks for each trigger (for the warning when a plugin's events have none). */
const TRIGGER_YAML: Record<TriggerName, string> = {
  mentions: "triggers: { mentions: {} }",
  followers: "triggers: { followers: {} }",
  dms: "triggers: { dms: {} }",
  stream: 'triggers: { stream: [{ value: "..." }] }',
  schedule: 'triggers: { schedule: [{ name: ..., cron: "..." }] }',
};

/** What to warn of: each event some plugin of the bot handles that no trigger of its file brings. */
export function unheardEvents(config: BotConfig, handles: (event: EventName) => boolean): string[] {
  const lines: string[] = [];
  for (const [event, trigger] of Object.entries(TRIGGER_OF) as Array<[EventName, TriggerName]>) {
    // No DMs on free: adding the trigger is no advice there (a dialog also answers in threads).
    if (trigger === "dms" && config.plan === "free") continue;
    if (handles(event) && !hasTrigger(config, trigger))
      lines.push(
        `a plugin handles "${event}" events but the bot has no ${trigger} trigger, so none will come; add ${TRIGGER_YAML[trigger]} to ${config.file}`,
      );
  }
  return lines;
}
