/**
 * The idempotency ledger, the mechanism behind the ledger step (../steps/ledger.ts): what
 * became of every action, by its key, in the state store. How the steps use it to send a key
 * at most once is argued in ../pipeline.ts ("job channels").
 *
 * An action's life: `queued` (asked for, waiting for budget) → `pending` (written and flushed
 * to disk right before its request leaves) → `done` (the service accepted it). A crash can
 * stop it anywhere; on the next start a `queued` action is simply queued again (it was never
 * sent) and a `pending` one is first checked against the service, because its request may
 * have arrived. A `done` key is never sent again, so a restart repeats nothing; nothing is
 * forgotten before it is done, so a restart loses nothing.
 *
 * Ends other than `done`: `failed` (refused by the service, or given up; not sent),
 * `unknown` (it may have been sent and no verifier could tell; never sent again: at most once
 * wins over at least once for replies) and `dropped` (waited past its time-to-live).
 */
import type { Clock } from "../../clock.ts";
import type { StagedWrite } from "../../store/staged-write.ts";
import type { Store } from "../../store/store.ts";
import type { Action, SlotRecord } from "../action.ts";
import type { RiderWrite } from "../pipeline.ts";

/** Where an action is in its life (see the module comment for the transitions). */
export type LedgerState = "queued" | "pending" | "done" | "failed" | "unknown" | "dropped";

/** One action as the ledger remembers it: small once finished, whole while it may still be sent. */
export interface LedgerEntry {
  state: LedgerState;
  kind: string;
  bot: string;
  target: string;
  /** The whole action while it is unfinished (`queued`, `pending`), to resume it after a restart. */
  action?: Action;
  /** While `pending`: the budget slot its request was counted in, given back if it never arrived. */
  slot?: SlotRecord;
  /** What the service answered, reduced to its ids (`{ id }` of a reply). */
  result?: unknown;
  /** Why it ended as it did, when not `done`. */
  reason?: string;
  /**
   * How a person reads the target (`@ana: "any tips for…"`), kept once the action has ended
   * and its whole copy is gone, so `bot status` names whom a like or follow was for.
   */
  about?: string;
  createdAt: number;
  updatedAt: number;
}

/** How much the ledger keeps: bounded, but never an unfinished action. */
export interface LedgerOptions {
  /** The most finished entries kept (default 50,000); unfinished ones are never dropped. */
  maxEntries?: number;
  /** How long finished entries are kept (default 30 days): past it, a key could be sent again. */
  keepMs?: number;
  /** The store namespace (default `ledger`). */
  namespace?: string;
}

const FINISHED: ReadonlySet<LedgerState> = new Set(["done", "failed", "unknown", "dropped"]);
/** Ends after which the same key is never sent again. */
const FINAL: ReadonlySet<LedgerState> = new Set(["done", "unknown"]);

/** Whether the action has ended (only unfinished ones are resumed after a restart). */
const isFinished = (state: LedgerState): boolean => FINISHED.has(state);

/**
 * Keeps the ids of a response body and drops the rest (texts, includes): what a duplicate
 * needs to answer with, and small enough to keep thousands of.
 */
export function summarize(result: unknown): unknown {
  const data = (result as { data?: unknown } | undefined)?.data;
  if (!data || typeof data !== "object" || Array.isArray(data)) return undefined;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(data))
    if ((k === "id" || k.endsWith("_id") || typeof v === "boolean") && typeof v !== "object") out[k] = v;
  return Object.keys(out).length > 0 ? { data: out } : undefined;
}

/**
 * The ledger's own copy of an action: new objects for it, its path and context (flat), and a
 * deep copy of the body, which a plugin may still hold and change, made as what it is, JSON
 * (what is sent and what the store keeps). The store's generic copy of the whole entry
 * (structuredClone) cost every action 13-16 µs (hot) on the way to its request; this ~2 µs.
 */
function copyOfAction(action: Action): Action {
  const copy: Action = { ...action, path: { ...action.path } };
  if (action.body !== undefined) copy.body = JSON.parse(JSON.stringify(action.body)) as unknown;
  if (action.context !== undefined) copy.context = { ...action.context };
  return copy;
}

/**
 * The ledger over a {@link Store}.
 *
 * @example
 * ```ts
 * const ledger = new Ledger(store, clock);
 * if (ledger.isFinal(key)) return; // sent before
 * ledger.queue(action);
 * await ledger.begin(key, slot);   // durable before the request
 * ledger.finish(key, "done", { result });
 * ```
 */
/** Sets each value of `writes` in the store (`undefined` deletes it): what rides with a record. */
export function setAll(store: Store, writes: readonly RiderWrite[]): void {
  for (const w of writes) {
    if (w.value === undefined) store.delete(w.namespace, w.key);
    else store.set(w.namespace, w.key, w.value);
  }
}

