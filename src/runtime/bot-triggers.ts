/**
 * A bot's own triggers, run into its inbox: the mentions poll (or, through the app's
 * stream, the catch-up polls and the streamed mentions), the followers poll, the direct
 * messages poll and the cron schedules. This class starts, retunes and stops them; each poll
 * loop (./poll-loop.ts) asks its trigger which pages to read, reads them through the bot's
 * action layer (budgeted, its answer's headers correcting the budget; counted, so
 * {@link BotTriggers.quiet} can tell a poll waiting for the budget from one under way), and
 * puts what the trigger found in the inbox with its cursor's move.
 */
import type { ActionLayer } from "../actions/index.ts";
import type { Clock } from "../clock.ts";
import type { Logger } from "../log.ts";
import type { EndpointKey } from "../api/endpoints.ts";
import { DmsTrigger } from "../triggers/dms.ts";
import type { PolledTrigger, TriggerName } from "../triggers/events.ts";
import { FollowersTrigger } from "../triggers/followers.ts";
import { MentionsTrigger } from "../triggers/mentions.ts";
import type { ScheduleSpec } from "../triggers/schedule.ts";
import type { Inbox } from "./inbox.ts";
import type { Liveness } from "./liveness.ts";
import { MentionsFeed, type MentionsPolling } from "./mentions-feed.ts";
import { PageReads, startPollLoop, type PollLoop, type PollOf } from "./poll-loop.ts";
import { startSchedule, type ScheduleHandle } from "./schedules.ts";

/** The triggers a bot runs, as hosting reads them from its bot file and its plan. */
export interface TriggerSpecs {
  mentions?: {
    /** Poll interval: the bot file's, or the fastest its plan allows. */
    intervalMs: number;
    /** How far the very first poll reaches back. */
    backfillMs: number;
    /**
     * How mentions arrive: polled at the interval, or through the app's stream (hosting then
     * feeds {@link MentionsFeed.accept} and asks for {@link MentionsFeed.catchUp}).
     */
    via: "poll" | "stream";
  };
  followers?: { intervalMs: number };
  /** Direct messages: polled at the interval (the bot's own window), the first poll reaching back `backfillMs`. */
  dms?: { intervalMs: number; backfillMs: number };
  schedules: readonly ScheduleSpec[];
}

/** What a bot's triggers are wired to: its account and action layer (which reads for them), its inbox and liveness. */
export interface BotTriggersOptions {
  bot: string;
  userId: string;
  clock: Clock;
  layer: ActionLayer;
  log: Logger;
  specs: TriggerSpecs;
  inbox: Inbox;
  liveness: Liveness;
}

/** One bot's triggers; see the module comment. */
export class BotTriggers {
  private readonly running: Array<PollLoop | ScheduleHandle> = [];
  /** The bot's mentions, streamed and polled (idle when the bot file has no mentions trigger). */
  readonly mentions: MentionsFeed;
  /** The polls' reads, through the bot's action layer (counted while under way). */
  private readonly reads: PageReads;
  /** The running followers poll, to follow a change of its interval ({@link retune}). */
  private followers: PollLoop | undefined;

  constructor(private readonly options: BotTriggersOptions) {
    this.mentions = new MentionsFeed(options.inbox, options.log);
    this.reads = new PageReads(options.layer);
  }

  /**
   * New poll intervals (the bots sharing the app's windows changed): the polls running now
   * follow at their next wait; a later start uses them too.
   */
  retune(intervals: { mentionsMs?: number; followersMs?: number }): void {
    const { specs } = this.options;
    const mentions =
      specs.mentions && intervals.mentionsMs ? { ...specs.mentions, intervalMs: intervals.mentionsMs } : specs.mentions;
    const followers =
      specs.followers && intervals.followersMs ? { intervalMs: intervals.followersMs } : specs.followers;
    this.options.specs = { ...specs, ...(mentions ? { mentions } : {}), ...(followers ? { followers } : {}) };
    if (mentions) this.mentions.retune(mentions.intervalMs);
    if (followers) this.followers?.setInterval(followers.intervalMs);
  }

  /** How the bot's mentions reach it (undefined: its file has no mentions trigger). */
  mentionsDelivery(): { via: "poll" | "stream"; everyMs: number } | undefined {
    const mentions = this.options.specs.mentions;
    return mentions ? { via: mentions.via, everyMs: mentions.intervalMs } : undefined;
  }

  /** How often the bot's direct messages are polled (undefined: its file has no dms trigger). */
  dmsDelivery(): { everyMs: number } | undefined {
    const dms = this.options.specs.dms;
    return dms ? { everyMs: dms.intervalMs } : undefined;
  }

  /** Starts the polls and schedules (a poll runs at once, then at its interval). */
  start(): void {
    const { specs } = this.options;
    if (specs.mentions) this.mentions.start(this.mentionsPolling(specs.mentions));
    if (specs.followers) this.running.push((this.followers = this.followersTrigger(specs.followers.intervalMs)));
    // Each bot polls its DMs in its own window: the app's other bots never change its interval.
    if (specs.dms) this.running.push(this.dmsTrigger(specs.dms));
    const { clock, inbox, log } = this.options;
    for (const schedule of specs.schedules) this.running.push(startSchedule(schedule, clock, inbox, log));
  }

  /** A poll of one of the bot's triggers, run into its inbox (./poll-loop.ts). */
  private pollOf<K extends EndpointKey, C, R>(trigger: PolledTrigger<K, C, R>): PollOf<K, C, R> {
    const { clock, inbox, liveness, log } = this.options;
    return { trigger, reads: this.reads, inbox, liveness, clock, log };
  }

  private mentionsPolling(spec: NonNullable<TriggerSpecs["mentions"]>): MentionsPolling {
    const { bot, userId, clock } = this.options;
    const trigger = new MentionsTrigger({ bot, userId, clock, backfillMs: spec.backfillMs });
    return {
      poll: { ...this.pollOf(trigger), trigger },
      polled: spec.via !== "stream",
      intervalMs: spec.intervalMs,
      onError: this.onError("mentions"),
    };
  }

  private followersTrigger(intervalMs: number): PollLoop {
    const { bot, userId, clock } = this.options;
    const poll = this.pollOf(new FollowersTrigger(bot, userId));
    return startPollLoop({ clock, intervalMs, poll, onError: this.onError("followers") });
  }

  private dmsTrigger(spec: NonNullable<TriggerSpecs["dms"]>): PollLoop {
    const { bot, userId, clock } = this.options;
    const poll = this.pollOf(new DmsTrigger({ bot, userId, backfillMs: spec.backfillMs }));
    return startPollLoop({ clock, intervalMs: spec.intervalMs, poll, onError: this.onError("dms") });
  }

  private onError(trigger: TriggerName) {
    return (err: unknown) => {
      // A refused token has paused the bot already (the action layer reports it): stop polling.
      if (this.options.inbox.paused) return "stop" as const;
      this.options.log.warn(
        { trigger, err },
        `${trigger} poll failed: ${(err as Error)?.message ?? String(err)}; trying again at the next interval`,
      );
    };
  }

  /** Whether every poll in progress is waiting for its (budgeted) request. */
  quiet(): boolean {
    const polling =
      this.running.filter((t) => "current" in t && t.current() !== undefined).length + this.mentions.polling();
    return polling === this.reads.inFlight;
  }

  /** Stops the polls and schedules; a poll in progress finishes. */
  stop(): void {
    for (const t of this.running.splice(0)) t.stop();
    this.mentions.stop();
    this.followers = undefined;
  }
}
