/**
 * The mentions trigger: turns posts that mention the bot (or reply to it) into `mention` and
 * `reply` events, by polling the bot's mention timeline or, on a plan with a filtered
 * stream, from the app's one stream connection (see ./mention-rules.ts and ./stream-hub.ts).
 *
 * - The cursor (`since_id`) is kept by the bot's inbox and moves in the same write that puts
 *   the events there (the trigger says what to deliver, {@link Delivery}; the runtime commits
 *   it), so a restart neither misses nor repeats a post.
 * - Every page is read (the newest first), each request asking for 100 posts, the most the
 *   endpoint allows: on the free plan one request is all there is for 15 minutes.
 * - On its very first run a bot reaches back `backfillMs` (one hour by default), never the
 *   account's whole history.
 * - A poll asks for its pages ({@link Poll}); the runtime reads them through the action
 *   layer, budgeted like any action.
 *
 * Through the stream, a poll still runs once at start and once after every reconnect (the
 * runtime spreads them within the budget): it closes the gap the stream cannot see. While
 * such a poll is due, posts the stream delivers are remembered in the cursor (`seen`), so
 * the poll does not hand them out a second time; once it has run with the stream connected
 * throughout, the stream's posts move the cursor themselves.
 */
import type { Clock } from "../clock.ts";
import type { Envelope, Includes, Post } from "../api/types.ts";
import { compareIds } from "../api/ids.ts";
import type { TimelineQuery } from "../api/params.ts";
import {
  asEventPost,
  authorOf,
  EVENT_POST_QUERY,
  type BotEvent,
  type CursorDrop,
  type CursorMove,
  type Delivery,
  type Poll,
  type PolledTrigger,
} from "./events.ts";

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
  /** How far a poll reaches back without a cursor (the very first, or after one was dropped). */
  backfillMs: number;
}

/** What a poll's pages held ({@link MentionsTrigger.pages}), before the trigger settles it ({@link MentionsTrigger.delivery}). */
export interface MentionsFetched {
  /** The pages' events, oldest first. */
  events: BotEvent[];
  /** The newest post id the service reported. */
  newest: string | undefined;
  /** The stream's state when the poll began. */
  epoch: number;
  connected: boolean;
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

/**
 * Turns posts that mention the bot (a page of its mentions timeline, or a post the app's
 * stream or a search brought) into its events: a reply to one of the bot's own posts
 * is a `reply`, anything else a `mention`; the bot's own posts are not events.
 */
export function mentionEvents(posts: readonly Post[], includes: Includes | undefined, botUserId: string): BotEvent[] {
  const events: BotEvent[] = [];
  for (const raw of posts) {
    const post = asEventPost(raw);
    if (!post || post.author_id === botUserId) continue;
    const author = authorOf(post, includes) ?? { id: post.author_id, name: "", username: "" };
    const repliedTo = post.referenced_posts?.find((r) => r.type === "replied_to")?.id;
    const parent = repliedTo ? includes?.posts?.find((p) => p.id === repliedTo) : undefined;
    if (repliedTo && parent?.author_id === botUserId) {
      events.push({ kind: "reply", id: `reply:${post.id}`, post, author, inReplyTo: repliedTo });
    } else {
      events.push({ kind: "mention", id: `mention:${post.id}`, post, author });
    }
  }
  return events;
}

/** The id of the post an event is about. */
const postIdOf = (e: BotEvent) => ("post" in e ? e.post.id : undefined);

/**
 * One bot's mentions, polled or streamed: what a poll reads and delivers, what of the
 * stream's posts is new, and where it is with the stream. The runtime's mentions feed
 * (src/runtime/mentions-feed.ts) drives it and puts what it delivers in the bot's inbox.
 */
export class MentionsTrigger implements PolledTrigger<"GET /2/users/:id/mentions", MentionsCursor, MentionsFetched> {
  readonly name = "mentions";
  private epoch = 0;
  /** Whether the app's stream is connected now (through the stream only). */
  private connected = false;
  /** Whether a poll has run with the stream connected from its start to its end. */
  private inSync = false;

  constructor(private readonly options: MentionsTriggerOptions) {}

