/**
 * The mentions trigger: turns posts that mention the bot (or reply to it) into `mention` and
 * `reply` events, by polling the bot's mention timeline or, on a plan with a filtered
 * stream, from the app's one stream connection (see ./mention-rules.ts and ./stream-hub.ts).
 *
 * - The cursor (`since_id`) is kept by the bot's inbox and moves in the same write that puts
 *   the events there ({@link TriggerInbox.commit}), so a restart neither misses nor repeats a post.
 * - Every page is read (the newest first), each request asking for 100 posts, the most the
 *   endpoint allows: on the free plan one request is all there is for 15 minutes.
 * - On its very first run a bot reaches back `backfillMs` (one hour by default), never the
 *   account's whole history.
 * - Requests go through the caller's `fetch`, which the runtime budgets like any action.
 *
 * Through the stream, a poll still runs once at start and once after every reconnect (the
 * runtime spreads them within the budget): it closes the gap the stream cannot see. While
 * such a poll is due, posts the stream delivers are remembered in the cursor (`seen`), so
 * the poll does not hand them out a second time; once it has run with the stream connected
 * throughout, the stream's posts move the cursor themselves.
 */
import type { Clock } from "../clock.ts";
import type { Envelope, Post } from "../api/types.ts";
import { compareIds } from "../api/ids.ts";
import type { TimelineQuery } from "../api/params.ts";
import { EVENT_POST_QUERY, mentionEvents, type BotEvent, type CursorMove, type TriggerInbox } from "./events.ts";
import { startPollLoop, type PollLoop } from "./poller.ts";

/** The largest page of `GET /2/users/:id/mentions` (wire-facts 1.3). */
export const MENTIONS_PAGE_SIZE = 100;
/** Streamed posts remembered while a catch-up poll is due (beyond it, the oldest are forgotten). */
export const SEEN_LIMIT = 1_000;

export interface MentionsCursor {
  /** Absent until the first poll found a mention (the next one then reaches back by time). */
  since_id?: string;
  /** Ids of posts delivered from the stream past `since_id`, while a catch-up poll is due. */
  seen?: string[];
}

export interface MentionsTriggerOptions {
  bot: string;
  userId: string;
  clock: Clock;
  /** The bot's inbox: keeps the cursor, and takes the events with the cursor's move. */
  inbox: TriggerInbox;
  intervalMs: number;
  backfillMs: number;
  /** Fetches one page (budgeted by the caller). */
  fetch(query: TimelineQuery, signal: AbortSignal): Promise<Envelope<Post[]>>;
  /** After each successful poll: how many events it delivered. */
  onPoll?(delivered: number): void;
  onError(err: unknown): "stop" | void;
  /** The stored cursor was refused by the service and dropped (the poll reaches back `backfillMs` instead). */
  onCursorReset?(reason: string): void;
}

/** Whether an error (or what it wraps) is the service refusing the request's `since_id` parameter (400). */
function refusesSinceId(err: unknown): boolean {
  for (let e = err as { cause?: unknown; problem?: { errors?: unknown } } | undefined, i = 0; e && i < 5; i++) {
    const errors = e.problem?.errors;
    if (
      Array.isArray(errors) &&
      errors.some((x) => typeof x?.parameters === "object" && x.parameters !== null && "since_id" in x.parameters)
    )
      return true;
    e = e.cause as typeof e;
  }
  return false;
}

export const mentionsCursorKey = (bot: string) => `${bot}:mentions`;

/** A mentions trigger's state with the app's stream ({@link MentionsTrigger.syncState}). */
export interface MentionsSync {
  connected: boolean;
  inSync: boolean;
}

/** The id of the post an event is about. */
const postIdOf = (e: BotEvent) => ("post" in e ? e.post.id : undefined);

/**
 * One bot's mentions, polled or streamed. Create it with {@link startMentionsTrigger}
 * (polling) or {@link streamedMentions} (through the stream: polls happen on demand).
 */
export class MentionsTrigger {
  private epoch = 0;
  /** Whether the app's stream is connected now (through the stream only). */
  private connected = false;
  /** Whether a poll has run with the stream connected from its start to its end. */
  private inSync = false;
  private loop: PollLoop | undefined;

  constructor(private readonly options: MentionsTriggerOptions) {}

  private cursor(): MentionsCursor | undefined {
    return this.options.inbox.cursor<MentionsCursor>(mentionsCursorKey(this.options.bot));
  }

  /** The cursor's move: `since_id` (the newest known) and what was streamed past it (none when both are empty). */
  private move(ids: Array<string | undefined>, seen: Iterable<string>): CursorMove | undefined {
    const since = ids
      .filter((id): id is string => id !== undefined)
      .sort(compareIds)
      .pop();
    const rest = [...seen].filter((id) => since === undefined || compareIds(id, since) > 0).slice(-SEEN_LIMIT);
    if (since === undefined && rest.length === 0) return undefined;
    const value: MentionsCursor = {
      ...(since !== undefined ? { since_id: since } : {}),
      ...(rest.length > 0 ? { seen: rest } : {}),
    };
    return { key: mentionsCursorKey(this.options.bot), value };
  }

