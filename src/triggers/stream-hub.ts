/**
 * The stream trigger. The service allows one filtered-stream connection per app, so the
 * rules of every bot of an app are merged into that one connection:
 *
 * - The app's rules are synced before connecting: rules no bot wants are deleted, missing
 *   ones added. Two bots may want the same rule value; the service keeps one rule for it,
 *   and its tag names every bot that wants it (`greeter/ask,liker/cats`). The mentions of
 *   the bots that take them through the stream get packed rules of their own
 *   (./mention-rules.ts). A restart with the same bots changes nothing.
 * - Each delivered post goes to the bots whose rules it matched, as a `post` event with the
 *   bot's own tag, never to the bot that wrote it; a post matching a mention rule goes to
 *   the mentions trigger of each bot it mentions or replies to.
 * - It never gives up: whatever stops it (the bearer token refused or asked too often, the
 *   rules calls failing, any 4xx, 5xx or 429, a drop, a stall) is retried with the
 *   documented reconnect policy (../api/stream/reconnect-policy.ts) for as long as the
 *   process runs, and {@link StreamHub.status} says where it is and what failed last.
 * - No silent gaps: after a reconnect, the posts that matched the app's rules while it was
 *   away are fetched with recent search since the last post the stream delivered, and
 *   delivered once (a post both searched and streamed is handed out once). The log says
 *   how long the gap was and how many posts it recovered. The same at start: where the app's
 *   stream left off in an earlier run (a restart, or another process that held it and died)
 *   is kept in the state ({@link StreamMark}, ./stream-mark.ts), and the first connection
 *   closes the gap since then. Recent search reaches back 7 days: what matched before that
 *   is said, in the log and the status, to be beyond recovery.
 */
import type { ApiClient } from "../api/client.ts";
import { compareIds } from "../api/ids.ts";
import { ApiError, BearerTooFrequentError, NetworkError, ProblemError, RateLimitError } from "../api/errors.ts";
import type { EndpointKey } from "../api/endpoints.ts";
import type { Includes, Post, StreamRule, User } from "../api/types.ts";
import type { StreamEvent } from "../api/stream/post-stream.ts";
import { ReconnectPolicy, type ReconnectCause } from "../api/stream/reconnect-policy.ts";
import type { Executed, HeaderBag } from "../actions/action.ts";
import type { Clock } from "../clock.ts";
import type { Logger } from "../log.ts";
import { asEventPost, authorOf, EVENT_POST_QUERY, mentionEvents, type BotEvent, type EventPost } from "./events.ts";
import { MarkKeeper, REACH_MARGIN_MS, RECENT_SEARCH_REACH_MS, type StreamMark } from "./stream-mark.ts";
import {
  MENTIONS_RULE_TAG,
  mentionedBots,
  mentionRuleValue,
  packUsernames,
  planMentionRules,
  type RuleCaps,
} from "./mention-rules.ts";

export interface BotRules {
  bot: string;
  userId: string;
  rules: ReadonlyArray<{ value: string; tag?: string }>;
}

/** A bot whose mentions come through the app's stream. */
export interface MentionBot {
  bot: string;
  userId: string;
  username: string;
}

/**
 * The budgeted way to run one request of the hub: the runtime counts it against the app's
 * windows, and the answer's headers (from {@link ApiClient.exchange}) correct them, as for
 * every other budgeted request.
 */
export type Budgeted = <R>(endpoint: EndpointKey, run: (signal: AbortSignal) => Promise<Executed<R>>) => Promise<R>;

/** A client exchange as the budget takes it: the body as the result, with the headers. */
const executed = async <R>(exchange: Promise<{ body: R; headers: HeaderBag }>): Promise<Executed<R>> => {
  const { body, headers } = await exchange;
  return { result: body, headers };
};

/** Where an app's stream is, for `bot status` and the metrics. */
export interface StreamStatus {
  /** `starting` (syncing rules, connecting), `connected`, `reconnecting` (waiting to try again), `stopped`. */
  state: "starting" | "connected" | "reconnecting" | "stopped";
  /** When it entered this state (clock ms). */
  since: number;
  /** The last failure, whatever it was; kept after a later success so `bot status` can show it. */
  lastError?: { message: string; cause: ReconnectCause; at: number };
  /** When the next attempt is due, while `reconnecting`. */
  retryAt?: number;
  /** Connections established since start. */
  connects: number;
  /** Attempts that failed or connections that ended, since start. */
  reconnects: number;
  lastPostAt?: number;
  /** Posts delivered since start (from the stream and from gap recovery). */
  posts: number;
  /** The app's rules as synced: the bots' own, and the packed mention rules. */
  rules: { own: number; mentions: number };
  /** Bots whose mentions come through the stream. */
  mentionBots: number;
  /**
   * Gaps closed, at start (since an earlier run's stream) and after reconnects: how many, the
   * last one's length, posts recovered in all, and the part of the last gap too old for recent
   * search (its posts could not be recovered), if any.
   */
  gaps: { count: number; lastMs?: number; recovered: number; unrecovered?: { from: number; to: number } };
}

