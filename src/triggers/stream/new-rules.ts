/**
 * What matched the rules bots newly want (a bot that joined, or changed its rules) before
 * the service had them: once it does, each new value is searched for since the caller last
 * knew the wants without this change, and each post handed to those bots as the stream would
 * have. What the stream gave a bot meanwhile is not handed out again: while its search is to
 * come, the posts routed to it are watched. Only while connected: a reconnect's gap search
 * (./gaps.ts) covers every rule anyway.
 */
import type { ApiClient } from "../../api/client.ts";
import { ProblemError } from "../../api/errors.ts";
import type { Clock } from "../../clock.ts";
import type { Logger } from "../../log.ts";
import { asEventPost, authorOf } from "../events.ts";
import { apiErrorOf, messageOf } from "./failures.ts";
import { REACH_MARGIN_MS, RECENT_SEARCH_REACH_MS } from "./marks.ts";
import type { Outbox } from "./outbox.ts";
import { postEvent } from "./routing.ts";
import type { Wanter } from "./rules.ts";
import { searchAll, type Budgeted, type Found } from "./search.ts";

/** What the searches are made with. */
export interface NewRulesDeps {
  clock: Clock;
  log: Logger;
  budgeted: Budgeted;
  /** A client with the app's bearer token. */
  client(): Promise<ApiClient>;
  /** The bots' own rules now: value → wanters. */
  merged: ReadonlyMap<string, readonly Wanter[]>;
  /** Each bot's user id: a bot never gets its own posts. */
  userIds: ReadonlyMap<string, string>;
  /** Whether the stream is connected now. */
  connected(): boolean;
  /** Where the posts found wait for their bots. */
  outbox: Outbox;
  /** Aborts when the hub closes. */
  closed: AbortSignal;
}

/** Which bots want each value (merged rules). */
export function wantersOf(merged: ReadonlyMap<string, ReadonlyArray<{ bot: string }>>): Map<string, Set<string>> {
  return new Map([...merged].map(([value, wanters]) => [value, new Set(wanters.map((w) => w.bot))]));
}

/** The values bots want now that they did not want `before`: value → those bots. */
export function newlyWanted(
  before: ReadonlyMap<string, ReadonlySet<string>>,
  now: ReadonlyMap<string, ReadonlyArray<{ bot: string }>>,
): Map<string, Set<string>> {
  const fresh = new Map<string, Set<string>>();
  for (const [value, wanters] of now) {
    const had = before.get(value);
    const bots = wanters.map((w) => w.bot).filter((bot) => !had?.has(bot));
    if (bots.length > 0) fresh.set(value, new Set(bots));
  }
  return fresh;
}

/** The searches for bots' new rules of one hub; see the module comment. */
export class NewRulesCatchUp {
  /**
   * Bots with newly wanted rules whose search is to come: the posts the stream routed to each
   * meanwhile (so the search hands them out once), and how many changes wait on it.
   */
  private readonly joining = new Map<string, { posts: Set<string>; updates: number }>();
  private searching = 0;

  constructor(private readonly deps: NewRulesDeps) {}

  /** Whether a search is under way. */
  busy(): boolean {
    return this.searching > 0;
  }

  /** A post went to a bot by its own rule: if the bot's search is to come, it will not hand it out again. */
  routed(bot: string, postId: string): void {
    this.joining.get(bot)?.posts.add(postId);
  }

  /**
   * A change of the wants whose new values (`fresh`: value → the bots newly wanting it) are
   * searched for since `sinceMs` once `apply` (sending the rules) went through; resolves when
   * it did, and the search runs after ({@link busy} while it does).
   */
  follow(fresh: ReadonlyMap<string, ReadonlySet<string>>, sinceMs: number, apply: () => Promise<void>): Promise<void> {
    const bots = new Set([...fresh.values()].flatMap((b) => [...b]));
    for (const bot of bots) {
      const watch = this.joining.get(bot) ?? { posts: new Set<string>(), updates: 0 };
      watch.updates++;
      this.joining.set(bot, watch);
    }
    const applied = apply();
    if (bots.size === 0) return applied;
    const release = () => {
      for (const bot of bots) {
        const watch = this.joining.get(bot);
        if (watch && --watch.updates === 0) this.joining.delete(bot);
      }
    };
    return applied.then(
      () => {
        this.searching++;
        void this.search(fresh, sinceMs).finally(() => {
          this.searching--;
          release();
        });
      },
      (err: unknown) => {
        release();
        throw err;
      },
    );
  }

  /**
   * The posts that matched values bots newly want (value → those bots) since `sinceMs`, before
   * the service had the rules: each value searched alone (a post is handed out with the rule
   * it matched). A value the search refuses is logged and skipped.
   */
  private async search(fresh: ReadonlyMap<string, ReadonlySet<string>>, sinceMs: number): Promise<void> {
    const { clock, log, closed } = this.deps;
    if (!this.deps.connected() || closed.aborted) return;
    const from = Math.max(sinceMs, clock.now() - RECENT_SEARCH_REACH_MS + REACH_MARGIN_MS);
    let client: ApiClient | undefined;
    let found = 0;
    try {
      client = await this.deps.client();
      for (const [value, bots] of fresh) {
        const posts = await this.searchValue(client, value, from);
        if (posts) found += this.handOut(value, bots, posts);
      }
      if (found > 0)
        log.info(
          { found, rules: fresh.size },
          `stream rules: ${found} posts matched bots' new rules before the service had them; handed to those bots`,
        );
    } catch (err) {
      if (!closed.aborted)
        log.warn(
          { err: messageOf(err) },
          `could not search for what matched bots' new stream rules before the service had them (${messageOf(err)}); those posts are not delivered`,
        );
    } finally {
      void client?.close();
    }
  }

  /** What matched one value since `from`; undefined (and logged) when the search refuses the value. */
  private async searchValue(client: ApiClient, value: string, from: number): Promise<Found[] | undefined> {
    try {
      return await searchAll(this.deps.budgeted, client, value, { start_time: new Date(from) }, this.deps.closed);
    } catch (err) {
      const refused = apiErrorOf(err);
      if (!(refused instanceof ProblemError) || refused.status !== 400) throw err;
      this.deps.log.warn(
        { rule: value, err: (err as Error).message },
        `stream rule "${value}": recent search refused it (${(err as Error).message}); what matched it before the rule was in is not searched for`,
      );
      return undefined;
    }
  }

  /**
   * Each post to each of `bots` still wanting `value`, unless the stream gave it to the bot
   * already or the bot wrote it; returns how many it handed out.
   */
  private handOut(value: string, bots: ReadonlySet<string>, posts: readonly Found[]): number {
    const { merged, userIds } = this.deps;
    let found = 0;
    for (const { post: raw, includes } of posts) {
      const post = asEventPost(raw);
      if (!post) continue;
      const author = authorOf(post, includes) ?? { id: post.author_id, name: "", username: "" };
      for (const wanter of merged.get(value) ?? []) {
        const watch = this.joining.get(wanter.bot);
        if (!bots.has(wanter.bot) || !watch || watch.posts.has(post.id)) continue;
        if (userIds.get(wanter.bot) === post.author_id) continue;
        watch.posts.add(post.id);
        found++;
        this.deps.outbox.hand(wanter.bot, "post", [postEvent(post, author, value, wanter)]);
      }
    }
    return found;
  }
}
