/**
 * Capacity said out loud: how many bots share which of an app's windows, and what that
 * means for each of them. A thousand bots polling mentions on basic are each polled every
 * 16 hours, which no one expects from "mentions: {}"; saying it at start (one log line per
 * app and shared endpoint) and in `bot status` is what makes the choice of plan or of
 * `via: stream` an informed one. Derived from the limit table through ../config/plan-rules.ts,
 * never restated.
 */
import {
  fastestDmsIntervalMs,
  fastestFollowersIntervalMs,
  fastestMentionIntervalMs,
  planHasDms,
  planHasStream,
} from "../config/plan-rules.ts";
import { STREAM_RULE_CAPS } from "../limits/stream-rules.ts";
import type { Plan } from "../limits/types.ts";
import { mentionsVia } from "./trigger-plan.ts";
import type { FleetBot, HostedBot } from "./types.ts";

/** How the bots of one app use its shared windows. */
export interface AppLoad {
  appId: string;
  plan: Plan;
  /** Bots polling their mention timeline. */
  mentionsPolled: number;
  /** Bots whose mentions come through the app's stream. */
  mentionsStreamed: number;
  /** Bots polling their followers. */
  followers: number;
  /** Bots polling their direct messages (each in its own window; absent: none). */
  dms?: number;
  /** Bots with stream rules of their own, and how many distinct rules they make. */
  streamBots: number;
  streamRules: number;
  /** The plan's cap on the app's rules. */
  ruleCap?: number;
}

/**
 * What the bots of one app (`hosted`, all of the same app) ask of it: their triggers, the
 * stream rules. `app` names the app when `hosted` may be empty (its last bot left).
 */
export function appLoad(hosted: readonly FleetBot[], app: HostedBot["app"] = hosted[0]!.app): AppLoad {
  const tally = new LoadTally(app);
  for (const h of hosted) tally.add(h);
  return tally.load();
}

/**
 * An app's {@link AppLoad} kept as its bots come and go: while the fleet changes, each change
 * counts one bot, not the app's 10,000 again (the others' mentions wait while it counts).
 */
export class LoadTally {
  private readonly counts = { mentionsPolled: 0, mentionsStreamed: 0, followers: 0, dms: 0, streamBots: 0 };
  /** Each rule value of the bots' own, with how many of them want it. */
  private readonly values = new Map<string, number>();

  constructor(private readonly app: HostedBot["app"]) {}

  /** A bot of the app came (`sign` -1: it left, as it was counted). */
  add(hosted: FleetBot, sign: 1 | -1 = 1): void {
    const { triggers } = hosted.config;
    const via = mentionsVia(hosted);
    if (triggers.mentions && via === "poll") this.counts.mentionsPolled += sign;
    if (via === "stream") this.counts.mentionsStreamed += sign;
    if (triggers.followers) this.counts.followers += sign;
    if (triggers.dms) this.counts.dms += sign;
    if (triggers.stream.length === 0) return;
    this.counts.streamBots += sign;
    for (const value of new Set(triggers.stream.map((r) => r.value))) {
      const wanting = (this.values.get(value) ?? 0) + sign;
      if (wanting > 0) this.values.set(value, wanting);
      else this.values.delete(value);
    }
  }

  load(): AppLoad {
    const caps = STREAM_RULE_CAPS[this.app.plan];
    return {
      appId: this.app.id,
      plan: this.app.plan,
      ...this.counts,
      streamRules: this.values.size,
      ...(caps ? { ruleCap: caps.maxRules } : {}),
    };
  }
}

/**
 * `45 s`, `90 s`, `2 min 30 s`, `6 min`, `16 h 40 min`: an interval as people read it, and
 * the one way every part of postbot says one (the start's log, `bot status`, `bot say
 * --wait`; the README and the example bot files say what it gives for the plans' limits).
 * Below an hour and a half it is exact, so a poll every 90 s is never said to be every 2 min.
 */
export function humanInterval(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 120) return `${s} s`;
  const whole = Math.floor(s / 60);
  if (whole < 90) return s % 60 ? `${whole} min ${s % 60} s` : `${whole} min`;
  const min = Math.round(s / 60);
  const h = Math.floor(min / 60);
  const rest = min % 60;
  return rest ? `${h} h ${rest} min` : `${h} h`;
}