  /** Where the bot's inbox keeps this trigger's cursor. */
  get cursorKey(): string {
    return mentionsCursorKey(this.options.bot);
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

  /**
   * One poll's reads (driven by the runtime: see {@link Poll}): every new page, the newest
   * first, from `cursor` (the bot's, as the inbox keeps it). A cursor the service refuses is
   * dropped (a {@link CursorDrop}) and the poll reaches back `backfillMs` instead.
   */
  *pages(cursor: MentionsCursor | undefined): Poll<"GET /2/users/:id/mentions", MentionsFetched> {
    const { clock, userId } = this.options;
    const fetched: MentionsFetched = { events: [], newest: undefined, epoch: this.epoch, connected: this.connected };
    const backfill = { start_time: new Date(clock.now() - this.options.backfillMs) };
    let base: TimelineQuery = {
      ...EVENT_POST_QUERY,
      max_results: MENTIONS_PAGE_SIZE,
      ...(cursor?.since_id ? { since_id: cursor.since_id } : backfill),
    };
    let token: string | undefined;
    for (;;) {
      let page: Envelope<Post[]>;
      try {
        const query = token ? { ...base, pagination_token: token } : base;
        page = yield { endpoint: "GET /2/users/:id/mentions", args: { params: { id: userId }, query } };
      } catch (err) {
        // A cursor the service refuses would fail every poll forever: drop it and reach back instead.
        if (!cursor?.since_id || token || !refusesSinceId(err)) throw err;
        yield { drop: { key: mentionsCursorKey(this.options.bot), value: undefined }, warning: this.dropped(cursor) };
        cursor = undefined;
        const { since_id: _dropped, ...rest } = base;
        base = { ...rest, ...backfill };
        continue;
      }
      if (!page.data) this.checkAccount(page);
      fetched.newest ??= page.meta?.newest_id;
      fetched.events.push(...mentionEvents(page.data ?? [], page.includes, userId));
      token = page.meta?.next_token;
      if (!token) break;
    }
    fetched.events.reverse(); // pages come newest first; handle the oldest first
    return fetched;
  }

  /** Why a cursor was dropped, for the bot's log. */
  private dropped(cursor: MentionsCursor): string {
    return `the stored mentions cursor (since_id ${JSON.stringify(cursor.since_id)}) is not a post id the service accepts; dropped it and reading the mentions of the last ${Math.round(this.options.backfillMs / 60_000)} min instead`;
  }

  /**
   * What a poll delivers, given the cursor as it is now (the stream may have delivered some
   * while the poll was under way): its events the stream has not, and the cursor's move. A
   * poll that ran with the stream connected throughout puts the trigger in sync.
   */
  delivery(fetched: MentionsFetched, cursor: MentionsCursor | undefined): Delivery {
    const seen = new Set(cursor?.seen ?? []);
    const events = fetched.events.filter((e) => !seen.has(postIdOf(e) ?? ""));
    if (fetched.connected && fetched.epoch === this.epoch) this.inSync = true;
    return { events, move: this.move([cursor?.since_id, fetched.newest], seen) };
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
   * Events the stream delivered (mentions of this bot), given the cursor as the inbox keeps
   * it: those to hand out (each once, whether the stream or a poll sees it first) and the
   * cursor's move, or undefined when none is new.
   */
  accept(events: readonly BotEvent[], cursor: MentionsCursor | undefined): Delivery | undefined {
    const seen = new Set(cursor?.seen ?? []);
    const fresh = events.filter((e) => {
      const id = postIdOf(e);
      return (
        id !== undefined && !seen.has(id) && (cursor?.since_id === undefined || compareIds(id, cursor.since_id) > 0)
      );
    });
    if (fresh.length === 0) return undefined;
    const ids = fresh.map((e) => postIdOf(e)!);
    // In sync, the stream's posts move the cursor; otherwise they wait in `seen` for the poll.
    const move = this.inSync
      ? this.move([cursor?.since_id, ...ids], seen)
      : this.move([cursor?.since_id], [...seen, ...ids]);
    return { events: fresh, move };
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
}
