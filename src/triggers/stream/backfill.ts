/**
 * What mentioned bots that just joined the stream before their mention rule was in place:
 * recent search of their mention terms since each asked, each bot's mentions handed to its
 * mentions trigger as the stream would have (which hands each post out once, however it
 * came). Costs searches, not mentions polls: in a large fleet the app's window of mentions
 * polls is spent on catch-up polls for hours, and a new bot's first mention must not wait
 * for it.
 *
 * One search covers many bots: the asks that come together (a whole process's bots join in
 * one fleet change) are answered by one round, their usernames packed into as few queries as
 * the search's length allows, so 3,000 bots joining cost about 20 searches, not 3,000.
 */
import type { ApiClient } from "../../api/client.ts";
import type { BotEvent } from "../events.ts";
import { mentionEvents } from "../mentions.ts";
import { mentionedBots, mentionRuleValue, packUsernames } from "../mention-rules.ts";
import type { Outbox } from "./outbox.ts";
import type { MentionBot } from "./routing.ts";
import { SEARCH_QUERY_MAX, searchAll, type Budgeted } from "./search.ts";

/** What the searches are made with. */
export interface BackfillDeps {
  budgeted: Budgeted;
  /** A client with the app's bearer token, for each round. */
  client(): Promise<ApiClient>;
  /** The bots whose mentions come through the stream now. */
  mentionBots(): readonly MentionBot[];
  /** Where the mentions found wait for their bots (their mentions feeds take them). */
  outbox: Outbox;
  /** Aborts when the hub closes. */
  closed: AbortSignal;
}

/** A call of {@link MentionBackfill.backfill} waiting for its round of searches. */
interface BackfillAsk {
  bots: readonly string[];
  since: number;
  resolve(found: number): void;
  reject(err: unknown): void;
}

/** The mention searches of one hub; see the module comment. */
export class MentionBackfill {
  /** The bots asked to be searched for since the last round began, each ask with whom it waits for. */
  private asks: BackfillAsk[] = [];
  private searching = false;

  constructor(private readonly deps: BackfillDeps) {}

  /** Whether a round is under way (or about to start). */
  busy(): boolean {
    return this.searching;
  }

  /** Searches for what mentioned `bots` since `sinceMs`; resolves with the posts found for them. */
  backfill(bots: readonly string[], sinceMs: number): Promise<number> {
    if (bots.length === 0 || this.deps.closed.aborted) return Promise.resolve(0);
    return new Promise<number>((resolve, reject) => {
      this.asks.push({ bots, since: sinceMs, resolve, reject });
      if (this.searching) return;
      this.searching = true;
      void this.searchAsked();
    });
  }

  /**
   * Answers the asks in rounds: the bots asked for in one round (whatever joined meanwhile:
   * a whole process's bots come in one fleet change, a single process's bots one update
   * after another) share their searches, the next round takes what came during this one.
   */
  private async searchAsked(): Promise<void> {
    try {
      // The joins of one moment (the follow-ups of updates that ended together) come in one round.
      await new Promise<void>((resolve) => setImmediate(resolve));
      while (this.asks.length > 0 && !this.deps.closed.aborted) {
        const round = this.asks;
        this.asks = [];
        try {
          const found = await this.searchMentions(round);
          for (const ask of round) ask.resolve(ask.bots.reduce((n, bot) => n + (found.get(bot) ?? 0), 0));
        } catch (err) {
          for (const ask of round) ask.reject(err);
        }
      }
      for (const ask of this.asks.splice(0)) ask.resolve(0);
    } finally {
      this.searching = false;
    }
  }

  /**
   * One round's searches: the bots' usernames packed into as few queries as the search's
   * length allows (packed as the mention rules are: ../mention-rules.ts), each query paged as
   * far back as its earliest bot asked. Returns the mentions each bot got.
   */
  private async searchMentions(round: readonly BackfillAsk[]): Promise<Map<string, number>> {
    const since = new Map<string, number>();
    for (const ask of round)
      for (const bot of ask.bots) since.set(bot, Math.min(since.get(bot) ?? Infinity, ask.since));
    const byName = new Map<string, MentionBot>();
    for (const m of this.deps.mentionBots()) if (since.has(m.bot)) byName.set(m.username.toLowerCase(), m);
    const found = new Map<string, number>();
    if (byName.size === 0) return found;
    const client = await this.deps.client();
    try {
      for (const pack of packUsernames([...byName.keys()], SEARCH_QUERY_MAX))
        await this.searchPack(
          client,
          pack.map((name) => byName.get(name)!),
          since,
          found,
        );
    } finally {
      void client.close();
    }
    return found;
  }

  /**
   * One pack's search: each post found goes to the bots of the pack it is for
   * ({@link mentionedBots}), not older than each one asked; `found` counts what each got.
   */
  private async searchPack(
    client: ApiClient,
    bots: readonly MentionBot[],
    since: ReadonlyMap<string, number>,
    found: Map<string, number>,
  ): Promise<void> {
    const byUsername = new Map(bots.map((m) => [m.username.toLowerCase(), m]));
    const byUserId = new Map(bots.map((m) => [m.userId, m]));
    const from = Math.min(...bots.map((m) => since.get(m.bot)!));
    const query = mentionRuleValue([...byUsername.keys()]);
    const posts = await searchAll(this.deps.budgeted, client, query, { start_time: new Date(from) }, this.deps.closed);
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
      this.deps.outbox.hand(bot.bot, "mentions", mine);
    }
  }
}
