/**
 * The stream trigger. The service allows one filtered-stream connection per app, so the
 * rules of every bot of an app are merged into that one connection. The hub is made of the
 * parts in ./stream/, one job each:
 *
 * - rule sync: the app's rules made what its bots want, before connecting and, by the
 *   smallest change, while connected (./stream/rules.ts, ./stream/rule-sync.ts);
 * - routing: each delivered post to the bots whose rules it matched, a mention to each bot it
 *   mentions or replies to, each once (./stream/routing.ts, which returns each bot's
 *   events), put as data in the hub's outbox (./stream/outbox.ts) by what read the post (the
 *   connection, or a gap's search): the hub calls no bot; whoever started it takes what it routed
 *   ({@link StreamHub.take}) and commits it where it goes, and the mark follows
 *   ({@link StreamHub.taken});
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
import { Outbox, type RoutedBatch } from "./stream/outbox.ts";
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
  /**
   * The bots' changes have paused (with `settles`: a reading of the app's directory found
   * nothing new): an update waiting for them to pause goes as soon as the app's window of rule
   * writes lets it (./stream/write-pacer.ts).
   */
  settled(): void;
  /**
   * While connected: reads the app's rules and puts right what differs from those the hub
   * made (./stream/rule-sync.ts `check`), as when a late write of the hub that ran the stream
   * before deleted one. Resolves once checked (at once when not connected).
   */
  checkRules(): Promise<void>;
  /** Where the stream is now ({@link StreamMark}; its `until` now while connected), to save it again. */
  mark(): StreamMark | undefined;
  /**
   * What mentioned bots that just joined the stream before their mention rule was in place,
   * since `sinceMs`, handed to their mentions triggers (./stream/backfill.ts: searches, not
   * mentions polls, packed for the bots that join together). Resolves with the posts found
   * for these bots.
   */
  backfill(bots: readonly string[], sinceMs: number): Promise<number>;
  /**
   * What the hub routed since the last take, each bot's events as data; waits until there
   * is some (nothing runs while the stream is quiet). `undefined` once the hub is closed and
   * everything routed before was taken. One taker at a time.
   */
  take(): Promise<RoutedBatch | undefined>;
  /** The batch's events are where they go (a bot's inbox, the handoff): the stream's mark moves past its posts. */
  taken(batch: RoutedBatch): void;
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
  const outbox = new Outbox();
  const routes = new Routes({ status, routed });
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
    outbox,
    closed,
  });
  const backfills = new MentionBackfill({
    ...options,
    budgeted,
    mentionBots: () => routes.mentionBots,
    outbox,
    closed,
  });
  const marks = new MarkKeeper((mark) => options.onMark?.(mark));
  const gaps = new GapSearch({
    ...options,
    budgeted,
    routes,
    outbox,
    mentionValues: () => rules.mentionValues(),
    marks,
    status,
    marksKept: options.onMark !== undefined,
    closed,
  });
  const connection = new StreamConnection({ options, status, marks, rules, gaps, routes, outbox, closed });
  const done = connection.run().catch((err: unknown) => log.error({ err }, "the stream hub stopped unexpectedly"));
  return {
    routes: routes.merged,
    done,
    status: () => status.snapshot(),
    has: (postId) => routes.has(postId),
    busy: () =>
      status.current.state === "starting" ||
      outbox.pending ||
      gaps.busy() ||
      rules.busy() ||
      backfills.busy() ||
      newRules.busy(),
    update(wants, mentioned = [], catchUp) {
      const before = catchUp ? wantersOf(routes.merged) : undefined;
      routes.want(wants, mentioned);
      status.current.mentionBots = mentioned.length;
      if (!before || !catchUp) return rules.apply();
      return newRules.follow(newlyWanted(before, routes.merged), catchUp.since, () => rules.apply());
    },
    settled: () => rules.settled(),
    checkRules: () => (status.connected() ? rules.check() : Promise.resolve()),
    mark: () => marks.now(clock.now(), status.connected()),
    backfill: (bots, sinceMs) => backfills.backfill(bots, sinceMs),
    take: () => outbox.take(),
    taken(batch) {
      const now = clock.now();
      for (const post of batch.posts) marks.delivered(post.id, now, post.streamed);
    },
    close() {
      if (status.connected()) marks.lostAt(clock.now());
      closer.abort();
      connection.close();
      // What was routed before is still taken; then the taker's take ends.
      outbox.close();
    },
  };
}
