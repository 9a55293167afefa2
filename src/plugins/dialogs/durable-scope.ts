/**
 * What one run of a bot's handlers changes besides its actions: the sessions of the user it
 * runs for (`ctx.session`) and that user's dialogs (./engine.ts), and how those changes
 * become durable together with the actions, in the file store and on Redis alike.
 *
 * ## The durable write
 *
 * A scope is one run: an event's handlers, or a dialog's timeout turn. Its changes are
 * kept here, out of the store, until one of two moments, whichever comes first:
 *
 * 1. The first record of an action the run asked for. The scope hands the action a
 *    {@link LedgerRider} ({@link DurableScope.rider}): its changes as plain data, which the
 *    ledger step sets in the store in the same synchronous run as it records the action
 *    `queued` (src/actions/pipeline.ts, "What rides with the ledger's record"). One the
 *    ledger has not taken by the time the run goes on (a check with the service under way)
 *    is superseded, so it never lands over what the run writes next. A bot's ledger, sessions and dialogs live in the bot's
 *    own part of the state (`bots/<bot>.json`, one Redis hash), which both stores make durable
 *    whole: the file store appends every change made before a flush as one journal line (the
 *    commit); Redis writes a bot's hash in one fenced script (the staged `pending` mark and its
 *    budget slot included). So no durable state holds the session change without the action
 *    recorded, or the action recorded without the session change. A recorded action is never
 *    lost: `queued` ones are resumed at the next start, and the `pending` mark written before
 *    the request leaves is checked with the service after a crash (at most once, asked once).
 * 2. The end of the run ({@link DurableScope.finish}), for a run that sent nothing, or changed
 *    more after its last action.
 *
 * ## A run cut short runs again, from where it began
 *
 * Every value a scope writes is stored with the scope's id and the value it replaced
 * (`{ v, by, was }`). An event leaves the inbox only once its handlers have run, so a crash
 * after a scope's first write and before its event left the inbox runs the event again, in
 * the next start: the run reads `was` (what the values were before it), not what it wrote
 * itself, so it starts from the same state and makes the same decisions. Its actions carry
 * the same idempotency keys, so the ledger answers `duplicate` for those already recorded
 * (after checking the service for one left `pending`) and sends only what the cut run did not
 * reach. A session changed by a handler is therefore applied once, however often the handler
 * ran; a dialog's step advances once. (This holds for handlers that decide the same way
 * from the same state: the clock is injected, and the built-in dialogs and the `dialog`
 * plugin are such. A handler that draws random numbers may decide otherwise on its second run.)
 *
 * The next run by another scope reads `v`. Deleting a value leaves a tombstone (`v: null`) so
 * that a cut run still finds `was`; a tombstone's run is over once its event left the inbox,
 * and tombstones are swept at the bot's start.
 *
 * ## Sessions
 *
 * One record per (bot, user): `session:<bot>` → `<user id>` → `{ v: { <plugin>: value }, by,
 * was, at }`, each plugin with its own slice (typed by its own schema). A slice is capped (a
 * session is a small object: what a dialog needs to remember, not a history): a run
 * that makes one larger is refused with the bot, plugin and size named. With `session: {ttl}`
 * in the bot file, a session unchanged for that long reads as new.
 */
import { setAll } from "../../actions/mechanics/idempotency-ledger.ts";
import type { LedgerRider, RiderWrite } from "../../actions/pipeline.ts";
import type { Clock } from "../../clock.ts";
import type { Store } from "../../store/store.ts";

/** A value as a scope wrote it: the value, the scope that wrote it, and what it replaced. */
export interface ScopedRecord<T> {
  /** The value; `null` once deleted (a tombstone, kept for a cut run's `was`). */
  v: T | null;
  /** The scope that wrote it (an event id, or a dialog's timeout turn). */
  by?: string;
  /** What the value was before that scope; `null`: there was none. */
  was?: T | null;
  /** When it was written (ms on the clock). */
  at: number;
}

/** The value a scope starts from: what another scope wrote, or what this one found (a run again). */
export function valueFor<T>(record: ScopedRecord<T> | undefined, scope: string): T | undefined {
  if (!record) return undefined;
  const value = record.by === scope ? record.was : record.v;
  return value ?? undefined;
}

/** The store namespace of a bot's sessions, by user id. */
export const sessionNamespace = (bot: string) => `session:${bot}`;

/** How large one plugin's session of one user may be, serialized as JSON, by default. */
export const DEFAULT_SESSION_MAX_BYTES = 8 * 1024;

/** The bot file's `session` settings. */
export interface SessionSettings {
  /** A session unchanged for this long reads as new (ms); absent: kept until changed. */
  ttlMs?: number;
  /** The most bytes one plugin's session of one user may take as JSON. */
  maxBytes: number;
}

