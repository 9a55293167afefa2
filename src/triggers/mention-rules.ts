/**
 * Mentions through the app's filtered stream: the rules that make the stream deliver every
 * post mentioning (or replying to) a bot of the app, packed many bots to a rule:
 * `(@ann OR to:ann OR @bob OR to:bob) -is:repost`.
 *
 * Why packed: the service caps an app's rules (pro: 1,000 rules of up to 1,024 characters,
 * `src/limits/stream-rules.ts`), so one rule per bot would stop at 1,000 bots, while packed
 * rules carry about 25 bots each. `to:` is there because the mention timeline also holds
 * replies to the bot that do not name it; reposts are left out, as the timeline leaves them.
 *
 * Why stable: a restart with the same bots must change nothing (the rules calls are
 * budgeted, and a rule replaced while the stream runs is a window in which its posts are
 * missed), and adding or removing a bot should touch one rule, not shift every rule after
 * it. So the plan (./mention-plan.ts) keeps each existing rule whose bots are all still
 * wanted, and packs only the bots no kept rule covers; it repacks from scratch only when the
 * kept rules and the new ones together would not fit under the cap.
 */
import type { Post, StreamRule } from "../api/types.ts";
import type { StreamRuleCaps } from "../limits/stream-rules.ts";

/** The tag that marks postbot's mention rules among the app's rules. */
export const MENTIONS_RULE_TAG = "postbot:mentions";

/** The caps a plan puts on an app's rules (src/limits/stream-rules.ts). */
export type RuleCaps = StreamRuleCaps;

const SUFFIX = ") -is:repost";
const term = (username: string) => `@${username} OR to:${username}`;

/** The rule value for a set of usernames (lower case, in the order given). */
export const mentionRuleValue = (usernames: readonly string[]) => `(${usernames.map(term).join(" OR ")}${SUFFIX}`;

/**
 * The bots a post matched by a mention rule is for: each it names (`@username`, as the
 * rule's `@` term matches) and the one it replies to (the rule's `to:` term). The stream's
 * routing and the search for bots that just joined read a post the same way.
 */
export function mentionedBots<B>(
  post: Pick<Post, "entities" | "in_reply_to_user_id">,
  byUsername: ReadonlyMap<string, B>,
  byUserId: ReadonlyMap<string, B>,
): Set<B> {
  const named = new Set<B>();
  for (const m of post.entities?.mentions ?? []) {
    const bot = byUsername.get(m.username.toLowerCase());
    if (bot) named.add(bot);
  }
  const repliedTo = post.in_reply_to_user_id ? byUserId.get(post.in_reply_to_user_id) : undefined;
  if (repliedTo) named.add(repliedTo);
  return named;
}

/** The usernames a mention rule covers, or undefined when the value is not one postbot writes. */
export function usernamesOf(value: string): string[] | undefined {
  if (!value.startsWith("(") || !value.endsWith(SUFFIX)) return undefined;
  const names = [...value.matchAll(/@([A-Za-z0-9_]+) OR to:/g)].map((m) => m[1]!.toLowerCase());
  return names.length > 0 && mentionRuleValue(names) === value ? names : undefined;
}

/**
 * {@link usernamesOf}, remembered: a plan made afresh (a full sync, a new hub) reads every
 * mention rule of the app (400 rules for 10,000 bots), and the rules mostly stay. Bounded:
 * rules replaced over a long run are forgotten wholesale.
 */
export function parsedUsernames(value: string): readonly string[] | undefined {
  if (parsed.has(value)) return parsed.get(value);
  if (parsed.size >= PARSED_LIMIT) parsed.clear();
  const names = usernamesOf(value);
  parsed.set(value, names);
  return names;
}
const parsed = new Map<string, readonly string[] | undefined>();
/** Rules remembered by {@link parsedUsernames}: more than the 1,000 a pro app may have. */
const PARSED_LIMIT = 4_096;

/** Packs usernames greedily, in order, into as few values as fit `maxLength`. */
export function packUsernames(usernames: readonly string[], maxLength: number): string[][] {
  const packs: string[][] = [];
  let current: string[] = [];
  let length = 1 + SUFFIX.length;
  for (const name of usernames) {
    const add = term(name).length + (current.length > 0 ? 4 : 0);
    if (current.length > 0 && length + add > maxLength) {
      packs.push(current);
      current = [];
      length = 1 + SUFFIX.length;
    }
    current.push(name);
    length += term(name).length + (current.length > 1 ? 4 : 0);
  }
  if (current.length > 0) packs.push(current);
  return packs;
}

/** What a plan changes of the app's mention rules (./mention-plan.ts). */
export interface MentionRulesPlan {
  /** Existing mention rules that stay as they are. */
  keep: StreamRule[];
  /** New rule values to add (tagged {@link MENTIONS_RULE_TAG}). */
  add: string[];
  /** Existing mention rules to delete. */
  remove: StreamRule[];
  /** Usernames that got no rule because the cap is reached (their bots poll instead). */
  overflow: string[];
}
