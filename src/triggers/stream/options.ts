/**
 * What an app's stream hub (../stream-hub.ts) is started with: the app's connection, what
 * its bots want, and the hosting's hooks for the stream's connects, drops, marks and status.
 * Not the bots: what it routes waits in its outbox for whoever started it (./outbox.ts).
 */
import type { ApiClient } from "../../api/client.ts";
import type { Clock } from "../../clock.ts";
import type { Logger } from "../../log.ts";
import type { RuleCaps } from "../mention-rules.ts";
import type { StreamMark } from "./marks.ts";
import type { MentionBot } from "./routing.ts";
import type { BotRules } from "./rules.ts";
import type { Budgeted } from "./search.ts";
import type { StreamStatus } from "./status.ts";
import type { RuleWriteWindow } from "./write-pacer.ts";

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
  /** The plan's window of rule writes: updates are paced within it (./write-pacer.ts); none: not paced. */
  ruleWrites?: RuleWriteWindow;
  /**
   * Whoever starts the hub tells it when the bots' changes pause (`StreamHub.settled`, ../stream-hub.ts):
   * while they keep coming, an update may wait for the pause within the pace
   * (./write-pacer.ts). Without, each update goes as soon as the pace lets it.
   */
  settles?: boolean;
  wants: readonly BotRules[];
  /** Bots whose mentions the stream delivers (empty: no mention rules). */
  mentionBots?: readonly MentionBot[];
  /** Runs each rules and search request; default: directly. */
  budgeted?: Budgeted;
  /** Connected: `first` for the first connection of the process, else a reconnect. */
  onConnected?(first: boolean): void;
  /**
   * The first connection's gap (since the mark {@link resume} gave) was searched, recovered
   * or not, or it had none: what the stream missed before the hub connected is routed. A
   * process that took the stream over from one that died lets its hub catch up first
   * (../../redis/bot-claims.ts `holdStarts`).
   */
  onCaughtUp?(): void;
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
