/**
 * The followers trigger: polls the bot's followers and turns new ones into `follow` events
 * (follow-back and welcome-DM plugins listen to them).
 *
 * The service lists followers newest first, so each poll reads pages only until it meets a
 * follower it knows. On the very first run the current followers are remembered without
 * events: a bot does not greet everyone who followed it before it started. The remembered
 * set is bounded to the most recent followers, and is the trigger's cursor: the bot's inbox
 * keeps it, moved in the same write as the events the poll found (the runtime puts both there).
 */
import type { User } from "../api/types.ts";
import { EVENT_USER_FIELDS, type BotEvent, type Delivery, type Poll, type PolledTrigger } from "./events.ts";

/** The largest page of `GET /2/users/:id/followers` (wire-facts 1.3). */
export const FOLLOWERS_PAGE_SIZE = 1000;
/** How many of the most recent followers are remembered. */
export const KNOWN_FOLLOWERS_LIMIT = 5_000;

export const followersCursorKey = (bot: string) => `${bot}:followers`;

/**
 * One poll of the bot's followers (driven by the runtime: see {@link Poll}): pages newest
 * first until a follower it knows (`known`, the cursor), then the new ones as `follow`
 * events, oldest first, and the followers to remember.
 */
export function* followersPoll(
  bot: string,
  userId: string,
  known: string[] | undefined,
): Poll<"GET /2/users/:id/followers"> {
  const knownSet = new Set(known ?? []);
  const fresh: User[] = [];
  let token: string | undefined;
  do {
    const query = {
      "user.fields": EVENT_USER_FIELDS,
      max_results: FOLLOWERS_PAGE_SIZE,
      ...(token ? { pagination_token: token } : {}),
    };
    const page = yield { endpoint: "GET /2/users/:id/followers", args: { params: { id: userId }, query } };
    const users = page.data ?? [];
    const cut = users.findIndex((u) => knownSet.has(u.id));
    fresh.push(...(cut === -1 ? users : users.slice(0, cut)));
    token = cut === -1 && known ? page.meta?.next_token : undefined;
  } while (token);
  const events: BotEvent[] = known
    ? [...fresh].reverse().map((user) => ({ kind: "follow", id: `follow:${user.id}`, user }))
    : [];
  const remembered = [...fresh.map((u) => u.id), ...(known ?? [])].slice(0, KNOWN_FOLLOWERS_LIMIT);
  return { events, move: { key: followersCursorKey(bot), value: remembered } };
}

/** A bot's followers as the runtime polls them ({@link PolledTrigger}): {@link followersPoll} from its cursor. */
export class FollowersTrigger implements PolledTrigger<"GET /2/users/:id/followers", string[]> {
  readonly name = "followers";

  constructor(
    private readonly bot: string,
    private readonly userId: string,
  ) {}

  get cursorKey(): string {
    return followersCursorKey(this.bot);
  }

  pages(known: string[] | undefined): Poll<"GET /2/users/:id/followers"> {
    return followersPoll(this.bot, this.userId, known);
  }

  delivery(found: Delivery): Delivery {
    return found;
  }
}
