/**
 * The mentions trigger: polls the bot's mention timeline and turns new posts into `mention`
 * and `reply` events.
 *
 * - The cursor (`since_id`) is kept in the state store and moves in the same write that puts
 *   the fetched events in the bot's inbox, so a restart neither misses nor repeats a post.
 * - Every page is read (the newest first), each request asking for 100 posts, the most the
 *   endpoint allows: on the free plan one request is all there is for 15 minutes.
 * - On its very first run a bot reaches back `backfillMs` (one hour by default), never the
 *   account's whole history.
 * - Requests go through the caller's `fetch`, which the runtime budgets like any action.
 */
import type { Clock } from "../clock.ts";
import type { Envelope, Post } from "../api/types.ts";
import type { TimelineQuery } from "../api/params.ts";
import type { Store } from "../store/store.ts";
import { EVENT_POST_QUERY, mentionEvents, type BotEvent } from "../runtime/events.ts";
import { startPollLoop, type PollLoop } from "./poller.ts";

/** The largest page of `GET /2/users/:id/mentions` (wire-facts 1.3). */
export const MENTIONS_PAGE_SIZE = 100;

export interface MentionsCursor {
  since_id: string;
}

export interface MentionsTriggerOptions {
  bot: string;
  userId: string;
  clock: Clock;
  store: Store;
  intervalMs: number;
  backfillMs: number;
  /** Fetches one page (budgeted by the caller). */
  fetch(query: TimelineQuery, signal: AbortSignal): Promise<Envelope<Post[]>>;
  /** Puts events in the inbox without flushing; the trigger flushes with its cursor. */
  deliver(events: BotEvent[]): void;
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
    if (Array.isArray(errors) && errors.some((x) => typeof x?.parameters === "object" && x.parameters !== null && "since_id" in x.parameters)) return true;
    e = e.cause as typeof e;
  }
  return false;
}

export const mentionsCursorKey = (bot: string) => `${bot}:mentions`;

/** Polls once: reads every new page, delivers the events oldest first, moves the cursor. */
export async function pollMentions(options: MentionsTriggerOptions, signal: AbortSignal): Promise<number> {
  const { store, clock } = options;
  let cursor = store.get<MentionsCursor>("cursors", mentionsCursorKey(options.bot));
  const backfill = { start_time: new Date(clock.now() - options.backfillMs) };
  let base: TimelineQuery = {
    ...EVENT_POST_QUERY,
    max_results: MENTIONS_PAGE_SIZE,
    ...(cursor ? { since_id: cursor.since_id } : backfill),
  };
  const events: BotEvent[] = [];
  let newest: string | undefined;
  let token: string | undefined;
  for (;;) {
    let page: Envelope<Post[]>;
    try {
      page = await options.fetch(token ? { ...base, pagination_token: token } : base, signal);
    } catch (err) {
      // A cursor the service refuses would fail every poll forever: drop it and reach back instead.
      if (!cursor || token || !refusesSinceId(err)) throw err;
      store.delete("cursors", mentionsCursorKey(options.bot));
      options.onCursorReset?.(`the stored mentions cursor (since_id ${JSON.stringify(cursor.since_id)}) is not a post id the service accepts`);
      cursor = undefined;
      const { since_id: _dropped, ...rest } = base;
      base = { ...rest, ...backfill };
      continue;
    }
    newest ??= page.meta?.newest_id;
    events.push(...mentionEvents(page.data ?? [], page.includes, options.userId));
    token = page.meta?.next_token;
    if (!token) break;
  }
  events.reverse(); // pages come newest first; handle the oldest first
  options.deliver(events);
  if (newest) store.set<MentionsCursor>("cursors", mentionsCursorKey(options.bot), { since_id: newest });
  await store.flush();
  return events.length;
}

/** Starts polling at `intervalMs`; the first poll runs at once. */
export function startMentionsTrigger(options: MentionsTriggerOptions): PollLoop {
  return startPollLoop({
    clock: options.clock,
    intervalMs: options.intervalMs,
    poll: async (signal) => options.onPoll?.(await pollMentions(options, signal)),
    onError: options.onError,
  });
}