  /** Polls once: reads every new page, delivers the events oldest first, moves the cursor. */
  async poll(signal: AbortSignal): Promise<number> {
    const { inbox, clock } = this.options;
    const epoch = this.epoch;
    const connected = this.connected;
    let cursor = this.cursor();
    const backfill = { start_time: new Date(clock.now() - this.options.backfillMs) };
    let base: TimelineQuery = {
      ...EVENT_POST_QUERY,
      max_results: MENTIONS_PAGE_SIZE,
      ...(cursor?.since_id ? { since_id: cursor.since_id } : backfill),
    };
    const fetched: BotEvent[] = [];
    let newest: string | undefined;
    let token: string | undefined;
    for (;;) {
      let page: Envelope<Post[]>;
      try {
        page = await this.options.fetch(token ? { ...base, pagination_token: token } : base, signal);
      } catch (err) {
        // A cursor the service refuses would fail every poll forever: drop it and reach back instead.
        if (!cursor?.since_id || token || !refusesSinceId(err)) throw err;
        await inbox.commit([], { key: mentionsCursorKey(this.options.bot), value: undefined });
        this.options.onCursorReset?.(
          `the stored mentions cursor (since_id ${JSON.stringify(cursor.since_id)}) is not a post id the service accepts`,
        );
        cursor = undefined;
        const { since_id: _dropped, ...rest } = base;
        base = { ...rest, ...backfill };
        continue;
      }
      if (!page.data) this.checkAccount(page);
      newest ??= page.meta?.newest_id;
      fetched.push(...mentionEvents(page.data ?? [], page.includes, this.options.userId));
      token = page.meta?.next_token;
      if (!token) break;
    }
    fetched.reverse(); // pages come newest first; handle the oldest first
    // The stream may have delivered some while the poll was under way: read the cursor again.
    const now = this.cursor();
    const seen = new Set(now?.seen ?? []);
    const events = fetched.filter((e) => !seen.has(postIdOf(e) ?? ""));
    // The inbox takes the events and the cursor at once; durable when `committed` resolves.
    const committed = inbox.commit(events, this.move([now?.since_id, newest], seen));
    if (connected && epoch === this.epoch) this.inSync = true;
    await committed;
    this.options.onPoll?.(events.length);
    return events.length;
  }

  /**
   * An answer without posts that says the service has no user of the bot's id: the poll
   * fails, saying so (its error is logged at every poll), rather than finding nothing for
   * ever without a word.
   */
  private checkAccount(page: Envelope<Post[]>): void {
    const { userId, bot } = this.options;
    const gone = page.errors?.some(
      (e) => e.resource_type === "user" && (String(e.resource_id ?? e.value) === userId || String(e.value) === userId),
    );
    if (gone)
      throw new Error(
        `the service has no user ${userId}, the account bot ${bot} reads the mentions of: the account is gone, or the id postbot keeps for it was changed; sign the account in again (bot auth login), or check the bot's token`,
      );
  }

  /**
   * Events the stream delivered (mentions of this bot): each is handed out once, whether
   * the stream or a poll sees it first. Resolves once the inbox and cursor are saved.
   */
  async accept(events: readonly BotEvent[]): Promise<number> {
    const cursor = this.cursor();
    const seen = new Set(cursor?.seen ?? []);
    const fresh = events.filter((e) => {
      const id = postIdOf(e);
      return (
        id !== undefined && !seen.has(id) && (cursor?.since_id === undefined || compareIds(id, cursor.since_id) > 0)
      );
    });
    if (fresh.length === 0) return 0;
    const ids = fresh.map((e) => postIdOf(e)!);
    // In sync, the stream's posts move the cursor; otherwise they wait in `seen` for the poll.
    const move = this.inSync
      ? this.move([cursor?.since_id, ...ids], seen)
      : this.move([cursor?.since_id], [...seen, ...ids]);
    await this.options.inbox.commit(fresh, move);
    return fresh.length;
  }

  /** Where the trigger is with the stream, for its successor when the bot restarts with a new configuration. */
  syncState(): MentionsSync {
    return { connected: this.connected, inSync: this.inSync };
  }

  /**
   * Takes over the state of the bot's previous trigger (the bot restarted with a new
   * configuration in the same process): when that one was in sync with the stream, so is
   * this one, and no catch-up poll is needed.
   */
  adopt(state: MentionsSync): void {
    this.connected = state.connected;
    this.inSync = state.connected && state.inSync;
  }

  /** Whether a poll has run with the stream connected throughout (streamed posts move the cursor). */
  get synced(): boolean {
    return this.inSync;
  }

  /** The app's stream connected: a poll from now on closes the gap behind it. */
  streamConnected(): void {
    this.connected = true;
  }

  /** The stream dropped: until the next catch-up poll has run, streamed posts are remembered. */
  streamInterrupted(): void {
    this.epoch++;
    this.connected = false;
    this.inSync = false;
  }

  /** Starts polling at `intervalMs`; the first poll runs at once. */
  startPolling(): PollLoop {
    this.loop = startPollLoop({
      clock: this.options.clock,
      intervalMs: this.options.intervalMs,
      poll: async (signal) => void (await this.poll(signal)),
      onError: this.options.onError,
    });
    return this.loop;
  }
}

/** Polls once (the trigger's {@link MentionsTrigger.poll}); kept for callers of the function form. */
export async function pollMentions(options: MentionsTriggerOptions, signal: AbortSignal): Promise<number> {
  return new MentionsTrigger(options).poll(signal);
}

/** Starts polling at `intervalMs`; the first poll runs at once. */
export function startMentionsTrigger(options: MentionsTriggerOptions): PollLoop {
  return new MentionsTrigger(options).startPolling();
}