/** `once a day`, `every minute`, `every 6 min`: how often a poll runs, as people say it. */
export function howOften(ms: number): string {
  if (ms === 86_400_000) return "once a day";
  if (ms === 3_600_000) return "once an hour";
  if (ms === 60_000) return "every minute";
  return `every ${humanInterval(ms)}`;
}

const bots = (n: number) => `${n.toLocaleString("en-US")} ${n === 1 ? "bot" : "bots"}`;
/** The verb agreeing with `n` bots: `poll` or `polls`. */
const verb = (n: number, plural: string) => (n === 1 ? `${plural}s` : plural);

/** What a capacity line is about: one per shared endpoint (and the stream's rules). */
type CapacityKind = "mentions-polled" | "mentions-streamed" | "followers" | "dms" | "stream-rules";

/** One line per shared endpoint of the app; empty when no bot shares anything. */
export function capacityLines(load: AppLoad): string[] {
  return capacityParts(load).map(([, line]) => line);
}

/**
 * What to log when an app's bots changed while it runs (a bot added, changed or removed): each
 * line that is new or different, with what it was, and each that no longer applies. Empty
 * when nothing the lines say changed.
 */
export function capacityChanges(before: AppLoad | undefined, after: AppLoad): string[] {
  const was = new Map(before ? capacityParts(before) : []);
  const now = new Map(capacityParts(after));
  const out: string[] = [];
  for (const [kind, line] of now) {
    const old = was.get(kind);
    if (old !== line) out.push(old === undefined ? `capacity now: ${line}` : `capacity now: ${line} (was: ${old})`);
  }
  for (const [kind, line] of was)
    if (!now.has(kind)) out.push(`capacity now: no bot of app ${after.appId} does this any more (was: ${line})`);
  return out;
}

function capacityParts(load: AppLoad): Array<[CapacityKind, string]> {
  const { plan } = load;
  const lines: Array<[CapacityKind, string]> = [];
  if (load.mentionsPolled > 0) {
    const every = humanInterval(fastestMentionIntervalMs(plan, load.mentionsPolled));
    const hint = planHasStream(plan)
      ? "; mentions: {via: stream} (the default) delivers them through the app's stream as they happen"
      : "; pro delivers them through the stream";
    lines.push([
      "mentions-polled",
      `${bots(load.mentionsPolled)} ${verb(load.mentionsPolled, "poll")} mentions on ${plan} (app ${load.appId}): each is polled every ${every}${hint}`,
    ]);
  }
  if (load.mentionsStreamed > 0) {
    const round = humanInterval(fastestMentionIntervalMs(plan, load.mentionsStreamed));
    lines.push([
      "mentions-streamed",
      `${bots(load.mentionsStreamed)} ${verb(load.mentionsStreamed, "get")} mentions through the stream of app ${load.appId} (${plan}) as they happen; the catch-up poll of each at start and after a reconnect takes up to ${round} for all`,
    ]);
  }
  if (load.followers > 0) {
    const every = humanInterval(fastestFollowersIntervalMs(plan, load.followers));
    lines.push([
      "followers",
      `${bots(load.followers)} ${verb(load.followers, "poll")} followers on ${plan} (app ${load.appId}): each is polled every ${every}`,
    ]);
  }
  if (load.dms && planHasDms(plan)) {
    // Each bot has its own window of the DM lookup: the app's bots do not share it.
    const hint = plan === "pro" ? "" : `; pro checks them ${howOften(fastestDmsIntervalMs("pro"))}`;
    lines.push([
      "dms",
      `${bots(load.dms)} ${verb(load.dms, "read")} direct messages on ${plan} (app ${load.appId}): ${plan}: DMs are checked ${howOften(fastestDmsIntervalMs(plan))} for each bot, in its own window${hint}`,
    ]);
  }
  if (load.streamBots > 0) {
    const cap = load.ruleCap !== undefined ? ` of the ${load.ruleCap} the plan allows` : "";
    lines.push([
      "stream-rules",
      `${bots(load.streamBots)} ${verb(load.streamBots, "share")} the stream of app ${load.appId} for ${load.streamBots === 1 ? "its" : "their"} own ${load.streamRules} ${load.streamRules === 1 ? "rule" : "rules"}${cap}`,
    ]);
  }
  return lines;
}