export class Ledger {
  private readonly ns: string;
  private readonly keepMs: number;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    options: LedgerOptions = {},
  ) {
    this.ns = options.namespace ?? "ledger";
    this.keepMs = options.keepMs ?? 30 * 24 * 3_600_000;
    store.retain?.(this.ns, {
      maxEntries: options.maxEntries ?? 50_000,
      evictable: (value) => isFinished((value as LedgerEntry).state),
    });
    this.compact();
  }

  get(key: string): LedgerEntry | undefined {
    return this.store.get<LedgerEntry>(this.ns, key);
  }

  /** Whether the key must never be sent again (`done`, or `unknown`: it may have been). */
  isFinal(key: string): boolean {
    const e = this.get(key);
    return !!e && FINAL.has(e.state);
  }

  /**
   * Records an action as asked for. Not flushed: nothing was sent yet, so a lost write loses no
   * send. `alongside` (what rides with it: ../pipeline.ts) is set in the store in the same
   * synchronous run, so the same durable write holds both.
   */
  queue(action: Action, alongside: readonly RiderWrite[] = []): void {
    setAll(this.store, alongside);
    const now = this.clock.now();
    const before = this.get(action.key!);
    this.put(action.key!, {
      state: "queued",
      kind: action.kind,
      bot: action.bot,
      target: action.target,
      action: copyOfAction(action),
      createdAt: before?.createdAt ?? now,
      updatedAt: now,
    });
  }

  /**
   * Records an action as asked for, like {@link queue}, and waits until that is on disk: for
   * an action whose text was just written (a model's reply), which a restart must send as it
   * is rather than write again.
   */
  async record(action: Action): Promise<void> {
    this.queue(action);
    await (this.store.flushFor ? this.store.flushFor(this.ns, action.key!) : this.store.flush());
  }

  /**
   * Marks the action as being sent, with the budget slot its request is counted in, and
   * waits until that is on disk: call right before the request.
   */
  async begin(key: string, slot?: SlotRecord): Promise<void> {
    const e = this.get(key);
    if (!e) throw new Error(`ledger: ${key} was never queued`);
    this.put(key, {
      ...e,
      state: "pending",
      ...(slot ? { slot: { at: slot.at, keys: [...slot.keys] } } : {}),
      updatedAt: this.clock.now(),
    });
    await (this.store.flushFor ? this.store.flushFor(this.ns, key) : this.store.flush());
  }

  /**
   * {@link begin} handed to the budget's shared take when the store can (Redis): marks the
   * action as being sent with `slot` in memory and returns the store's write of it for the
   * take to apply with the slot (both or neither). Resolves `undefined` when the store cannot
   * (then {@link begin} after the slot). If the write is not applied, the entry is `queued`
   * again.
   */
  async stageBegin(key: string, slot: SlotRecord): Promise<StagedWrite | undefined> {
    if (!this.store.stageFor) return undefined;
    const e = this.get(key);
    if (!e) throw new Error(`ledger: ${key} was never queued`);
    this.put(key, { ...e, state: "pending", slot: { at: slot.at, keys: [...slot.keys] }, updatedAt: this.clock.now() });
    const back = () => {
      if (this.get(key)?.state === "pending") this.store.set<LedgerEntry>(this.ns, key, e);
    };
    let staged: StagedWrite;
    try {
      staged = await this.store.stageFor(this.ns, key);
    } catch (err) {
      back();
      throw err;
    }
    return {
      ...staged,
      done(failure) {
        staged.done(failure);
        if (failure !== undefined) back();
      },
    };
  }

  /**
   * Records how the action ended. Not awaited: should the write be lost in a crash, the
   * entry is still `pending`, and the next start asks the service, which knows.
   */
  finish(
    key: string,
    state: Exclude<LedgerState, "queued" | "pending">,
    details: { result?: unknown; reason?: string } = {},
  ): void {
    const e = this.get(key);
    if (!e) return;
    const entry: LedgerEntry = {
      state,
      kind: e.kind,
      bot: e.bot,
      target: e.target,
      createdAt: e.createdAt,
      updatedAt: this.clock.now(),
    };
    const result = summarize(details.result);
    if (result !== undefined) entry.result = result;
    if (details.reason !== undefined) entry.reason = details.reason;
    const about = e.action?.context?.about ?? e.about;
    if (about !== undefined) entry.about = about;
    this.put(key, entry);
  }

  /**
   * Stores an entry made here of fresh parts and of the stored entry's (never of a caller's
   * objects): the store may keep it as it is (Store.adopt) instead of copying the whole action
   * once more on every step of every action.
   */
  private put(key: string, entry: LedgerEntry): void {
    if (this.store.adopt) this.store.adopt<LedgerEntry>(this.ns, key, entry);
    else this.store.set<LedgerEntry>(this.ns, key, entry);
  }

  /** Forgets an action that never left (refused by a rule before it was queued for sending). */
  forget(key: string): void {
    const e = this.get(key);
    if (e && !isFinished(e.state)) this.store.delete(this.ns, key);
  }

  /** Actions left unfinished by an earlier run, oldest first (optionally of one bot). */
  unfinished(bot?: string): Array<[string, LedgerEntry]> {
    // A bot's actions are keyed `<bot>:<kind>:<target>`: its own alone, not a copy of every bot's.
    const entries =
      bot === undefined
        ? this.store.entries<LedgerEntry>(this.ns)
        : (this.store.entriesOf?.<LedgerEntry>(this.ns, `${bot}:`) ?? this.store.entries<LedgerEntry>(this.ns));
    return entries.filter(([, e]) => !isFinished(e.state) && (bot === undefined || e.bot === bot));
  }

  /** All entries (for `bot status` and tests). */
  entries(): Array<[string, LedgerEntry]> {
    return this.store.entries<LedgerEntry>(this.ns);
  }

  /** Drops finished entries older than the keep time; unfinished ones stay whatever their age. */
  compact(): void {
    const cutoff = this.clock.now() - this.keepMs;
    for (const [key, e] of this.store.entries<LedgerEntry>(this.ns)) {
      if (isFinished(e.state) && e.updatedAt < cutoff) this.store.delete(this.ns, key);
    }
  }
}
