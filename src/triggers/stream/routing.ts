/**
 * Who gets each post the app's stream (or a search for what it missed) brings: the bots whose
 * own rules it matched, as a `post` event with the bot's tag, never the bot that wrote it;
 * and, for a post matched by a mention rule, each bot it mentions or replies to, as that
 * bot's mentions. Each post is routed once, however often it comes (a post both searched and
 * streamed). Routing answers and hands nothing on: what reads the post (the connection, or a
 * gap's search) puts the entries it returns in the hub's outbox (./outbox.ts), which whoever
 * started the hub takes from.
 *
 * The table follows the bots' wants at once ({@link Routes.want}); the service's rules
 * follow when the next sync or update goes through (./rule-sync.ts). A fleet of 10,000
 * mention bots changes one bot at a time, so the table is changed by what changed, not
 * rebuilt.
 */
import type { Includes, Post, User } from "../../api/types.ts";
import { asEventPost, authorOf, type BotEvent, type EventPost } from "../events.ts";
import { mentionEvents } from "../mentions.ts";
import { mentionedBots } from "../mention-rules.ts";
import { mergeRules, type BotRules, type Wanter } from "./rules.ts";
import type { Routed } from "./outbox.ts";
import type { HubStatus } from "./status.ts";

/** A bot whose mentions come through the app's stream. */
export interface MentionBot {
  bot: string;
  userId: string;
  username: string;
}

/** Who hears of the posts routed (the events themselves are returned, not handed on). */
export interface RouteTargets {
  status: HubStatus;
  /** A post went to a bot by its own rule (the search for its new rules must not hand it out again). */
  routed(bot: string, postId: string): void;
}

/** How many post ids the hub remembers to hand each post out once (stream and recovery). */
const RECENT_POSTS = 50_000;

/** The hub's routing table and its routing; see the module comment. */
export class Routes {
  /** The bots' own rules: value → the bots (and their tags) that want it. */
  readonly merged = new Map<string, Wanter[]>();
  /** Each bot's user id: a bot never gets its own posts. */
  readonly userIds = new Map<string, string>();
  /** The bots whose mentions come through the stream, as last wanted. */
  mentionBots: readonly MentionBot[] = [];
  private readonly byUsername = new Map<string, MentionBot>();
  private readonly byUserId = new Map<string, MentionBot>();
  /**
   * Each mention bot routed now (as given: the caller keeps a bot's object while it does not
   * change), its username's key, and the update that last named it. A change of one bot of
   * 10,000 re-routes that one; the others are only recognised.
   */
  private readonly routed = new Map<MentionBot, { key: string; seen: number }>();
  private updates = 0;
  /** Bots the rule cap left out: routed again at the next want, as every bot named is. */
  private readonly capped = new Map<string, MentionBot>();
  /** The posts handed out lately, oldest first. */
  private readonly recent = new Set<string>();

  constructor(private readonly targets: RouteTargets) {}

  /** What the bots want now: routing follows at once, the service's rules at the next sync or update. */
  want(wants: readonly BotRules[], mentioned: readonly MentionBot[]): void {
    this.merged.clear();
    for (const [value, wanters] of mergeRules(wants)) this.merged.set(value, wanters);
    this.userIds.clear();
    for (const w of wants) this.userIds.set(w.bot, w.userId);
    this.mentionBots = mentioned;
    const seen = ++this.updates;
    for (const [key, m] of this.capped) if (!this.byUsername.has(key)) this.byUsername.set(key, m);
    this.capped.clear();
    let named = 0;
    for (const m of mentioned) {
      const known = this.routed.get(m);
      if (known) {
        if (known.seen !== seen) named++;
        known.seen = seen;
        continue;
      }
      const key = m.username.toLowerCase();
      this.routed.set(m, { key, seen });
      named++;
      this.byUsername.set(key, m);
      this.byUserId.set(m.userId, m);
    }
    if (named < this.routed.size) this.forgetUnnamed(seen);
  }

  /** Forgets the mention bots the update `seen` did not name. */
  private forgetUnnamed(seen: number): void {
    for (const [m, { key, seen: last }] of this.routed) {
      if (last === seen) continue;
      this.routed.delete(m);
      if (this.byUsername.get(key) === m) this.byUsername.delete(key);
      if (this.byUserId.get(m.userId) === m) this.byUserId.delete(m.userId);
    }
  }

  /**
   * The rule cap left these usernames without a mention rule: they are routed no more by
   * name until the next want. Returns their bots (they poll instead).
   */
  capOut(usernames: readonly string[]): string[] {
    const bots = usernames.map((u) => this.byUsername.get(u)?.bot).filter((b): b is string => b !== undefined);
    for (const username of usernames) {
      const m = this.byUsername.get(username);
      if (m) this.capped.set(username, m);
      this.byUsername.delete(username);
    }
    return bots;
  }

  /** Whether this post was handed out (from the stream or a gap's search), lately. */
  has(postId: string): boolean {
    return this.recent.has(postId);
  }

  /**
   * Routes one post, from the stream or a search: each bot's events (its own-rule `post`
   * events and its mentions), for the caller to put in the outbox; `undefined` when the post
   * was routed before. `values` are the rule values it matched. The status counts each new post.
   */
  route(raw: Post, includes: Includes | undefined, values: readonly string[]): Routed[] | undefined {
    const post = asEventPost(raw);
    if (!post || this.recent.has(post.id)) return undefined;
    this.recent.add(post.id);
    if (this.recent.size > RECENT_POSTS) this.recent.delete(this.recent.values().next().value!);
    const author = authorOf(post, includes) ?? { id: post.author_id, name: "", username: "" };
    const routed: Routed[] = [];
    const reached = new Set<string>();
    for (const value of values) {
      for (const wanter of this.merged.get(value) ?? []) {
        if (reached.has(wanter.bot) || this.userIds.get(wanter.bot) === post.author_id) continue;
        reached.add(wanter.bot);
        this.targets.routed(wanter.bot, post.id);
        routed.push({ bot: wanter.bot, kind: "post", events: [postEvent(post, author, value, wanter)] });
      }
    }
    if (this.mentionBots.length > 0) {
      for (const bot of mentionedBots(post, this.byUsername, this.byUserId)) {
        routed.push({ bot: bot.bot, kind: "mentions", events: mentionEvents([post], includes, bot.userId) });
      }
    }
    this.targets.status.posted();
    return routed;
  }
}

/** A post as the event of a bot whose rule (`value`, with the bot's tag) it matched. */
export function postEvent(post: EventPost, author: User, value: string, wanter: Wanter): BotEvent {
  return {
    kind: "post",
    id: `post:${post.id}`,
    post,
    author,
    rule: { value, ...(wanter.tag !== undefined ? { tag: wanter.tag } : {}) },
  };
}
