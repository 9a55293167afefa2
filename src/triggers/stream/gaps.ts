/**
 * No silent gaps: when the stream connects again after it was away (a drop, a failure, or an
 * earlier run that ended), what matched the app's rules meanwhile is fetched with recent
 * search since the last post the stream delivered, and routed like the stream's own posts
 * (each handed out once, however it came). It runs in the background: the stream's posts
 * flow meanwhile, and the mark (./marks.ts) holds still until it is done. The log says how
 * long the gap was and what it recovered; recent search reaches back 7 days, and what matched
 * before that is said, in the log and the status, to be beyond recovery.
 */
import type { ApiClient } from "../../api/client.ts";
import type { Clock } from "../../clock.ts";
import type { Logger } from "../../log.ts";
import { mentionRuleValue, packUsernames, parsedUsernames } from "../mention-rules.ts";
import { messageOf } from "./failures.ts";
import { REACH_MARGIN_MS, RECENT_SEARCH_REACH_MS, type MarkKeeper } from "./marks.ts";
import type { Outbox } from "./outbox.ts";
import type { Routes } from "./routing.ts";
import { SEARCH_QUERY_MAX, searchAll, type Budgeted } from "./search.ts";
import type { HubStatus } from "./status.ts";

/** A gap to close: since when (`from`), from which post (or time) to search, and whether it is the one since an earlier run. */
export interface Gap {
  from: number;
  sinceId?: string;
  sinceAt: number;
  start?: boolean;
}

/** What the gaps are searched with. */
export interface GapSearchDeps {
  clock: Clock;
  log: Logger;
  budgeted: Budgeted;
  /** Routes what is found (its own rule values are searched each alone: a post is handed out with the rule it matched). */
  routes: Routes;
  /** Where the routed posts wait to be taken (the mark moves past each once it is). */
  outbox: Outbox;
  /** The mention rules' values now: joined into as few searches as the query length allows. */
  mentionValues(): readonly string[];
  marks: MarkKeeper;
  status: HubStatus;
  /** Whether a later start tries a failed gap again (the mark is kept). */
  marksKept: boolean;
  /** Aborts when the hub closes. */
  closed: AbortSignal;
}

/**
 * A gap's searches sent at once. A hub taking over the stream of a process that died (kill -9)
 * searches the gap of an app of 5,000 bots with about 32 queries (below), one of 25,000 with
 * about 160: each query's posts wait for the queries before it. Four at once, each query took
 * 0.3-0.7 s while the survivors started the dead process's bots (most of it waiting for the
 * process's turn, not for the service), and the gap of 5,000 bots closed 4.4 s after the hub
 * connected (20,000 accounts over 4 apps, 43 queries). Sixteen at once, the gap of 10,000 bots
 * (64 queries, four rounds) closed 0.5-0.8 s after the hub connected, the last answer of the
 * kill row each time, and 25,000 bots' would be ten rounds; 64 at once make them three. Each
 * still counts against the app's budget, which paces them when its window must.
 */
const GAP_SEARCHES_AT_ONCE = 64;

const iso = (ms: number) => new Date(ms).toISOString();
const days = (ms: number) => `${(ms / 86_400_000).toFixed(1)} days`;

/** The gaps of one hub; see the module comment. */
export class GapSearch {
  /** Gaps being closed now. */
  private recovering = 0;

  constructor(private readonly deps: GapSearchDeps) {}

  /** Whether a gap is being closed now. */
  busy(): boolean {
    return this.recovering > 0;
  }

  /**
   * Closes a gap once connected (in the background: the stream's posts flow meanwhile) and
   * says how long it was and what it recovered; `start` for the gap since an earlier run.
   * Resolves once it is closed, recovered or not (never rejects).
   */
  close(client: ApiClient, gap: Gap): Promise<void> {
    const { clock, marks } = this.deps;
    this.recovering++;
    marks.holdForGap();
    this.sayUnrecoverable(gap);
    return this.recover(client, { ...(gap.sinceId ? { id: gap.sinceId } : {}), at: gap.sinceAt })
      .then((recovered) => this.closed(gap, recovered))
      .catch((err: unknown) => {
        marks.gapEnded(false, clock.now());
        if (!this.deps.closed.aborted)
          this.deps.log.error(
            { err },
            `could not recover the stream's gap with recent search: ${messageOf(err)}; those posts are not delivered${this.deps.marksKept ? " (the next start tries again)" : ""}`,
          );
      })
      .finally(() => this.recovering--);
  }

