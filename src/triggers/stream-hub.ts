/**
 * The stream trigger. The service allows one filtered-stream connection per app, so the
 * rules of every bot of an app are merged into that one connection. The hub is made of the
 * parts in ./stream/, one job each:
 *
 * - rule sync: the app's rules made what its bots want, before connecting and, by the
 *   smallest change, while connected (./stream/rules.ts, ./stream/rule-sync.ts);
 * - routing: each delivered post to the bots whose rules it matched, a mention to each bot it
 *   mentions or replies to, each once (./stream/routing.ts);
 * - the connection, kept open and reconnected by the documented policy (./stream/connection.ts);
 * - catch-up search: what the stream missed, by recent search: a gap after a reconnect or
 *   since an earlier run (./stream/gaps.ts), what matched bots' new rules before the service
 *   had them (./stream/new-rules.ts), and what mentioned new bots before their mention rule
 *   was in (./stream/backfill.ts);
 * - marks: where the app's stream left off, for the next start (./stream/marks.ts);
 * - its status, for `bot status` and the metrics (./stream/status.ts).
 */
import { MentionBackfill } from "./stream/backfill.ts";
import { StreamConnection } from "./stream/connection.ts";
import { GapSearch } from "./stream/gaps.ts";
import { MarkKeeper, type StreamMark } from "./stream/marks.ts";
import { NewRulesCatchUp, newlyWanted, wantersOf } from "./stream/new-rules.ts";
import type { StreamHubOptions } from "./stream/options.ts";
import { Routes, type MentionBot } from "./stream/routing.ts";
import { RuleSync } from "./stream/rule-sync.ts";
import type { BotRules, Wanter } from "./stream/rules.ts";
import { direct } from "./stream/search.ts";
import { HubStatus, type StreamStatus } from "./stream/status.ts";

export interface StreamHub {
  /** The bots' own rules: value → the bots (and their tags) that want it. */
  readonly routes: ReadonlyMap<string, readonly Wanter[]>;
  /** Resolves when the hub has been closed and its connection released. */
  readonly done: Promise<void>;
  status(): StreamStatus;
  /** Whether the hub has had this post (from the stream or a gap's search): tests wait for it. */
  has(postId: string): boolean;
  /** Whether it is doing something that needs no clock to move: syncing, connecting, recovering a gap. */
  busy(): boolean;
  /**
   * The bots of the app changed (one added, changed or removed): posts are routed to the new
   * wants at once, and the app's rules get the smallest change (./stream/rules.ts
   * `updateAppRules`) while the connection stays up. Resolves once the service has the new
   * rules (at the next sync when the hub is not connected: it syncs everything before it
   * connects). A failed change is retried, and logged, until it goes through or the hub closes.
   *
   * With `catchUp`, what matched the rules bots newly want before the service had them is
   * searched for since `catchUp.since` (when the caller last knew the wants without this
   * change), and handed to those bots as the stream would have (./stream/new-rules.ts). The
   * search runs after the returned promise resolves ({@link busy} while it does).
   */
  update(wants: readonly BotRules[], mentionBots?: readonly MentionBot[], catchUp?: { since: number }): Promise<void>;
  /** Where the stream is now ({@link StreamMark}; its `until` now while connected), to save it again. */
  mark(): StreamMark | undefined;
  /**
   * What mentioned bots that just joined the stream before their mention rule was in place,
   * since `sinceMs`, handed to their mentions triggers (./stream/backfill.ts: searches, not
   * mentions polls, packed for the bots that join together). Resolves with the posts found
   * for these bots.
   */
  backfill(bots: readonly string[], sinceMs: number): Promise<number>;
  close(): void;
}

/** Starts an app's stream: syncs its rules and keeps one connection open until closed. */
export function startStreamHub(options: StreamHubOptions): StreamHub {
  const { clock, log } = options;
  const budgeted = options.budgeted ?? direct;
  const closer = new AbortController();
  const closed = closer.signal;
  const status = new HubStatus(clock, options.onStatus);
  const routed = (bot: string, postId: string) => newRules.routed(bot, postId);
  const routes = new Routes({ bots: options.bots, status, routed });
  routes.want(options.wants, options.mentionBots ?? []);
  status.current.rules.own = routes.merged.size;
  status.current.mentionBots = routes.mentionBots.length;
  const rules = new RuleSync({ ...options, budgeted, routes, status, closed });
  const newRules = new NewRulesCatchUp({
    ...options,
    budgeted,
    merged: routes.merged,
    userIds: routes.userIds,
    connected: () => status.connected(),
    closed,
  });
  const backfills = new MentionBackfill({ ...options, budgeted, mentionBots: () => routes.mentionBots, closed });
  const marks = new MarkKeeper((mark) => options.onMark?.(mark));
  const gaps = new GapSearch({
    ...options,
    budgeted,
    routes,
    mentionValues: () => rules.mentionValues(),
    marks,
    status,
    marksKept: options.onMark !== undefined,
    closed,
  });
  const connection = new StreamConnection({ options, status, marks, rules, gaps, routes, closed });
  const done = connection.run().catch((err: unknown) => log.error({ err }, "the stream hub stopped unexpectedly"));
  return {
    routes: routes.merged,
    done,
    status: () => status.snapshot(),
    has: (postId) => routes.has(postId),
    busy: () =>
      status.current.state === "starting" || gaps.busy() || rules.busy() || backfills.busy() || newRules.busy(),
    update(wants, mentioned = [], catchUp) {
      const before = catchUp ? wantersOf(routes.merged) : undefined;
      routes.want(wants, mentioned);
      status.current.mentionBots = mentioned.length;
      if (!before || !catchUp) return rules.apply();
      return newRules.follow(newlyWanted(before, routes.merged), catchUp.since, () => rules.apply());
    },
    mark: () => marks.now(clock.now(), status.connected()),
    backfill: (bots, sinceMs) => backfills.backfill(bots, sinceMs),
    close() {
      if (status.connected()) marks.lostAt(clock.now());
      closer.abort();
      connection.close();
    },
  };
}
