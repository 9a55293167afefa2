/**
 * The app's one stream connection, kept open until the hub closes. It never gives up:
 * whatever stops it (the bearer token refused or asked too often, the rules calls failing,
 * any 4xx, 5xx or 429, a drop, a stall) is retried with the documented reconnect policy
 * (../../api/stream/reconnect-policy.ts) for as long as the process runs, and the status
 * says where it is and what failed last. A connection that was established and ended leaves
 * a gap, closed on the next connect (./gaps.ts), as is the gap since an earlier run's stream
 * (./marks.ts). Anything but a plain drop may mean the rules are wrong or gone: they are
 * synced again before the next attempt.
 */
import type { ApiClient } from "../../api/client.ts";
import type { StreamEvent } from "../../api/stream/post-stream.ts";
import { ReconnectPolicy, type ReconnectCause } from "../../api/stream/reconnect-policy.ts";
import { EVENT_POST_QUERY } from "../events.ts";
import { apiErrorOf, causeOf, tooManyConnections } from "./failures.ts";
import type { Gap, GapSearch } from "./gaps.ts";
import { readEarlierMark, type MarkKeeper } from "./marks.ts";
import type { StreamHubOptions } from "./options.ts";
import type { Outbox } from "./outbox.ts";
import type { RuleSync } from "./rule-sync.ts";
import type { Routes } from "./routing.ts";
import type { HubStatus } from "./status.ts";

/** What the connection is kept with. */
export interface ConnectionDeps {
  options: Pick<
    StreamHubOptions,
    | "appId"
    | "clock"
    | "log"
    | "client"
    | "forgetBearer"
    | "onConnected"
    | "onCaughtUp"
    | "onInterrupted"
    | "connectionFreed"
    | "resume"
  >;
  status: HubStatus;
  marks: MarkKeeper;
  rules: RuleSync;
  gaps: GapSearch;
  /** Routes each post the stream delivers. */
  routes: Routes;
  /** Where the routed posts wait to be taken (the mark moves past each once it is). */
  outbox: Outbox;
  /** Aborts when the hub closes. */
  closed: AbortSignal;
}

/**
 * After this hub's own connection ended, the service may not have seen it close yet, and
 * refuses the reconnect as if the app's one connection were taken (429, TooManyConnections):
 * the first such refusal is tried again after this, not after the rate limit's back-off of a
 * minute (one more connect of the 50 a 15 minutes). A refusal after that one backs off as
 * documented: the connection that holds it is then another's.
 */
export const OWN_CONNECTION_RETRY_MS = 5_000;

/** How soon after its own connection ended a refusal is taken for that connection's. */
const OWN_CONNECTION_WINDOW_MS = 60_000;

/** Why an attempt ended. */
interface Failure {
  cause: ReconnectCause;
  error: unknown;
}

/** The connection of one hub; see the module comment. */
export class StreamConnection {
  private readonly policy = new ReconnectPolicy();
  /** The stream open now. */
  private current: { close(): void } | undefined;
  /** Set while a connection that was established has ended (or an earlier run's did): the gap to close on the next one. */
  private gap: Gap | undefined;
  private connectedAt: number;
  /** The last post the stream delivered: a gap's search starts after it. */
  private lastPostId: string | undefined;
  /** When this hub's own established connection last ended, until a refusal is tried again early once. */
  private ownEndedAt: number | undefined;
  /** The earlier run's mark read (or not found): no attempt listens before. */
  private resumed: Promise<void> = Promise.resolve();

  constructor(private readonly deps: ConnectionDeps) {
    this.connectedAt = deps.options.clock.now();
  }

  /** Connects, and again whenever the connection ends, until the hub closes; resolves once stopped. */
  async run(): Promise<void> {
    const { status, closed } = this.deps;
    // Read while the first attempt gets its client and syncs the rules, not before: a new
    // hub's start after a take-over waits for each round trip behind the survivor's busy loop.
    this.resumed = this.resume();
    while (!closed.aborted) {
      if (status.current.state !== "starting") status.enter("starting");
      const failure = await this.attempt();
      if (closed.aborted) break;
      await this.backOff(failure);
    }
    status.enter("stopped");
  }

  /** Where an earlier run's stream left off: its mark kept, and its gap closed on the first connect. */
  private async resume(): Promise<void> {
    const earlier = await readEarlierMark(this.deps.options.resume, this.deps.options.log);
    if (!earlier) return;
    this.deps.marks.resume(earlier);
    this.gap = {
      from: earlier.until,
      ...(earlier.id ? { sinceId: earlier.id } : {}),
      sinceAt: earlier.at,
      start: true,
    };
  }

  /** Closes the stream open now (the hub closes). */
  close(): void {
    this.current?.close();
  }

  /** One attempt: rules synced if need be, then the stream read until it ends; what ended it. */
  private async attempt(): Promise<Failure | undefined> {
    let client: ApiClient | undefined;
    try {
      client = await this.deps.options.client();
      await Promise.all([this.deps.rules.syncIfNeeded(client), this.resumed]);
      if (this.deps.closed.aborted) return undefined;
      return await this.listen(client);
    } catch (err) {
      return { cause: causeOf(err), error: err };
    } finally {
      this.current = undefined;
      void client?.close();
    }
  }

