/**
 * A bot's mentions feed: the one object where its streamed and polled mentions meet. The
 * runtime's side of an app's stream ({@link takeStreamed}) pulls what the hub routed and hands
 * each bot its mentions here ({@link MentionsFeed.accept}); hosting asks it for catch-up
 * polls ({@link MentionsFeed.catchUp}) and tells it when the stream connects or drops; a
 * polling bot's feed starts its poll loop (./poll-loop.ts), which polls the trigger and commits
 * what it delivers on its own. What the stream delivers the feed settles with the trigger and
 * commits itself. Either way the events go to the inbox once, whether the stream or a
 * poll saw them first (../triggers/mentions.ts keeps that promise).
 *
 * It uses the mentions trigger's own names (`accept`, `adopt`, `syncState`, `synced`), so a
 * mention's way reads the same from hosting down to the trigger. Until the bot starts (or
 * when its file has no mentions trigger) each call does nothing.
 */
import type { Logger } from "../log.ts";
import type { BotEvent } from "../triggers/events.ts";
import type { StreamHub } from "../triggers/stream-hub.ts";
import type { MentionsCursor, MentionsFetched, MentionsSync, MentionsTrigger } from "../triggers/mentions.ts";
import type { Inbox } from "./inbox.ts";
import { pollOnce, startPollLoop, type PollLoop, type PollOf } from "./poll-loop.ts";

/** How a bot's mentions are polled: its trigger and what its polls run with, and at which interval. */
export interface MentionsPolling {
  poll: PollOf<"GET /2/users/:id/mentions", MentionsCursor, MentionsFetched> & { trigger: MentionsTrigger };
  /** Polled at `intervalMs` (false: through the stream, polled when hosting asks). */
  polled: boolean;
  intervalMs: number;
  /** A poll that threw; "stop" ends the polls (a refused token). */
  onError(err: unknown): "stop" | void;
}

/** One bot's mentions, streamed and polled; see the module comment. */
export class MentionsFeed {
  private setup: MentionsPolling | undefined;
  /** Its polls: at its interval, or (through the stream) when the app's rule cap leaves it out. */
  private readonly polls: PollLoop[] = [];
  /** Catch-up polls under way. */
  private catchingUp = 0;

  constructor(
    private readonly inbox: Inbox,
    private readonly log: Logger,
  ) {}

  private get trigger(): MentionsTrigger | undefined {
    return this.setup?.poll.trigger;
  }

  /** The bot starts: mentions come through its trigger, polled at its interval unless streamed. */
  start(polling: MentionsPolling): void {
    this.setup = polling;
    if (polling.polled) this.polls.push(this.startPolls(polling));
  }

  /** The stream cannot carry this bot's mentions (the app's rule cap): poll them instead. */
  pollInstead(): void {
    const { inbox } = this;
    if (this.setup && !inbox.isStopped && !inbox.paused) this.polls.push(this.startPolls(this.setup));
  }

  private startPolls(polling: MentionsPolling): PollLoop {
    const { poll, intervalMs, onError } = polling;
    return startPollLoop({ clock: poll.clock, intervalMs, poll, onError });
  }

  /** A new poll interval: the poll running now follows at its next wait. */
  retune(intervalMs: number): void {
    this.polls.at(-1)?.setInterval(intervalMs);
  }

  /** Polls in progress (a catch-up counts), for the bot's {@link BotTriggers.quiet}. */
  polling(): number {
    return this.polls.filter((p) => p.current() !== undefined).length + this.catchingUp;
  }

  /** Stops the polls; a poll in progress finishes. */
  stop(): void {
    for (const p of this.polls.splice(0)) p.stop();
  }