export interface StreamHubOptions {
  /** The app (non-secret id), for logs. */
  appId: string;
  clock: Clock;
  log: Logger;
  /**
   * A client holding the app's bearer token (the stream and its rules are app-only), made
   * for each attempt: the runtime keeps the token in the state store and fetches it anew
   * only after {@link forgetBearer}.
   */
  client(): Promise<ApiClient>;
  /** The service refused the bearer token (401): the next {@link client} must fetch a new one. */
  forgetBearer(): void;
  /** The plan's caps on the app's rules. */
  caps: RuleCaps;
  wants: readonly BotRules[];
  /** Bots whose mentions the stream delivers (empty: no mention rules). */
  mentionBots?: readonly MentionBot[];
  /** Runs each rules and search request; default: directly. */
  budgeted?: Budgeted;
  /** A post matched a bot's own rule. */
  deliver(bot: string, event: BotEvent): void;
  /** Mentions of a bot, for its mentions trigger (which hands each out once). */
  deliverMentions?(bot: string, events: BotEvent[]): void;
  /** Connected: `first` for the first connection of the process, else a reconnect. */
  onConnected?(first: boolean): void;
  /** An established connection ended (mention triggers must catch up after the next connect). */
  onInterrupted?(): void;
  /** Bots the mention rules could not cover (the app's rule cap): they must poll. */
  onOverflow?(bots: string[]): void;
  /**
   * Where the app's stream left off in an earlier run ({@link StreamMark}): the first
   * connection closes the gap since then. Read once, before the first connection.
   */
  resume?(): Promise<StreamMark | undefined>;
  /** The mark moved (a post delivered, a gap closed, the connection ended or closed): save it. */
  onMark?(mark: StreamMark): void;
  /**
   * The service refused a connection because the app's one connection is taken (429,
   * TooManyConnections): resolves `true` once the connection that holds it is known to have
   * closed (with the state in Redis: the process that held the stream before, which stopped
   * answering; it closes its connection when it runs again), so that the hub connects again
   * then rather than after the rate limit's back-off (a minute, doubling); `false` when that
   * cannot be known. Stops looking when `signal` aborts.
   */
  connectionFreed?(signal: AbortSignal): Promise<boolean>;
  /** Every status change. */
  onStatus?(status: StreamStatus): void;
}

export interface StreamHub {
  /** The bots' own rules: value → the bots (and their tags) that want it. */
  readonly routes: ReadonlyMap<string, ReadonlyArray<{ bot: string; tag?: string }>>;
  /** Resolves when the hub has been closed and its connection released. */
  readonly done: Promise<void>;
  status(): StreamStatus;
  /** Whether the hub has had this post (from the stream or a gap's search): tests wait for it. */
  has(postId: string): boolean;
  /** Whether it is doing something that needs no clock to move: syncing, connecting, recovering a gap. */
  busy(): boolean;
  /**
   * The bots of the app changed (one added, changed or removed): posts are routed to the new
   * wants at once, and the app's rules get the smallest change ({@link updateAppRules})
   * while the connection stays up. Resolves once the service has the new rules (at the next
   * sync when the hub is not connected: it syncs everything before it connects). A failed
   * change is retried, and logged, until it goes through or the hub closes.
   *
   * With `catchUp`, what matched the rules bots newly want (a bot that joined, or changed its
   * rules) before the service had them is searched for once it does, since `catchUp.since`
   * (when the caller last knew the wants without this change), and handed to those bots as
   * the stream would have; what the stream gave them meanwhile is not handed out again. Only
   * while connected: a reconnect's gap search covers every rule anyway. The search runs after
   * the returned promise resolves ({@link busy} while it does).
   */
  update(wants: readonly BotRules[], mentionBots?: readonly MentionBot[], catchUp?: { since: number }): Promise<void>;
  /** Where the stream is now ({@link StreamMark}; its `until` now while connected), to save it again. */
  mark(): StreamMark | undefined;
  /**
   * What mentioned bots that just joined the stream before their mention rule was in place:
   * recent search of their mention terms since `sinceMs`, each bot's handed to its mentions
   * trigger as the stream would have (which hands each post out once, however it came).
   * Costs searches, not mentions polls: in a large fleet the app's window of mentions polls
   * is spent on catch-up polls for hours, and a new bot's first mention must not wait for it.
   * One search covers many bots: the calls that come together (a whole process's bots join
   * in one fleet change) are answered by one round, their usernames packed into as few
   * queries as the search's length allows, so 3,000 bots joining cost about 20 searches,
   * not 3,000. Resolves with the posts found for these bots.
   */
  backfill(bots: readonly string[], sinceMs: number): Promise<number>;
  close(): void;
}

/** The tag the service keeps for a rule value: every bot that wants it and its own tag. */
export const ruleTag = (wanters: ReadonlyArray<{ bot: string; tag?: string }>) =>
  wanters.map((w) => `${w.bot}/${w.tag ?? ""}`).join(",");

/** The merged rules: value → wanters, in the order the bots were given. */
export function mergeRules(wants: readonly BotRules[]): Map<string, Array<{ bot: string; tag?: string }>> {
  const merged = new Map<string, Array<{ bot: string; tag?: string }>>();
  for (const { bot, rules } of wants) {
    for (const rule of rules) {
      const list = merged.get(rule.value) ?? [];
      if (!list.some((w) => w.bot === bot)) list.push({ bot, ...(rule.tag !== undefined ? { tag: rule.tag } : {}) });
      merged.set(rule.value, list);
    }
  }
  return merged;
}

/** The rules after a sync. */
export interface SyncedRules {
  /** Every rule of the app, by id. */
  byId: Map<string, StreamRule>;
  /** The mention rules' values. */
  mentionValues: string[];
  /** Usernames the cap left without a mention rule. */
  overflow: string[];
}

const direct: Budgeted = async (_endpoint, run) => (await run(new AbortController().signal)).result;

/**
 * Makes the app's rules exactly the wanted ones: the bots' own (merged) and, when
 * `mentions` is given, the packed mention rules of those usernames. Deletes what no bot
 * wants (or whose tag is stale), adds what is missing; a bot's rule the service refuses is
 * logged and the rest go on. Idempotent: a second run with the same wants sends no change.
 */