  /** The part of a gap older than recent search reaches, if any: kept in the status and logged. */
  private sayUnrecoverable(gap: Gap): void {
    const { clock, status, log } = this.deps;
    const reach = clock.now() - RECENT_SEARCH_REACH_MS + REACH_MARGIN_MS;
    if (gap.from >= reach) return;
    const unrecovered = { from: gap.from, to: reach };
    status.current.gaps.unrecovered = unrecovered;
    log.error(
      {
        gap_ms: clock.now() - gap.from,
        unrecovered_from: iso(unrecovered.from),
        unrecovered_to: iso(unrecovered.to),
      },
      `stream gap of ${days(clock.now() - gap.from)} is longer than recent search reaches (7 days): posts that matched the rules between ${iso(unrecovered.from)} and ${iso(unrecovered.to)} could not be recovered`,
    );
  }

  /** A gap was closed with `recovered` posts: the status, the mark and the log follow. */
  private closed(gap: Gap, recovered: number): void {
    const { clock, status, marks, log } = this.deps;
    const ms = clock.now() - gap.from;
    status.current.gaps.count++;
    status.current.gaps.lastMs = ms;
    status.current.gaps.recovered += recovered;
    marks.gapEnded(true, clock.now());
    status.changed();
    log.warn(
      { gap_ms: ms, recovered, ...(gap.start ? { at_start: true } : {}) },
      gap.start
        ? `stream gap of ${(ms / 1000).toFixed(1)} s since this app's stream last ran (a restart, or a process that held it stopped) closed: recent search recovered ${recovered} posts that matched the rules meanwhile`
        : `stream gap of ${(ms / 1000).toFixed(1)} s closed: recent search recovered ${recovered} posts that matched the rules meanwhile`,
    );
  }

  /**
   * The posts of a gap, by recent search: each own rule alone, the mention rules joined; from
   * the last post delivered (`since.id`), or from `since.at`; not further back than recent
   * search reaches.
   */
  private async recover(client: ApiClient, since: { id?: string; at: number }): Promise<number> {
    const { clock, outbox } = this.deps;
    const reach = clock.now() - RECENT_SEARCH_REACH_MS + REACH_MARGIN_MS;
    const from =
      since.at < reach
        ? { start_time: new Date(reach) }
        : since.id
          ? { since_id: since.id }
          : { start_time: new Date(since.at) };
    let recovered = 0;
    const queries = this.queries();
    let next = 0;
    // Each search's posts go out as it ends: a mention waits for its own query, not the gap's last.
    const searching = async () => {
      while (next < queries.length && !this.deps.closed.aborted) {
        const { query, values } = queries[next++]!;
        const found = await searchAll(this.deps.budgeted, client, query, from, this.deps.closed);
        for (const { post, includes } of found) {
          const routed = this.deps.routes.route(post, includes, values);
          if (!routed) continue;
          recovered++;
          outbox.put(routed, { id: post.id, streamed: false });
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(GAP_SEARCHES_AT_ONCE, queries.length) }, searching));
    return recovered;
  }

  /**
   * A gap's searches: each own rule value alone (with the value, to route by); the mention
   * rules' usernames packed afresh into queries of the search's length (a rule is at most
   * 1,024 characters, ~39 bots: joined whole, three rules made a query, 117 bots; packed,
   * ~157), and a mention value postbot did not write joined as it is.
   */
  private queries(): Array<{ query: string; values: string[] }> {
    const queries = [...this.deps.routes.merged.keys()].map((value) => ({ query: value, values: [value] }));
    const usernames: string[] = [];
    let joined = "";
    for (const value of this.deps.mentionValues()) {
      const names = parsedUsernames(value);
      if (names) {
        usernames.push(...names);
        continue;
      }
      if (joined && joined.length + 4 + value.length > SEARCH_QUERY_MAX) {
        queries.push({ query: joined, values: [] });
        joined = "";
      }
      joined = joined ? `${joined} OR ${value}` : value;
    }
    if (joined) queries.push({ query: joined, values: [] });
    for (const pack of packUsernames(usernames, SEARCH_QUERY_MAX))
      queries.push({ query: mentionRuleValue(pack), values: [] });
    return queries;
  }
}