/** A session larger than its cap: the run's changes to it are not kept. */
export class SessionTooLargeError extends Error {
  override name = "SessionTooLargeError";
  constructor(
    readonly bot: string,
    readonly plugin: string,
    readonly bytes: number,
    readonly maxBytes: number,
    file?: string,
  ) {
    super(
      `bot ${bot}, plugin ${plugin}: the session of this user would be ${bytes} bytes, over the ${maxBytes}-byte cap, so it was not saved (nor the action asked for with it); keep less in ctx.session (ids and short texts, not whole posts)` +
        (file ? `, or raise session.max_bytes in ${file}` : ", or raise session.max_bytes in the bot file"),
    );
  }
}

/** What a scope is made with. */
export interface ScopeOptions {
  store: Store;
  clock: Clock;
  bot: string;
  /** The run: an event's id, or a timeout turn's (what `by` names). */
  id: string;
  /** The user the run is for (undefined: an event of nobody, which has no session). */
  user: string | undefined;
  session: SessionSettings;
  /** The bot file, for messages. */
  file?: string;
}

/** One changed value of a scope, in a namespace other than the sessions' (a dialog). */
interface Staged {
  namespace: string;
  key: string;
  value: unknown;
  /** The value before the scope (its `was`). */
  before: unknown;
  /** Set in the store since last changed. */
  written: boolean;
}

/**
 * One run's session and dialog changes, written with its first recorded action or at its
 * end; see the module comment. Not shared between runs; a run's plugins share it.
 */
export class DurableScope {
  /** The user's session slices as this run has them (loaded on first use). */
  private slices: Record<string, unknown> | undefined;
  /** The slices as the run found them (its `was`). */
  private before: Record<string, unknown> | null = null;
  /** The slices as last set in the store by this run (JSON), to write only what changed. */
  private written = "";
  private readonly staged = new Map<string, Staged>();
  /** Slices refused (over the cap): never written by this run. */
  private readonly refused = new Set<string>();
  /** The riders handed out and not yet taken stock of ({@link settle}), with what each writes. */
  private riding: Array<{ rider: LedgerRider; staged: Array<[Staged, unknown]>; session: string | undefined }> = [];

  constructor(private readonly options: ScopeOptions) {}

  get id(): string {
    return this.options.id;
  }

  get user(): string | undefined {
    return this.options.user;
  }

  /**
   * The plugin's session of the run's user: a plain object the run may change; kept once the
   * run ends or sends an action. Read from the store on first use.
   *
   * @throws {Error} for a run with no user (a schedule has nobody's session).
   */
  session(plugin: string): Record<string, unknown> {
    const slices = this.load();
    let slice = slices[plugin];
    if (slice === undefined || slice === null || typeof slice !== "object" || Array.isArray(slice))
      slices[plugin] = slice = {};
    return slice as Record<string, unknown>;
  }

  /** Replaces the plugin's session (a schema's parsed value, or a reset). */
  replaceSession(plugin: string, value: Record<string, unknown>): void {
    this.load()[plugin] = value;
  }

  /**
   * Checks the sessions' sizes now, so a handler's action asked for with a session too large is
   * refused before it is recorded.
   *
   * @throws {SessionTooLargeError}
   */
  check(): void {
    if (!this.slices) return;
    for (const [plugin, slice] of Object.entries(this.slices)) {
      const bytes = Buffer.byteLength(JSON.stringify(slice) ?? "");
      if (bytes > this.options.session.maxBytes)
        throw new SessionTooLargeError(
          this.options.bot,
          plugin,
          bytes,
          this.options.session.maxBytes,
          this.options.file,
        );
    }
  }

  /** Drops what the plugin changed in its session since it was last written (its handler threw). */
  discard(plugin: string): void {
    if (!this.slices) return;
    const last = this.written ? (JSON.parse(this.written) as Record<string, unknown>) : clone(this.before ?? {});
    if (last[plugin] === undefined) delete this.slices[plugin];
    else this.slices[plugin] = last[plugin];
  }

  /** The value of `key` this run starts from, or has staged since (see the module comment). */
  read<T>(namespace: string, key: string): T | undefined {
    const staged = this.staged.get(`${namespace}\u0000${key}`);
    if (staged) return (staged.value ?? undefined) as T | undefined;
    return valueFor(this.options.store.get<ScopedRecord<T>>(namespace, key), this.options.id);
  }

  /** Stages a value of `key` (`null` deletes it), written with the run's next action or at its end. */
  stage(namespace: string, key: string, value: unknown): void {
    const id = `${namespace}\u0000${key}`;
    const known = this.staged.get(id);
    if (known) {
      known.value = value;
      known.written = false;
      return;
    }
    const before = valueFor(this.options.store.get<ScopedRecord<unknown>>(namespace, key), this.options.id) ?? null;
    this.staged.set(id, { namespace, key, value, before, written: false });
  }

  /**
   * What rides with an action the run asks for now ({@link LedgerRider}): every change not
   * yet in the store, as plain data the ledger step writes with the action's first record.
   * Never throws: a session over its cap is left out and reported by {@link finish}.
   */
  rider(): LedgerRider {
    this.settle();
    const { writes, staged, session } = this.unwritten();
    const rider: LedgerRider = { writes };
    if (writes.length > 0) this.riding.push({ rider, staged, session });
    return rider;
  }

