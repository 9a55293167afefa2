/**
 * The followers trigger: polls the bot's followers and turns new ones into `follow` events
 * (follow-back and welcome-DM plugins listen to them).
 *
 * The service lists followers newest first, so each poll reads pages only until it meets a
 * follower it knows. On the very first run the current followers are remembered without
 * events: a bot does not greet everyone who followed it before it started. The remembered
 * set is bounded to the most recent followers, and is the trigger's cursor: the bot's inbox
 * keeps it, moved in the same write as the events it delivers.
 */
import type { Clock } from "../clock.ts";
import type { PagingQuery, UserFieldsQuery } from "../api/params.ts";
import type { Envelope, User } from "../api/types.ts";
import { EVENT_USER_FIELDS, type BotEvent, type TriggerInbox } from "./events.ts";
import { startPollLoop, type PollLoop } from "./poller.ts";

/** The largest page of `GET /2/users/:id/followers` (wire-facts 1.3). */
export const FOLLOWERS_PAGE_SIZE = 1000;
/** How many of the most recent followers are remembered. */
export const KNOWN_FOLLOWERS_LIMIT = 5_000;

export interface FollowersTriggerOptions {
  bot: string;
  clock: Clock;
  /** The bot's inbox: keeps the followers known, and takes the events with them. */
  inbox: TriggerInbox;
  intervalMs: number;
  fetch(query: UserFieldsQuery & PagingQuery, signal: AbortSignal): Promise<Envelope<User[]>>;
  onPoll?(delivered: number): void;
  onError(err: unknown): "stop" | void;
}

export const followersCursorKey = (bot: string) => `${bot}:followers`;

/** Polls once; returns how many new followers it delivered. */
export async function pollFollowers(options: FollowersTriggerOptions, signal: AbortSignal): Promise<number> {
  const { inbox } = options;
  const known = inbox.cursor<string[]>(followersCursorKey(options.bot));
  const knownSet = new Set(known ?? []);
  const fresh: User[] = [];
  let token: string | undefined;
  do {
    const query = {
      "user.fields": EVENT_USER_FIELDS,
      max_results: FOLLOWERS_PAGE_SIZE,
      ...(token ? { pagination_token: token } : {}),
    };
    const page = await options.fetch(query, signal);
    const users = page.data ?? [];
    const cut = users.findIndex((u) => knownSet.has(u.id));
    fresh.push(...(cut === -1 ? users : users.slice(0, cut)));
    token = cut === -1 && known ? page.meta?.next_token : undefined;
  } while (token);
  const events: BotEvent[] = known
    ? [...fresh].reverse().map((user) => ({ kind: "follow", id: `follow:${user.id}`, user }))
    : [];
  const remembered = [...fresh.map((u) => u.id), ...(known ?? [])].slice(0, KNOWN_FOLLOWERS_LIMIT);
  await inbox.commit(events, { key: followersCursorKey(options.bot), value: remembered });
  return events.length;
}

export function startFollowersTrigger(options: FollowersTriggerOptions): PollLoop {
  return startPollLoop({
    clock: options.clock,
    intervalMs: options.intervalMs,
    poll: async (signal) => options.onPoll?.(await pollFollowers(options, signal)),
    onError: options.onError,
  });
}