  /** Reads the stream until it ends; an established connection that ended leaves a gap. */
  private async listen(client: ApiClient): Promise<Failure | undefined> {
    const { status, marks, options } = this.deps;
    let failure: Failure | undefined;
    const stream = client.stream("GET /2/posts/search/stream", EVENT_POST_QUERY, { reconnect: false });
    this.current = stream;
    try {
      for await (const event of stream) failure = this.onEvent(event, client) ?? failure;
    } catch (err) {
      failure ??= { cause: causeOf(err), error: err };
    }
    if (status.connected()) {
      const now = options.clock.now();
      this.gap = { from: now, ...(this.lastPostId ? { sinceId: this.lastPostId } : {}), sinceAt: this.connectedAt };
      this.ownEndedAt = now;
      marks.lostAt(now);
      options.onInterrupted?.();
    }
    return failure;
  }

  /** One event of the stream; a failure when the stream gave up. */
  private onEvent(event: StreamEvent, client: ApiClient): Failure | undefined {
    if (event.type === "post") this.onPost(event);
    else if (event.type === "connected") this.onConnected(client);
    else if (event.type === "gave-up") return { cause: event.cause, error: event.error };
    else if (event.type === "stream-error")
      this.deps.options.log.warn({ errors: event.errors }, "the service sent an error in the stream");
    return undefined;
  }

  private onPost(event: Extract<StreamEvent, { type: "post" }>): void {
    const { rules, options } = this.deps;
    const values = (event.matching_rules ?? [])
      .map((m) => rules.valueOf(m.id))
      .filter((v): v is string => v !== undefined);
    const routed = this.deps.routes.route(event.data, event.includes, values);
    if (!routed) return;
    this.lastPostId = event.data.id;
    this.deps.outbox.put(routed, { id: event.data.id, streamed: true });
  }

  private onConnected(client: ApiClient): void {
    const { status, options, marks } = this.deps;
    this.policy.connected();
    status.current.connects++;
    this.connectedAt = options.clock.now();
    status.enter("connected");
    marks.connected(options.clock.now());
    const first = status.current.connects === 1;
    options.onConnected?.(first);
    const closing = this.gap ? this.deps.gaps.close(client, this.gap) : Promise.resolve();
    this.gap = undefined;
    if (first && options.onCaughtUp) void closing.then(options.onCaughtUp);
  }

  /** After an attempt ended: the status and log say why, and the wait before the next follows the policy. */
  private async backOff(failure: Failure | undefined): Promise<void> {
    const { status, options } = this.deps;
    const error = failure?.error;
    const message = error instanceof Error ? error.message : failure ? String(error) : "the stream ended";
    const cause = failure?.cause ?? "drop";
    if (apiErrorOf(error)?.status === 401) options.forgetBearer();
    if (cause !== "drop" && cause !== "stall" && cause !== "stream-error") this.deps.rules.forget();
    status.current.reconnects++;
    status.current.lastError = { message, cause, at: options.clock.now() };
    const refused = tooManyConnections(error);
    const own = refused && this.ownJustEnded();
    const delay = own ? OWN_CONNECTION_RETRY_MS : this.policy.next(cause);
    if (own) this.policy.attempts++;
    status.current.retryAt = options.clock.now() + delay;
    status.enter("reconnecting");
    const taken = refused && !own ? options.connectionFreed : undefined;
    const why = own
      ? ", the connection that holds it most likely this process's own, which just ended"
      : taken
        ? ", or as soon as the connection that holds it closes"
        : "";
    options.log.warn(
      { cause, delay_ms: delay, attempt: this.policy.attempts, err: message },
      `stream of app ${options.appId}: ${message}; reconnecting in ${(delay / 1000).toFixed(1)} s (${cause})${why}`,
    );
    if (delay > 0) await this.reconnectWait(delay, taken);
  }

  /** Whether this hub's own connection ended lately and no refusal was tried again early since (see {@link OWN_CONNECTION_RETRY_MS}). */
  private ownJustEnded(): boolean {
    const ended = this.ownEndedAt;
    this.ownEndedAt = undefined;
    return ended !== undefined && this.deps.options.clock.now() - ended <= OWN_CONNECTION_WINDOW_MS;
  }

  /**
   * The wait before the next attempt: `delay`, or less when the connection that took the app's
   * one connection is known to have closed ({@link StreamHubOptions.connectionFreed}).
   */
  private async reconnectWait(delay: number, freed: StreamHubOptions["connectionFreed"]): Promise<void> {
    const { options, closed } = this.deps;
    const wake = new AbortController();
    const stop = () => wake.abort();
    closed.addEventListener("abort", stop, { once: true });
    void freed?.(wake.signal).then(
      (gone) => {
        if (!gone || wake.signal.aborted) return;
        options.log.info(
          `stream of app ${options.appId}: the connection that held the app's stream closed; connecting again now`,
        );
        wake.abort();
      },
      () => undefined,
    );
    await options.clock.sleep(delay, wake.signal).catch(() => undefined);
    wake.abort();
    closed.removeEventListener("abort", stop);
  }
}