  /**
   * Sets every change not yet in the store, here and now (the end of the run, a dialog's
   * turn). Never throws: a session over its cap is left out and reported by {@link finish}.
   */
  apply(): void {
    this.settle();
    const { writes, staged, session } = this.unwritten();
    setAll(this.options.store, writes);
    this.wrote(staged, session);
  }

  /**
   * Takes stock of the riders handed out since: what the ledger wrote with a record is in the
   * store now; one it has not written (a duplicate, a check under way) is superseded, so it
   * is never written later over what this run writes next.
   */
  private settle(): void {
    for (const { rider, staged, session } of this.riding.splice(0)) {
      if (rider.taken) this.wrote(staged, session);
      else rider.superseded = true;
    }
  }

  /** Marks values as in the store: the staged ones still as they were written, and the session's JSON. */
  private wrote(staged: ReadonlyArray<[Staged, unknown]>, session: string | undefined): void {
    for (const [s, value] of staged) if (s.value === value) s.written = true;
    if (session !== undefined) this.written = session;
  }

  /** The store writes of every change not yet there, with what they write (to mark it written once it is). */
  private unwritten(): { writes: RiderWrite[]; staged: Array<[Staged, unknown]>; session: string | undefined } {
    const { clock, id } = this.options;
    const at = clock.now();
    const writes: RiderWrite[] = [];
    const staged: Array<[Staged, unknown]> = [];
    for (const s of this.staged.values()) {
      if (s.written) continue;
      staged.push([s, s.value]);
      const deleted = s.value === null && s.before === null;
      writes.push({
        namespace: s.namespace,
        key: s.key,
        value: deleted ? undefined : { v: s.value, by: id, was: s.before, at },
      });
    }
    const session = this.sessionJson();
    if (session !== undefined)
      writes.push({
        namespace: sessionNamespace(this.options.bot),
        key: this.options.user!,
        value: { v: JSON.parse(session) as Record<string, unknown>, by: id, was: this.before, at },
      });
    return { writes, staged, session };
  }

  /**
   * The user's sessions as JSON when they changed since last written (undefined: unchanged,
   * or no user). A slice over its cap keeps its last value and is reported by {@link finish}.
   */
  private sessionJson(): string | undefined {
    if (!this.slices || this.options.user === undefined) return undefined;
    const kept: Record<string, unknown> = {};
    for (const [plugin, slice] of Object.entries(this.slices)) {
      const json = JSON.stringify(slice);
      if (json === undefined || json === "{}") continue; // an empty session is no session
      if (Buffer.byteLength(json) > this.options.session.maxBytes) {
        this.refused.add(plugin);
        const old = this.written
          ? (JSON.parse(this.written) as Record<string, unknown>)[plugin]
          : this.before?.[plugin];
        if (old !== undefined) kept[plugin] = old;
        continue;
      }
      kept[plugin] = slice;
    }
    const json = JSON.stringify(kept);
    if (json === this.written || (this.written === "" && json === JSON.stringify(this.before ?? {}))) return undefined;
    return json;
  }

  /**
   * The end of the run: sets what no action carried (a run that sent nothing). The store
   * writes it with its next flush; until then a crash runs the event again, from the same state.
   * Returns the sessions refused for their size.
   */
  finish(): SessionTooLargeError[] {
    this.apply();
    const { maxBytes } = this.options.session;
    return [...this.refused].map(
      (plugin) =>
        new SessionTooLargeError(
          this.options.bot,
          plugin,
          Buffer.byteLength(JSON.stringify(this.slices?.[plugin]) ?? ""),
          maxBytes,
          this.options.file,
        ),
    );
  }

  private load(): Record<string, unknown> {
    if (this.slices) return this.slices;
    const { store, clock, id, user, bot, session } = this.options;
    if (user === undefined) throw new Error(`bot ${bot}: this event comes from no user, so it has no session`);
    const record = store.get<ScopedRecord<Record<string, unknown>>>(sessionNamespace(bot), user);
    let value = valueFor(record, id);
    // Expired: unchanged for longer than the bot file's session.ttl (judged by when it was written).
    if (value && session.ttlMs !== undefined && record!.at + session.ttlMs <= clock.now()) value = undefined;
    this.before = value ? clone(value) : null;
    this.slices = value ? clone(value) : {};
    return this.slices;
  }
}

/** A copy as JSON has it (what the store keeps). */
const clone = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

/**
 * Removes the tombstones whose runs are over (their event is no longer in the inbox): the
 * sweep at a bot's start. Returns how many went.
 */
export function sweepTombstones(store: Store, namespace: string, running: (scope: string) => boolean): number {
  let swept = 0;
  for (const [key, record] of store.entries<ScopedRecord<unknown>>(namespace)) {
    if (record.v !== null) continue;
    if (record.by !== undefined && running(record.by)) continue;
    store.delete(namespace, key);
    swept++;
  }
  return swept;
}