export async function syncAppRules(
  options: RulesOptions,
  merged: Map<string, Array<{ bot: string; tag?: string }>>,
  mentions?: { usernames: readonly string[]; caps: RuleCaps },
): Promise<SyncedRules> {
  const { client } = options;
  const budgeted = options.budgeted ?? direct;
  const existing: StreamRule[] = [];
  let token: string | undefined;
  do {
    const page = await budgeted("GET /2/posts/search/stream/rules", (signal) =>
      executed(
        client.exchange(
          "GET /2/posts/search/stream/rules",
          { query: { max_results: 1000, ...(token ? { pagination_token: token } : {}) } },
          { signal },
        ),
      ),
    );
    existing.push(...((page.data as StreamRule[] | undefined) ?? []));
    token = page.meta?.next_token;
  } while (token);
  // A rule whose tag no longer names its bots is replaced, so the service's list reads right.
  return await changeRules(options, existing, merged, mentions, { retag: true });
}

/**
 * The smallest change from the rules synced before (`current`) to the wanted ones, for a
 * stream that stays connected (a bot added, changed or removed): only values no bot wanted
 * before are added, only values no bot wants any more deleted, and the mention rules keep
 * every pack whose bots are all still wanted. A value whose bots changed keeps its rule
 * (posts are routed by value; its tag is brought up to date at the next full sync). Adds go
 * before deletes when the cap leaves room, so a repacked mention rule leaves no gap.
 */
export async function updateAppRules(
  options: RulesOptions,
  current: SyncedRules,
  merged: Map<string, Array<{ bot: string; tag?: string }>>,
  mentions?: { usernames: readonly string[]; caps: RuleCaps },
): Promise<SyncedRules> {
  return await changeRules(options, [...current.byId.values()], merged, mentions, { retag: false });
}

/** How rules are synced: the app's client, its log, and the budget its requests go through. */
export interface RulesOptions {
  client: ApiClient;
  log: Logger;
  budgeted?: Budgeted;
  /** The plan's caps (how many rules the app may have: whether adds fit before the deletes). */
  caps?: RuleCaps;
}

/** Computes and sends the change from `existing` to the wanted rules; see {@link syncAppRules}, {@link updateAppRules}. */
async function changeRules(
  options: RulesOptions,
  existing: readonly StreamRule[],
  merged: Map<string, Array<{ bot: string; tag?: string }>>,
  mentions: { usernames: readonly string[]; caps: RuleCaps } | undefined,
  how: { retag: boolean },
): Promise<SyncedRules> {
  const { client, log } = options;
  const budgeted = options.budgeted ?? direct;
  const wanted = new Map([...merged].map(([value, wanters]) => [value, ruleTag(wanters)]));
  const isMention = (r: StreamRule) => r.tag === MENTIONS_RULE_TAG;
  const own = existing.filter((r) => !isMention(r));
  const stale = own.filter((r) => (how.retag ? wanted.get(r.value) !== (r.tag ?? "") : !wanted.has(r.value)));
  const keep = new Set(own.filter((r) => !stale.includes(r)).map((r) => r.value));
  const add = [...wanted].filter(([value]) => !keep.has(value)).map(([value, tag]) => ({ value, tag }));
  const plan = mentions
    ? planMentionRules(
        mentions.usernames,
        existing.filter(isMention),
        mentions.caps,
        mentions.caps.maxRules - wanted.size,
      )
    : { keep: [], add: [], remove: existing.filter(isMention), overflow: [] };

  const doomed = [...stale, ...plan.remove];
  const byId = new Map([...own.filter((r) => keep.has(r.value)), ...plan.keep].map((r) => [r.id, r]));
  const remove = async () => {
    if (doomed.length === 0) return;
    await budgeted("POST /2/posts/search/stream/rules", (signal) =>
      executed(
        client.exchange(
          "POST /2/posts/search/stream/rules",
          { body: { delete: { ids: doomed.map((r) => r.id) } } },
          { signal },
        ),
      ),
    );
    log.info({ deleted: doomed.length }, `stream rules: deleted ${doomed.length} no bot wants any more`);
  };
  const addRules = async (rules: Array<{ value: string; tag: string }>) => {
    const res = await budgeted("POST /2/posts/search/stream/rules", (signal) =>
      executed(client.exchange("POST /2/posts/search/stream/rules", { body: { add: rules } }, { signal })),
    );
    for (const rule of (res.data as StreamRule[] | undefined) ?? []) byId.set(rule.id, rule);
    const refused = (res.errors ?? []).map(
      (e) => `${String(e.value ?? "")}: ${e.title}${e.detail ? ` (${e.detail})` : ""}`,
    );
    if (refused.length > 0)
      log.error({ refused }, `stream rules: the service refused ${refused.length}; fix them in the bot files`);
  };
  const addAll = async () => {
    if (add.length > 0) {
      try {
        await addRules(add);
      } catch (err) {
        if (!(err instanceof ProblemError) || err.status !== 400) throw err;
        // One refused rule refuses the whole request: add them one by one, naming each refused.
        for (const rule of add) {
          await addRules([rule]).catch((e: unknown) => {
            if (!(e instanceof ProblemError) || e.status !== 400) throw e;
            log.error(
              { rule: rule.value, bots: rule.tag },
              `stream rule "${rule.value}" (${rule.tag}) was refused by the service: ${e.message}; fix it in the bot file`,
            );
          });
        }
      }
      log.info({ added: add.length }, `stream rules: added ${add.length} of the bots' rules`);
    }
    if (plan.add.length > 0) {
      await addRules(plan.add.map((value) => ({ value, tag: MENTIONS_RULE_TAG })));
      log.info({ added: plan.add.length }, `stream rules: added ${plan.add.length} mention rules`);
    }
  };
  // Adding first leaves no moment without a rule for a repacked bot; a full sync (or a cap
  // without room for both) deletes first, as the service counts every rule against the cap.
  const cap = (options.caps ?? mentions?.caps)?.maxRules ?? 0;
  const room = cap - existing.length;
  if (!how.retag && add.length + plan.add.length <= room) {
    await addAll();
    await remove();
  } else {
    await remove();
    await addAll();
  }
  const mentionValues = [...byId.values()].filter(isMention).map((r) => r.value);
  return { byId, mentionValues, overflow: plan.overflow };
}