  /**
   * One catch-up poll of mentions that come through the stream (at start and after a
   * reconnect). Resolves when its events are in the inbox.
   */
  async catchUp(signal: AbortSignal): Promise<void> {
    const { inbox } = this;
    if (!this.trigger || inbox.isStopped || inbox.paused) return;
    this.catchingUp++;
    try {
      await pollOnce(this.setup!.poll, signal);
    } catch (err) {
      // A refused token has paused the bot already (the action layer reports it).
      if (!inbox.paused) throw err;
    } finally {
      this.catchingUp--;
    }
  }

  /** Mentions the app's stream delivered: each handed out once, whether streamed or polled first. */
  accept(events: readonly BotEvent[]): void {
    if (!this.trigger || this.inbox.isStopped) return;
    void this.take(this.trigger, events).catch((err: unknown) =>
      this.log.error({ err }, "could not save streamed mentions"),
    );
  }

  /** Puts what the trigger finds new among streamed mentions in the inbox; resolves once saved. */
  private async take(trigger: MentionsTrigger, events: readonly BotEvent[]): Promise<void> {
    const delivery = trigger.accept(events, this.inbox.cursor<MentionsCursor>(trigger.cursorKey));
    if (delivery) await this.inbox.commit(delivery.events, delivery.move);
  }

  /**
   * {@link accept} for handed-over mentions: resolves once those the trigger took (not seen
   * before) have been handled; those it had already are done at once.
   */
  async acceptHandled(events: readonly BotEvent[]): Promise<void> {
    const { inbox, trigger } = this;
    if (!trigger) return;
    if (inbox.isStopped || inbox.paused) return new Promise<void>(() => {});
    await inbox.handledAfter(events, () => this.take(trigger, events));
  }

  /** The app's stream connected or dropped (streamed mentions wait for a catch-up poll after a drop). */
  stream(connected: boolean): void {
    if (connected) this.trigger?.streamConnected();
    else this.trigger?.streamInterrupted();
  }

  /** The state with the stream a successor takes over (undefined: no mentions trigger, or not started). */
  syncState(): MentionsSync | undefined {
    return this.trigger?.syncState();
  }

  /** Takes over a predecessor's state with the stream (see {@link MentionsTrigger.adopt}); call after the bot starts. */
  adopt(state: MentionsSync): void {
    this.trigger?.adopt(state);
  }

  /** Whether the mentions are in sync with the stream (no catch-up poll needed). */
  get synced(): boolean {
    return this.trigger?.synced ?? false;
  }
}

/** A running bot as the stream's intake reaches it (../runtime/bot.ts is one as it is). */
export interface StreamedBot {
  /** Posts that matched the bot's own rules (a `post` event each), into its inbox. */
  deliver(events: readonly BotEvent[]): void;
  readonly mentions: Pick<MentionsFeed, "accept">;
}

/**
 * The runtime's side of an app's stream in a process that runs its bots alone: it pulls what
 * the hub routed (each bot's events, as data) and commits each to its bot, looked up by name
 * when the batch comes (a bot replaced by its new configuration gets the next at once; one
 * taken out gets nothing): a post by the bot's own rules into its inbox, mentions through
 * its feed, which settles them with the mentions trigger (each handed out once, streamed or
 * polled). Then the hub's mark moves past those posts. The pull waits on the hub's next
 * post: a quiet stream costs nothing, whatever the number of bots. Resolves once the hub is
 * closed and everything it routed was taken.
 */
export async function takeStreamed(
  hub: Pick<StreamHub, "take" | "taken">,
  bots: ReadonlyMap<string, StreamedBot>,
  log: Logger,
): Promise<void> {
  for (let batch = await hub.take(); batch; batch = await hub.take()) {
    for (const { bot: name, kind, events } of batch.entries) {
      const bot = bots.get(name);
      try {
        if (kind === "post") bot?.deliver(events);
        else bot?.mentions.accept(events);
      } catch (err) {
        log.error({ err, bot: name }, `could not take ${name}'s streamed ${kind === "post" ? "posts" : "mentions"}`);
      }
    }
    hub.taken(batch);
  }
}