/** {@link syncAppRules} for the bots' own rules only; returns the app's rules by id. */
export async function syncRules(
  options: RulesOptions,
  merged: Map<string, Array<{ bot: string; tag?: string }>>,
): Promise<Map<string, StreamRule>> {
  return (await syncAppRules(options, merged)).byId;
}

/** The service's error behind a failure (the action layer wraps what it could not send). */
function apiErrorOf(err: unknown): ApiError | undefined {
  for (let e = err, i = 0; e && i < 5; i++) {
    if (e instanceof ApiError) return e;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/** Whether the service refused a connection because the app's one stream connection is taken (429, TooManyConnections). */
function tooManyConnections(failure: unknown): boolean {
  const err = apiErrorOf(failure) ?? failure;
  return (
    err instanceof RateLimitError &&
    (err.problem as { connection_issue?: unknown } | undefined)?.connection_issue === "TooManyConnections"
  );
}

/** Why an attempt failed, as the reconnect policy counts it. */
function causeOf(failure: unknown): ReconnectCause {
  const err = apiErrorOf(failure) ?? failure;
  if (err instanceof NetworkError) return "network";
  if (err instanceof BearerTooFrequentError) return "http";
  if (err instanceof ApiError && err.status === 429) return "rate-limit";
  return "http";
}

/** A post as the event of a bot whose rule (`value`, with the bot's tag) it matched. */
function postEvent(post: EventPost, author: User, value: string, wanter: { bot: string; tag?: string }): BotEvent {
  return {
    kind: "post",
    id: `post:${post.id}`,
    post,
    author,
    rule: { value, ...(wanter.tag !== undefined ? { tag: wanter.tag } : {}) },
  };
}

/** Which bots want each value (merged rules). */
function wantersOf(merged: ReadonlyMap<string, ReadonlyArray<{ bot: string }>>): Map<string, Set<string>> {
  return new Map([...merged].map(([value, wanters]) => [value, new Set(wanters.map((w) => w.bot))]));
}

/** The values bots want now that they did not want `before`: value → those bots. */
function newlyWanted(
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

/** A call of {@link StreamHub.backfill} waiting for its round of searches. */
interface BackfillAsk {
  bots: readonly string[];
  since: number;
  resolve(found: number): void;
  reject(err: unknown): void;
}

/** A gap to close: since when (`from`), from which post (or time) to search, and whether it is the one since an earlier run. */
interface Gap {
  from: number;
  sinceId?: string;
  sinceAt: number;
  start?: boolean;
}

const iso = (ms: number) => new Date(ms).toISOString();
const days = (ms: number) => `${(ms / 86_400_000).toFixed(1)} days`;

/** How many post ids the hub remembers to hand each post out once (stream and recovery). */
const RECENT_POSTS = 50_000;
/** A recent search query's longest (pro; the mention rules are joined up to it). */
const SEARCH_QUERY_MAX = 4096;

/** Starts an app's stream: syncs its rules and keeps one connection open until closed. */
export function startStreamHub(options: StreamHubOptions): StreamHub {
  const { clock, log } = options;
  const budgeted = options.budgeted ?? direct;
  const merged = new Map<string, Array<{ bot: string; tag?: string }>>();
  const userIds = new Map<string, string>();
  let mentionBots: readonly MentionBot[] = [];
  const byUsername = new Map<string, MentionBot>();
  const byUserId = new Map<string, MentionBot>();
  /**
   * Each mention bot routed now (as given: the caller keeps a bot's object while it does not
   * change), its username's key, and the update that last named it. A change of one bot of
   * 10,000 re-routes that one; the others are only recognised.
   */
  const routed = new Map<MentionBot, { key: string; seen: number }>();
  let updates = 0;
  /** Bots the rule cap left out: routed again at the next want, as every bot named is. */
  const capped = new Map<string, MentionBot>();
  /** What the bots want now: routing follows at once, the service's rules at the next sync or update. */
  const want = (wants: readonly BotRules[], mentioned: readonly MentionBot[]) => {
    merged.clear();
    for (const [value, wanters] of mergeRules(wants)) merged.set(value, wanters);
    userIds.clear();
    for (const w of wants) userIds.set(w.bot, w.userId);
    mentionBots = mentioned;
    const seen = ++updates;
    for (const [key, m] of capped) if (!byUsername.has(key)) byUsername.set(key, m);
    capped.clear();
    let named = 0;
    for (const m of mentioned) {
      const known = routed.get(m);
      if (known) {
        if (known.seen !== seen) named++;
        known.seen = seen;
        continue;
      }
      const key = m.username.toLowerCase();
      routed.set(m, { key, seen });
      named++;
      byUsername.set(key, m);
      byUserId.set(m.userId, m);
    }
    if (named === routed.size) return;
    for (const [m, { key, seen: last }] of routed) {
      if (last === seen) continue;
      routed.delete(m);
      if (byUsername.get(key) === m) byUsername.delete(key);
      if (byUserId.get(m.userId) === m) byUserId.delete(m.userId);
    }
  };
  want(options.wants, options.mentionBots ?? []);
  const mentionsWanted = () =>
    mentionBots.length > 0 ? { usernames: mentionBots.map((m) => m.username), caps: options.caps } : undefined;
  const closer = new AbortController();
  const recent = new Set<string>();
  /**
   * Bots with newly wanted rules whose catch-up search is to come ({@link StreamHub.update}):
   * the posts the stream routed to each meanwhile (so the search hands them out once), and
   * how many updates wait on it.
   */
  const joining = new Map<string, { posts: Set<string>; updates: number }>();
  let rules: SyncedRules | undefined;
  let current: { close(): void } | undefined;
  /** Syncs and updates of the rules, one at a time (an update waits for the sync under way). */
  let rulesWork: Promise<unknown> = Promise.resolve();
  const exclusive = <T>(work: () => Promise<T>): Promise<T> => {
    const next = rulesWork.then(work);
    rulesWork = next.catch(() => undefined);
    return next;
  };
  /** Rule updates sending their requests now (not waiting for the clock to retry). */
  let applying = 0;
  /** Searches for new bots' earlier mentions under way. */
  let backfilling = 0;
  /** The rules just synced: the status follows, and bots the cap leaves out poll instead. */
  const synced = (next: SyncedRules) => {
    rules = next;
    status.rules = { own: merged.size, mentions: next.mentionValues.length };
    if (next.overflow.length === 0) return;
    const bots = next.overflow.map((u) => byUsername.get(u)?.bot).filter((b): b is string => b !== undefined);
    log.error(
      { bots: bots.length },
      `the app's rule cap (${options.caps.maxRules} rules) leaves ${bots.length} bots without a mention rule; they poll their mentions instead`,
    );
    for (const username of next.overflow) {
      const m = byUsername.get(username);
      if (m) capped.set(username, m);
      byUsername.delete(username);
    }
    options.onOverflow?.(bots);
  };

  const status: StreamStatus = {
    state: "starting",
    since: clock.now(),
    connects: 0,
    reconnects: 0,
    posts: 0,
    rules: { own: merged.size, mentions: 0 },
    mentionBots: mentionBots.length,
    gaps: { count: 0, recovered: 0 },
  };
  const changed = () => options.onStatus?.(structuredClone(status));
  const enter = (state: StreamStatus["state"]) => {
    status.state = state;
    status.since = clock.now();
    if (state !== "reconnecting") delete status.retryAt;
    changed();
  };

  /** Routes one post; returns whether it was new. `values` are the rule values it matched. */
  const route = (raw: Post, includes: Includes | undefined, values: readonly string[]): boolean => {
    const post = asEventPost(raw);
    if (!post || recent.has(post.id)) return false;
    recent.add(post.id);
    if (recent.size > RECENT_POSTS) recent.delete(recent.values().next().value!);
    const author = authorOf(post, includes) ?? { id: post.author_id, name: "", username: "" };
    const reached = new Set<string>();
    for (const value of values) {
      for (const wanter of merged.get(value) ?? []) {
        if (reached.has(wanter.bot) || userIds.get(wanter.bot) === post.author_id) continue;
        reached.add(wanter.bot);
        joining.get(wanter.bot)?.posts.add(post.id);
        options.deliver(wanter.bot, postEvent(post, author, value, wanter));
      }
    }
    if (mentionBots.length > 0 && options.deliverMentions) {
      for (const bot of mentionedBots(post, byUsername, byUserId)) {
        const events = mentionEvents([post], includes, bot.userId);
        if (events.length > 0) options.deliverMentions(bot.bot, events);
      }
    }
    status.posts++;
    status.lastPostAt = clock.now();
    return true;
  };

  const onPost = (event: Extract<StreamEvent, { type: "post" }>) => {
    const values = (event.matching_rules ?? [])
      .map((m) => rules?.byId.get(m.id)?.value)
      .filter((v): v is string => v !== undefined);
    if (!route(event.data, event.includes, values)) return;
    lastPostId = event.data.id;
    marks.delivered(event.data.id, clock.now(), true);
  };

  /**
   * Every post recent search finds for `query` in `scope` (a `start_time` or a `since_id`),
   * all its pages, oldest first, each with the page's includes; budgeted, and stopped when
   * the hub closes.
   */
  const searchAll = async (
    client: ApiClient,
    query: string,
    scope: { start_time: Date } | { since_id: string },
  ): Promise<Array<{ post: Post; includes: Includes | undefined }>> => {
    const found: Array<{ post: Post; includes: Includes | undefined }> = [];
    let next: string | undefined;
    do {
      const page = await budgeted("GET /2/posts/search/recent", (signal) =>
        executed(
          client.exchange(
            "GET /2/posts/search/recent",
            {
              query: {
                ...EVENT_POST_QUERY,
                query,
                max_results: 100,
                ...scope,
                ...(next ? { next_token: next } : {}),
              },
            },
            { signal: AbortSignal.any([signal, closer.signal]) },
          ),
        ),
      );
      for (const post of page.data ?? []) found.push({ post, includes: page.includes });
      next = page.meta?.next_token;
    } while (next && !closer.signal.aborted);
    return found.sort((a, b) => compareIds(a.post.id, b.post.id));
  };

  /**
   * The posts of a gap, by recent search: each own rule alone, the mention rules joined; from
   * the last post delivered (`since.id`), or from `since.at`; not further back than recent
   * search reaches.
   */
  const recover = async (client: ApiClient, since: { id?: string; at: number }): Promise<number> => {
    const reach = clock.now() - RECENT_SEARCH_REACH_MS + REACH_MARGIN_MS;
    const from =
      since.at < reach
        ? { start_time: new Date(reach) }
        : since.id
          ? { since_id: since.id }
          : { start_time: new Date(since.at) };
    const queries: Array<{ query: string; values: string[] }> = [...merged.keys()].map((value) => ({
      query: value,
      values: [value],
    }));
    let joined = "";
    for (const value of rules?.mentionValues ?? []) {
      if (joined && joined.length + 4 + value.length > SEARCH_QUERY_MAX) {
        queries.push({ query: joined, values: [] });
        joined = "";
      }
      joined = joined ? `${joined} OR ${value}` : value;
    }
    if (joined) queries.push({ query: joined, values: [] });
    let recovered = 0;
    for (const { query, values } of queries) {
      const found = await searchAll(client, query, from);
      for (const { post, includes } of found) {
        if (!route(post, includes, values)) continue;
        recovered++;
        marks.delivered(post.id, clock.now(), false);
      }
    }
    return recovered;
  };

  /**
   * Closes a gap once connected (in the background: the stream's posts flow meanwhile) and
   * says how long it was and what it recovered; `start` for the gap since an earlier run.
   */
  const closeGap = (client: ApiClient, gap: Gap) => {
    recovering++;
    marks.holdForGap();
    const reach = clock.now() - RECENT_SEARCH_REACH_MS + REACH_MARGIN_MS;
    const unrecovered = gap.from < reach ? { from: gap.from, to: reach } : undefined;
    if (unrecovered) {
      status.gaps.unrecovered = unrecovered;
      log.error(
        {
          gap_ms: clock.now() - gap.from,
          unrecovered_from: iso(unrecovered.from),
          unrecovered_to: iso(unrecovered.to),
        },
        `stream gap of ${days(clock.now() - gap.from)} is longer than recent search reaches (7 days): posts that matched the rules between ${iso(unrecovered.from)} and ${iso(unrecovered.to)} could not be recovered`,
      );
    }
    void recover(client, { ...(gap.sinceId ? { id: gap.sinceId } : {}), at: gap.sinceAt })
      .then((recovered) => {
        const ms = clock.now() - gap.from;
        status.gaps.count++;
        status.gaps.lastMs = ms;
        status.gaps.recovered += recovered;
        marks.gapEnded(true, clock.now());
        changed();
        log.warn(
          { gap_ms: ms, recovered, ...(gap.start ? { at_start: true } : {}) },
          gap.start
            ? `stream gap of ${(ms / 1000).toFixed(1)} s since this app's stream last ran (a restart, or a process that held it stopped) closed: recent search recovered ${recovered} posts that matched the rules meanwhile`
            : `stream gap of ${(ms / 1000).toFixed(1)} s closed: recent search recovered ${recovered} posts that matched the rules meanwhile`,
        );
      })
      .catch((err: unknown) => {
        marks.gapEnded(false, clock.now());
        if (!closer.signal.aborted)
          log.error(
            { err },
            `could not recover the stream's gap with recent search: ${(err as Error)?.message ?? String(err)}; those posts are not delivered${options.onMark ? " (the next start tries again)" : ""}`,
          );
      })
      .finally(() => recovering--);
  };

  let lastPostId: string | undefined;
  let recovering = 0;
  const marks = new MarkKeeper((mark) => options.onMark?.(mark));
  /** The earlier run's mark, if any (a failure to read it is said, and the stream starts without). */
  const resume = async (): Promise<StreamMark | undefined> => {
    try {
      return await options.resume?.();
    } catch (err) {
      log.error(
        { err },
        `could not read where the app's stream left off: ${(err as Error)?.message ?? String(err)}; what matched the rules while no process held the stream is not searched for`,
      );
      return undefined;
    }
  };

  const run = async () => {
    const policy = new ReconnectPolicy();
    /** Set while a connection that was established has ended (or an earlier run's did): the gap to close on the next one. */
    let gap: Gap | undefined;
    let connectedAt = clock.now();
    const earlier = await resume();
    if (earlier) {
      marks.resume(earlier);
      gap = { from: earlier.until, ...(earlier.id ? { sinceId: earlier.id } : {}), sinceAt: earlier.at, start: true };
    }
    while (!closer.signal.aborted) {
      if (status.state !== "starting") enter("starting");
      let failure: { cause: ReconnectCause; error: unknown } | undefined;
      let client: ApiClient | undefined;
      try {
        client = await options.client();
        if (!rules) {
          const c = client;
          await exclusive(async () =>
            synced(await syncAppRules({ client: c, log, budgeted }, merged, mentionsWanted())),
          );
        }
        if (closer.signal.aborted) break;
        const stream = client.stream("GET /2/posts/search/stream", EVENT_POST_QUERY, { reconnect: false });
        current = stream;
        const c = client;
        try {
          for await (const event of stream) {
            if (event.type === "post") onPost(event);
            else if (event.type === "connected") {
              policy.connected();
              status.connects++;
              connectedAt = clock.now();
              enter("connected");
              marks.connected(clock.now());
              options.onConnected?.(status.connects === 1);
              if (gap) {
                closeGap(c, gap);
                gap = undefined;
              }
            } else if (event.type === "gave-up") failure = { cause: event.cause, error: event.error };
            else if (event.type === "stream-error")
              log.warn({ errors: event.errors }, "the service sent an error in the stream");
          }
        } catch (err) {
          failure ??= { cause: causeOf(err), error: err };
        }
        if (status.state === "connected") {
          gap = { from: clock.now(), ...(lastPostId ? { sinceId: lastPostId } : {}), sinceAt: connectedAt };
          marks.lostAt(clock.now());
          options.onInterrupted?.();
        }
      } catch (err) {
        failure = { cause: causeOf(err), error: err };
      } finally {
        current = undefined;
        void client?.close();
      }
      if (closer.signal.aborted) break;
      const error = failure?.error;
      const message = error instanceof Error ? error.message : failure ? String(error) : "the stream ended";
      const cause = failure?.cause ?? "drop";
      if (apiErrorOf(error)?.status === 401) options.forgetBearer();
      // Anything but a plain drop may mean the rules are wrong or gone: sync them again.
      if (cause !== "drop" && cause !== "stall" && cause !== "stream-error") rules = undefined;
      status.reconnects++;
      status.lastError = { message, cause, at: clock.now() };
      const delay = policy.next(cause);
      status.retryAt = clock.now() + delay;
      enter("reconnecting");
      const taken = tooManyConnections(error) ? options.connectionFreed : undefined;
      log.warn(
        { cause, delay_ms: delay, attempt: policy.attempts, err: message },
        `stream of app ${options.appId}: ${message}; reconnecting in ${(delay / 1000).toFixed(1)} s (${cause})${taken ? ", or as soon as the connection that holds it closes" : ""}`,
      );
      if (delay > 0) await reconnectWait(delay, taken);
    }
    enter("stopped");
  };

  /**
   * The wait before the next attempt: `delay`, or less when the connection that took the app's
   * one connection is known to have closed ({@link StreamHubOptions.connectionFreed}).
   */
  const reconnectWait = async (delay: number, freed: StreamHubOptions["connectionFreed"]) => {
    const wake = new AbortController();
    const stop = () => wake.abort();
    closer.signal.addEventListener("abort", stop, { once: true });
    void freed?.(wake.signal).then(
      (closed) => {
        if (!closed || wake.signal.aborted) return;
        log.info(
          `stream of app ${options.appId}: the connection that held the app's stream closed; connecting again now`,
        );
        wake.abort();
      },
      () => undefined,
    );
    await clock.sleep(delay, wake.signal).catch(() => undefined);
    wake.abort();
    closer.signal.removeEventListener("abort", stop);
  };

  const done = run().catch((err: unknown) => log.error({ err }, "the stream hub stopped unexpectedly"));

  /** The bots asked to be searched for since the last search began, each call with whom it waits for. */
  let asks: BackfillAsk[] = [];
  let searching = false;
  const backfill = (bots: readonly string[], sinceMs: number): Promise<number> => {
    if (bots.length === 0 || closer.signal.aborted) return Promise.resolve(0);
    return new Promise<number>((resolve, reject) => {
      asks.push({ bots, since: sinceMs, resolve, reject });
      if (searching) return;
      searching = true;
      backfilling++;
      void searchAsked();
    });
  };
  /**
   * Answers the asks in rounds: the bots asked for in one round (whatever joined meanwhile:
   * a whole process's bots come in one fleet change, a single process's bots one update
   * after another) share their searches, the next round takes what came during this one.
   */
  const searchAsked = async () => {
    try {
      // The joins of one moment (the follow-ups of updates that ended together) come in one round.
      await new Promise<void>((resolve) => setImmediate(resolve));
      while (asks.length > 0 && !closer.signal.aborted) {
        const round = asks;
        asks = [];
        try {
          const found = await searchMentions(round);
          for (const ask of round) ask.resolve(ask.bots.reduce((n, bot) => n + (found.get(bot) ?? 0), 0));
        } catch (err) {
          for (const ask of round) ask.reject(err);
        }
      }
      for (const ask of asks.splice(0)) ask.resolve(0);
    } finally {
      searching = false;
      backfilling--;
    }
  };
  /**
   * One round's searches: the bots' usernames packed into as few queries as the search's
   * length allows (packed as the mention rules are: ./mention-rules.ts), each query paged as
   * far back as its earliest bot asked; each post found goes to the bots of the pack it is
   * for ({@link mentionedBots}), not older than each one asked. Returns the mentions each bot got.
   */
  const searchMentions = async (round: readonly BackfillAsk[]): Promise<Map<string, number>> => {
    const since = new Map<string, number>();
    for (const ask of round)
      for (const bot of ask.bots) since.set(bot, Math.min(since.get(bot) ?? Infinity, ask.since));
    const byName = new Map<string, MentionBot>();
    for (const m of mentionBots) if (since.has(m.bot)) byName.set(m.username.toLowerCase(), m);
    const found = new Map<string, number>();
    if (byName.size === 0) return found;
    const client = await options.client();
    try {
      for (const pack of packUsernames([...byName.keys()], SEARCH_QUERY_MAX)) {
        const bots = pack.map((name) => byName.get(name)!);
        const byUsername = new Map(pack.map((name) => [name, byName.get(name)!]));
        const byUserId = new Map(bots.map((m) => [m.userId, m]));
        const from = Math.min(...bots.map((m) => since.get(m.bot)!));
        const posts = await searchAll(client, mentionRuleValue(pack), { start_time: new Date(from) });
        const events = new Map<MentionBot, BotEvent[]>();
        for (const { post, includes } of posts) {
          const at = Date.parse(post.created_at ?? "");
          for (const bot of mentionedBots(post, byUsername, byUserId)) {
            if (at < since.get(bot.bot)!) continue;
            const mine = mentionEvents([post], includes, bot.userId);
            if (mine.length === 0) continue;
            const list = events.get(bot);
            if (list) list.push(...mine);
            else events.set(bot, mine);
          }
        }
        for (const [bot, mine] of events) {
          found.set(bot.bot, mine.length);
          options.deliverMentions?.(bot.bot, mine);
        }
      }
    } finally {
      void client.close();
    }
    return found;
  };

  const update = (
    wants: readonly BotRules[],
    mentioned: readonly MentionBot[] = [],
    catchUp?: { since: number },
  ): Promise<void> => {
    const before = catchUp ? wantersOf(merged) : undefined;
    want(wants, mentioned);
    status.mentionBots = mentioned.length;
    const fresh = before ? newlyWanted(before, merged) : new Map<string, Set<string>>();
    const bots = new Set([...fresh.values()].flatMap((b) => [...b]));
    for (const bot of bots) {
      const watch = joining.get(bot) ?? { posts: new Set<string>(), updates: 0 };
      watch.updates++;
      joining.set(bot, watch);
    }
    const applied = applyRules();
    if (bots.size === 0) return applied;
    const release = () => {
      for (const bot of bots) {
        const watch = joining.get(bot);
        if (watch && --watch.updates === 0) joining.delete(bot);
      }
    };
    return applied.then(
      () => {
        backfilling++;
        void searchNewRules(fresh, catchUp!.since).finally(() => {
          backfilling--;
          release();
        });
      },
      (err: unknown) => {
        release();
        throw err;
      },
    );
  };

  /**
   * The posts that matched values bots newly want (value → those bots) since `sinceMs`, before
   * the service had the rules: each value searched alone (a post is handed out with the rule
   * it matched), each post to each of those bots still wanting it, unless the stream gave it
   * to the bot already or the bot wrote it. A value the search refuses is logged and skipped.
   */
  const searchNewRules = async (fresh: ReadonlyMap<string, ReadonlySet<string>>, sinceMs: number) => {
    if (status.state !== "connected" || closer.signal.aborted) return;
    const from = Math.max(sinceMs, clock.now() - RECENT_SEARCH_REACH_MS + REACH_MARGIN_MS);
    let client: ApiClient | undefined;
    let found = 0;
    try {
      client = await options.client();
      const c = client;
      for (const [value, bots] of fresh) {
        let posts: Awaited<ReturnType<typeof searchAll>>;
        try {
          posts = await searchAll(c, value, { start_time: new Date(from) });
        } catch (err) {
          const refused = apiErrorOf(err);
          if (!(refused instanceof ProblemError) || refused.status !== 400) throw err;
          log.warn(
            { rule: value, err: (err as Error).message },
            `stream rule "${value}": recent search refused it (${(err as Error).message}); what matched it before the rule was in is not searched for`,
          );
          continue;
        }
        for (const { post: raw, includes } of posts) {
          const post = asEventPost(raw);
          if (!post) continue;
          const author = authorOf(post, includes) ?? { id: post.author_id, name: "", username: "" };
          for (const wanter of merged.get(value) ?? []) {
            const watch = joining.get(wanter.bot);
            if (!bots.has(wanter.bot) || !watch || watch.posts.has(post.id)) continue;
            if (userIds.get(wanter.bot) === post.author_id) continue;
            watch.posts.add(post.id);
            found++;
            options.deliver(wanter.bot, postEvent(post, author, value, wanter));
          }
        }
      }
      if (found > 0)
        log.info(
          { found, rules: fresh.size },
          `stream rules: ${found} posts matched bots' new rules before the service had them; handed to those bots`,
        );
    } catch (err) {
      if (!closer.signal.aborted)
        log.warn(
          { err: (err as Error)?.message ?? String(err) },
          `could not search for what matched bots' new stream rules before the service had them (${(err as Error)?.message ?? String(err)}); those posts are not delivered`,
        );
    } finally {
      void client?.close();
    }
  };

  /** The rules to what the bots want now, by the smallest change, once the sync or update before is done. */
  const applyRules = (): Promise<void> =>
    exclusive(async () => {
      for (let attempt = 1; rules && !closer.signal.aborted; attempt++) {
        let client: ApiClient | undefined;
        applying++;
        try {
          client = await options.client();
          synced(await updateAppRules({ client, log, budgeted, caps: options.caps }, rules, merged, mentionsWanted()));
          changed();
          return;
        } catch (err) {
          if (closer.signal.aborted) return;
          if (apiErrorOf(err)?.status === 401) options.forgetBearer();
          const delay = Math.min(60_000, 1_000 * 2 ** (attempt - 1));
          log.warn(
            { err: (err as Error)?.message ?? String(err), delay_ms: delay },
            `stream of app ${options.appId}: could not change its rules for the bots' change (${(err as Error)?.message ?? String(err)}); trying again in ${delay / 1000} s (the stream stays connected)`,
          );
          applying--;
          await clock.sleep(delay, closer.signal).catch(() => undefined);
          applying++;
        } finally {
          applying--;
          void client?.close();
        }
      }
    });
  return {
    routes: merged,
    done,
    status: () => structuredClone(status),
    has: (postId) => recent.has(postId),
    busy: () => status.state === "starting" || recovering > 0 || applying > 0 || backfilling > 0,
    update,
    mark: () => marks.now(clock.now(), status.state === "connected"),
    backfill,
    close() {
      if (status.state === "connected") marks.lostAt(clock.now());
      closer.abort();
      current?.close();
    },
  };
}
