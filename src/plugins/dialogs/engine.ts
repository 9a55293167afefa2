/**
 * The dialogs of one bot: which are open, which message belongs to which, running each turn
 * (./types.ts says what a turn is), their timeouts on the injected clock, and what the status
 * shows. The plugins stage (../stage.ts) gives it every message a user sends the bot (a
 * mention or reply in a thread, a DM) before any handler; the dialog waiting for that user in
 * that place takes it.
 *
 * ## State, in the bot's part of the store
 *
 * `conv:<bot>` (the namespace's name since before dialogs were called so, kept so open ones
 * survive an upgrade) → `<user id>:<thread|dm>` → the open dialog (one per bot, user and
 * channel) as a {@link ScopedRecord}: its step, turn count, place (the thread, the DM
 * conversation), the post its next message answers, and the wait's deadline. Every change is
 * staged in the run's {@link DurableScope} and becomes durable with the turn's message's ledger
 * record (or at the run's end when it said nothing): see ./durable-scope.ts for why a crash
 * at any moment neither repeats nor skips a question. On Redis the records are in the bot's
 * hash, so they move with the bot's lease: the process that takes the bot over reads them and
 * arms their timeouts. A dialog made from data keeps the version it started on in its record
 * and finishes on it however the bot file changes meanwhile (./versions.ts).
 *
 * ## A turn
 *
 * 1. Under the user's lock (one turn of a user at a time: the engine's per-user order covers
 *    events, the lock covers a timeout firing meanwhile), the record is read as the run
 *    starts from it ({@link DurableScope.read}).
 * 2. The plugin's turn handler runs on the user's session (the plugin's `ctx.session`); it
 *    says texts and picks the next step (or ends). The engine only says which ({@link
 *    DialogTurn}); the stage holds the user's lock ({@link DialogEngine.acquire}), runs the step
 *    and hands its outcome back ({@link DialogEngine.settle}): the engine never calls a plugin,
 *    nor the stage. If the step throws, nothing of the turn is kept.
 * 3. The new record is staged, and the turn's texts go out as one message, which the engine
 *    describes ({@link TurnMessage}) and the stage sends through the action layer, handing the
 *    outcome back ({@link DialogEngine.sent}): in a thread a reply
 *    (starting with `@user`, so two users asked the same question get different texts, which
 *    the service requires) to the user's message (a timeout: to the bot's last question); in
 *    DMs a message to the user. Its idempotency key is the dialog's id and the turn's number
 *    (`dialog:<id>:<turn>`, src/actions/keys.ts), so a turn run again sends nothing twice. A text the bot posted within 24 hours
 *    (the same user taking the quiz again) gets a counter, `(2)`, instead of being refused.
 * 4. The message's first ledger record carries the staged record and session (the scope's
 *    rider, data); the timer of the new wait is armed once the turn is over.
 *
 * A timeout is a turn too, due by a clock timer at the deadline (the engine puts the due wait
 * in a queue the stage takes from, {@link DialogEngine.resume}, and the stage runs it as it
 * runs an answer: {@link DialogEngine.timeoutTurn}), under its own scope (id
 * `timeout:<bot>:<user id>:<channel>:<turn>`), so a crash in it is resumed the same way: a deadline that
 * passed while the process was down fires at start. An answer written before the deadline
 * counts even when it arrives after it (a poll's delay); the timeout turn of a wait that got
 * its answer does nothing.
 */
import { createHash } from "node:crypto";
import { dialogTarget, type ActionOutcome, type LayerActionOptions, type PostRef } from "../../actions/index.ts";
import type { User } from "../../api/types.ts";
import type { Clock } from "../../clock.ts";
import type { Logger } from "../../log.ts";
import { PullQueue } from "../../pull-queue.ts";
import type { Store } from "../../store/store.ts";
import { DurableScope, type ScopedRecord, type SessionSettings, sweepTombstones } from "./durable-scope.ts";
import { DialogVersions, type Defined, versionOf } from "./versions.ts";
import type {
  ChannelKind,
  DialogDefinition,
  DialogMessage,
  DialogState,
  StartResult,
  Turn,
  TurnHandler,
  TurnReason,
} from "./types.ts";

/** The store namespace of a bot's open dialogs (`conv:`, its name before 0.2, so open ones survive an upgrade). */
export const dialogNamespace = (bot: string) => `conv:${bot}`;

/** The key of a user's dialog in a channel. */
export const dialogKey = (userId: string, channel: ChannelKind) => `${userId}:${channel}`;

/** How long a wait lasts by default. */
export const DEFAULT_TIMEOUT_MS = 10 * 60_000;

/** An open dialog as stored (see the module comment). */
export interface DialogRecord {
  id: string;
  plugin: string;
  name: string;
  user: { id: string; username: string; name: string };
  channel: ChannelKind;
  /** The thread's conversation id, or the DM conversation's id when known. */
  place?: string;
  /** Thread: the post the next message answers (the user's last message in the thread). */
  replyTo?: PostRef;
  /** Thread: the bot's last message, which a timeout's word answers. */
  lastBotPost?: string;
  step: string;
  /** Turns so far: the next message's key. */
  turns: number;
  /** Answers the current step got so far (a retry's attempt). */
  attempts: number;
  deadline?: number;
  startedAt: number;
  /**
   * The version of the dialog it started on, for a dialog made from data (./versions.ts): it
   * finishes on that one however the bot file changes meanwhile.
   */
  version?: string;
}

/** A user's message to the bot, as the stage hands it over (made from a mention, reply or DM event). */
export interface Inbound {
  user: User;
  channel: ChannelKind;
  /** The thread's conversation id, or the DM conversation's id. */
  place: string;
  message: DialogMessage;
  /** Thread: the post itself, to reply to. */
  post?: PostRef;
}

/** How the engine speaks: the bot's action layer (each verb through the whole pipeline), outcomes typed by kind. */
export interface DialogSender {
  reply(to: PostRef, text: string, options: LayerActionOptions): Promise<ActionOutcome<"reply">>;
  dm(userId: string, text: string, options: LayerActionOptions): Promise<ActionOutcome<"dm">>;
  /** Whether the service would refuse this text as the bot's duplicate now. */
  repeatsText(text: string): boolean;
}

/** What the engine is told of each turn and wait (metrics, `bot status`). */
export interface DialogCounters {
  /** Turns run on a user's answer (steps taken), since start. */
  steps: number;
  /** Waits whose time ran out, since start. */
  timeouts: number;
  /** Dialogs opened since start. */
  started: number;
}

export interface EngineOptions {
  bot: string;
  /** The store the bot's ledger is in: what a turn changes rides with its message's record. */
  store: Store;
  clock: Clock;
  log: Logger;
  session: SessionSettings;
  /** The bot file, for messages. */
  file?: string;
  /** Whether an event is still in the bot's inbox (a tombstone it wrote is kept until it leaves). */
  inInbox(eventId: string): boolean;
  /**
   * Whether the inbox holds a message of the user in that channel (and thread), fetched and
   * not yet handled: it may be the answer a wait's timeout must not pass over.
   */
  waitingMessage?(userId: string, channel: ChannelKind, place: string | undefined): boolean;
}

/** How often a timeout whose user's message waits in the inbox is looked at again. */
const RECHECK_MS = 60_000;

/** What a turn is run with: the run's scope, the sender, and the run's logger. */
export interface TurnRun {
  scope: DurableScope;
  send: DialogSender;
  /** The logger of the run (the plugin's, naming the event). */
  log: Logger;
  /**
   * A plugin's session of the run's user as `ctx.session` has it (read through the plugin's
   * schema: the stage's); default: the scope's slice as stored.
   */
  session?(plugin: string, scope: DurableScope): Record<string, unknown>;
}

/**
 * A turn the engine decided on, for the stage to run: the plugin's step (`handler`, none when
 * the turn runs no plugin code) on its `turn`, whose outcome the stage hands back to
 * {@link DialogEngine.settle}. The rest is the engine's, to settle it by.
 */
export interface DialogTurn {
  readonly plugin: string;
  readonly handler: TurnHandler<unknown> | undefined;
  readonly turn: Turn<unknown>;
  readonly run: TurnRun;
  readonly record: DialogRecord;
  readonly key: string;
  readonly reason: TurnReason;
  readonly found: Defined;
  readonly asked: Asked;
  readonly log: Logger;
}

/** What the engine makes of a user's message: whether a dialog takes it, and the turn to run first, if any. */
export interface Answered {
  taken: boolean;
  turn?: DialogTurn;
}

/** A turn's message, for the stage to send down through the action layer: a DM to the user, or a reply in the thread. */
export interface TurnMessage {
  to: { dm: string } | { reply: PostRef };
  text: string;
  options: LayerActionOptions;
}

/** What {@link DialogEngine.settle} made of a turn: whether it was kept, its next record, and the message to send, if any. */
export interface Settled {
  kept: boolean;
  next: DialogRecord | null;
  say?: TurnMessage;
}

/** A wait whose time is up, as the stage takes it from the engine to run its timeout turn. */
export interface DueWait {
  user: string;
  key: string;
  turns: number;
}

const MAX_VARIANTS = 20;

/** A message's text without the @mentions it starts with (who it was addressed to), trimmed. */
export const answerText = (text: string) => text.replace(/^(?:\s*@\w+)+\s*/, "").trim();

/** One bot's dialogs; see the module comment. */
export class DialogEngine {
  private readonly defined = new Map<string, Defined>();
  private readonly timers = new Map<string, () => void>();
  private readonly locks = new Map<string, Promise<void>>();
  private stopped = true;
  /** Where due waits go while the bot runs here, for the stage to take and run their timeout turns. */
  private due: PullQueue<DueWait> | undefined;
  /** The channels whose messages come by a poll, and when each was last read. */
  private polled: Partial<Record<ChannelKind, boolean>> = {};
  private readonly heardAt = new Map<ChannelKind, number>();
  /** Timeouts due but waiting for their channel's next poll, by key: the wait's turn count. */
  private readonly deferred = new Map<string, number>();
  readonly counters: DialogCounters = { steps: 0, timeouts: 0, started: 0 };
  private readonly ns: string;
  private readonly versions: DialogVersions;

  constructor(private readonly options: EngineOptions) {
    this.ns = dialogNamespace(options.bot);
    this.versions = new DialogVersions({
      bot: options.bot,
      store: options.store,
      log: options.log,
      dialogs: this.ns,
      ...(options.file !== undefined ? { file: options.file } : {}),
    });
  }

  /** Registers a plugin's dialog (from its setup). */
  define(plugin: string, name: string, definition: DialogDefinition<unknown>): void {
    const id = `${plugin}\u0000${name}`;
    if (this.defined.has(id))
      throw new Error(`plugin ${plugin} defines the dialog "${name}" twice; give each a name of its own`);
    for (const step of Object.keys(definition.steps))
      if (!step) throw new Error(`plugin ${plugin}, dialog "${name}": a step needs a name`);
    const { versioned } = definition;
    this.defined.set(id, {
      plugin,
      name,
      definition,
      ...(versioned ? { version: versionOf(plugin, name, versioned.spec) } : {}),
    });
  }

  /** Whether any plugin of the bot defines a dialog (the stage routes messages only then). */
  get active(): boolean {
    return this.defined.size > 0;
  }

  /** Dialogs open now. */
  get openCount(): number {
    let open = 0;
    for (const [, record] of this.options.store.entries<ScopedRecord<DialogRecord>>(this.ns)) if (record.v) open++;
    return open;
  }

  /** Whether a due wait waits for the stage to take it (nothing waiting for the clock). */
  get busy(): boolean {
    return (this.due?.size ?? 0) > 0;
  }

  /**
   * The bot runs here from now: counts its open dialogs, sweeps finished runs'
   * tombstones, and arms every wait's timer; a deadline that passed while the process was down
   * fires at once (after the events the inbox kept have been taken up). Returns where the
   * due waits of this run come, for the stage to take (the engine calls no stage): it ends
   * when the bot stops running here.
   */
  resume(polled?: Partial<Record<ChannelKind, boolean>>): PullQueue<DueWait> {
    this.stopped = false;
    this.due?.close();
    const due = (this.due = new PullQueue<DueWait>());
    this.polled = polled ?? {};
    this.heardAt.clear();
    const { store, inInbox } = this.options;
    sweepTombstones(store, this.ns, inInbox);
    this.versions.review(this.defined.values());
    for (const [key, record] of store.entries<ScopedRecord<DialogRecord>>(this.ns))
      if (record.v) this.arm(key, record.v);
    return due;
  }

  /** The bot stops running here: no timer fires any more (the records stay for the next start). */
  suspend(): void {
    this.stopped = true;
    this.due?.close();
    this.due = undefined;
    this.deferred.clear();
    for (const cancel of this.timers.values()) cancel();
    this.timers.clear();
  }

  /** The open dialog of a user in a channel, as stored. */
  record(userId: string, channel: ChannelKind): DialogRecord | undefined {
    return this.options.store.get<ScopedRecord<DialogRecord>>(this.ns, dialogKey(userId, channel))?.v ?? undefined;
  }

  /** An open dialog as the status and the test bed show it. */
  state(userId: string, channel: ChannelKind, plugin?: string): DialogState | undefined {
    const r = this.record(userId, channel);
    if (!r || (plugin !== undefined && r.plugin !== plugin)) return undefined;
    return stateOf(r);
  }

  /** Every open dialog (for `bot status` and the status page). */
  all(): DialogState[] {
    const out: DialogState[] = [];
    for (const [, record] of this.options.store.entries<ScopedRecord<DialogRecord>>(this.ns))
      if (record.v) out.push(this.state(record.v.user.id, record.v.channel)!);
    return out;
  }

  /**
   * What the dialog waiting for a user's message makes of it, if one does; call it holding the
   * user's lock ({@link acquire}). `taken`: the message belongs to the dialog, and no handler of
   * the bot sees it; `turn`: the turn the stage runs and settles first (the answer's, or the
   * timeout's of a wait whose time was up when the message was written).
   */
  answer(inbound: Inbound, run: TurnRun): Answered {
    if (this.defined.size === 0 || this.stopped) return { taken: false };
    const key = dialogKey(inbound.user.id, inbound.channel);
    const record = run.scope.read<DialogRecord>(this.ns, key);
    if (!record || (inbound.channel === "thread" && record.place !== inbound.place)) return { taken: false };
    const current = this.defined.get(`${record.plugin}\u0000${record.name}`);
    if (!current) {
      run.log.warn(
        { dialog: record.id, plugin: record.plugin },
        `the dialog "${record.name}" of plugin ${record.plugin} is no longer defined (the plugin left the bot file?); closed it`,
      );
      run.scope.stage(this.ns, key, null);
      run.scope.apply();
      this.disarm(key);
      return { taken: false };
    }
    const found = this.versions.of(record, current, run.log);
    const written = inbound.message.createdAt !== undefined ? Date.parse(inbound.message.createdAt) : NaN;
    const at = Number.isFinite(written) ? written : this.options.clock.now();
    if (record.deadline !== undefined && at > record.deadline) {
      // Written after the wait's time was up: the timeout's turn comes first, and the message
      // is a new one (it may start the dialog again).
      return { taken: false, turn: this.begin(record, key, "timeout", undefined, found, run) };
    }
    const text = answerText(inbound.message.text);
    const cancel = found.definition.cancel?.some((w) => w.toLowerCase() === text.toLowerCase()) ?? false;
    const next: DialogRecord = {
      ...record,
      ...(inbound.post ? { replyTo: inbound.post } : {}),
      ...(inbound.channel === "dm" ? { place: inbound.place } : {}),
    };
    if (!cancel) this.counters.steps++;
    return { taken: true, turn: this.begin(next, key, cancel ? "cancel" : "answer", inbound.message, found, run) };
  }

  /** Whether a plugin's dialog can be started now (see `Dialog.start`): undefined if so; throws for a name not defined. */
  startable(plugin: string, name: string): StartResult | undefined {
    if (!this.defined.has(`${plugin}\u0000${name}`)) throw new Error(`plugin ${plugin} has no dialog named "${name}"`);
    return this.stopped ? { started: false, reason: "stopped" } : undefined;
  }

  /**
   * Opens a dialog with the message's user, holding the user's lock: its first turn, for the
   * stage to run and settle (the dialog started if it settles), or why it did not start.
   */
  open(plugin: string, name: string, inbound: Inbound, run: TurnRun): { turn: DialogTurn; id: string } | StartResult {
    const found = this.defined.get(`${plugin}\u0000${name}`);
    if (!found) throw new Error(`plugin ${plugin} has no dialog named "${name}"`);
    const key = dialogKey(inbound.user.id, inbound.channel);
    if (run.scope.read<DialogRecord>(this.ns, key)) return { started: false, reason: "open" };
    const id = shortId(`${this.options.bot}\u0000${key}\u0000${run.scope.id}`);
    const record: DialogRecord = {
      id,
      plugin,
      name,
      user: { id: inbound.user.id, username: inbound.user.username, name: inbound.user.name },
      channel: inbound.channel,
      place: inbound.place,
      ...(inbound.post ? { replyTo: inbound.post } : {}),
      step: "",
      turns: 0,
      attempts: 0,
      startedAt: this.options.clock.now(),
      ...(found.version !== undefined ? { version: found.version } : {}),
    };
    this.counters.started++;
    return { turn: this.begin(record, key, "start", inbound.message, found, run), id };
  }

  /** The turn `record` takes now (see the module comment): the step the stage runs, and what settles it. */
  private begin(
    record: DialogRecord,
    key: string,
    reason: TurnReason,
    message: DialogMessage | undefined,
    found: Defined,
    run: TurnRun,
  ): DialogTurn {
    const { definition, plugin } = found;
    const handler = handlerOf(definition, reason, record.step);
    const log = run.log.child({ dialog: record.id, step: record.step || "start" });
    const session = run.session ? run.session(plugin, run.scope) : run.scope.session(plugin);
    const asked = turnOf(record, reason, message, found, { session, log });
    return { plugin, handler, turn: asked.turn, run, record, key, reason, found, asked, log };
  }

  /**
   * Keeps what a turn did, once the stage ran its step: `failure` when the step threw (or ran
   * out of time), and then nothing of the turn is kept. When the turn said something, its
   * message is for the stage to send (`say`), and its outcome to hand back to {@link sent},
   * which finishes the turn; otherwise the turn is finished here.
   */
  settle(t: DialogTurn, failure?: { error: unknown }): Settled {
    const { record, key, reason, found, asked, log, run } = t;
    const { definition, plugin } = found;
    if (failure) {
      const { error } = failure;
      run.scope.discard(plugin);
      log.error(
        { err: error },
        `plugin ${plugin}, dialog "${found.name}": its ${reason === "answer" ? `step "${record.step}"` : reason} threw: ${(error as Error)?.message ?? String(error)}; the dialog stays as it was`,
      );
      return { kept: false, next: null };
    }
    if (t.handler === undefined && reason === "answer")
      log.warn(`the dialog "${found.name}" has no step "${record.step}" any more; closed it`);
    // The turn's new state, staged to ride with its message's record.
    const next = nextRecord(record, reason, asked.waitFor, definition, this.options.clock.now());
    run.scope.stage(this.ns, key, next);
    if (reason === "timeout") this.counters.timeouts++;
    if (!next) this.disarm(key);
    if (asked.said.length > 0) return { kept: true, next, say: this.message(t, asked.said.join("\n")) };
    this.finish(t, next);
    return { kept: true, next };
  }

  /**
   * The outcome of a turn's message (the stage sent it): in a thread the bot's post is noted on
   * the waiting record (a timeout's message answers it), a message not sent is logged; then the
   * turn is finished.
   */
  sent(t: DialogTurn, settled: Settled, outcome: ActionOutcome<"reply"> | ActionOutcome<"dm">): void {
    const { record, key, found, log, run } = t;
    const { next } = settled;
    // A thread's message is a reply: its outcome carries the bot's new post.
    const posted =
      record.channel === "thread" && outcome.status === "sent" && "id" in outcome.result.data
        ? outcome.result.data.id
        : undefined;
    if (posted !== undefined) {
      if (next) run.scope.stage(this.ns, key, { ...next, lastBotPost: posted });
    } else if (outcome.status !== "sent" && outcome.status !== "duplicate" && outcome.status !== "dry-run") {
      log.warn(
        { outcome: outcome.status, reason: "reason" in outcome ? outcome.reason : undefined },
        `dialog "${found.name}" with @${record.user.username}: its message was not sent (${outcome.status}${"reason" in outcome ? `: ${outcome.reason}` : ""}); the dialog ${next ? `waits in step "${next.step}" anyway` : "ends"}`,
      );
    }
    this.finish(t, next);
  }

  /** What no message carried (a silent turn) is set now, and the wait's timer armed. */
  private finish(t: DialogTurn, next: DialogRecord | null): void {
    t.run.scope.apply();
    if (next) this.arm(t.key, next);
  }

  /**
   * A turn's message, where the dialog is: in DMs to the user; in a thread as a reply to the
   * user's message, or, for a timeout, to the bot's last question (a reply to the user's
   * message would look, to the ledger's check after a crash, like the question itself). Its
   * key is the dialog's id and the turn's number, and it carries the scope's rider.
   */
  private message(t: DialogTurn, text: string): TurnMessage {
    const { record, reason, run } = t;
    const options: LayerActionOptions = {
      key: dialogTarget(record.id, record.turns + 1),
      rider: run.scope.rider(),
      dialog: record.id,
    };
    if (record.channel === "dm") return { to: { dm: record.user.id }, text, options };
    const target: PostRef | undefined =
      reason === "timeout" && record.lastBotPost !== undefined
        ? { id: record.lastBotPost, ...(record.place !== undefined ? { conversation_id: record.place } : {}) }
        : record.replyTo;
    if (!target) throw new Error(`dialog ${record.id} has no post to answer in its thread`);
    return { to: { reply: target }, text: this.varied(`@${record.user.username} ${text}`, run.send), options };
  }

  /** The text, or with a counter when the bot posted it within 24 hours (the service refuses a repeat). */
  private varied(text: string, send: DialogSender): string {
    if (!send.repeatsText(text)) return text;
    for (let n = 2; n <= MAX_VARIANTS; n++) {
      const candidate = `${text} (${n})`;
      if (!send.repeatsText(candidate)) return candidate;
    }
    return text;
  }

  /** Arms the timer of a record's wait (replacing the one before). */
  private arm(key: string, record: DialogRecord): void {
    this.disarm(key);
    if (this.stopped || record.deadline === undefined) return;
    const fire = () => {
      this.timers.delete(key);
      this.fire(key, record.turns);
    };
    const due = record.deadline - this.options.clock.now();
    if (due <= 0) {
      // Passed while the process was down: at once, after what the start handles first.
      let cancelled = false;
      this.timers.set(key, () => (cancelled = true));
      setImmediate(() => {
        if (!cancelled) fire();
      });
    } else this.timers.set(key, this.options.clock.setTimeout(fire, due));
  }

  /**
   * The bot has just read a channel's messages from the service (a poll is over; what it
   * fetched is in the inbox): the timeouts that waited to know whether an answer came in time
   * go on.
   */
  heard(channel: ChannelKind): void {
    this.heardAt.set(channel, this.options.clock.now());
    for (const [key, turns] of [...this.deferred]) {
      if (!key.endsWith(`:${channel}`)) continue;
      this.deferred.delete(key);
      this.fire(key, turns);
    }
  }

  /**
   * A wait's time is up: its timeout turn, if the dialog still waits there, and only
   * once the bot knows no answer came in time. An answer counts by when it was written, and a
   * polled channel's messages are known only at its next poll (DMs on basic: once a day), so
   * the timeout waits for a poll after the deadline; and when a message of the user there
   * waits in the inbox, its handling decides (an answer in time, or the timeout first).
   */
  private fire(key: string, turns: number): void {
    const due = this.due;
    if (this.stopped || !due) return;
    const userId = key.slice(0, key.lastIndexOf(":"));
    const channel = key.slice(key.lastIndexOf(":") + 1) as ChannelKind;
    const waiting = this.options.store.get<ScopedRecord<DialogRecord>>(this.ns, key)?.v;
    if (waiting && waiting.turns === turns && waiting.deadline !== undefined) {
      if (this.polled[channel] && !((this.heardAt.get(channel) ?? -Infinity) >= waiting.deadline)) {
        this.deferred.set(key, turns);
        return;
      }
      if (this.options.waitingMessage?.(userId, channel, waiting.place)) {
        this.timers.set(
          key,
          this.options.clock.setTimeout(() => void this.fire(key, turns), RECHECK_MS),
        );
        return;
      }
    }
    due.push({ user: userId, key, turns });
  }

  /**
   * The timeout turn of a due wait, holding the user's lock, under a scope of its own (in
   * the turn's `run`, which the stage finishes once the turn is settled); none when the wait
   * got its answer meanwhile or its time is not up.
   */
  timeoutTurn(wait: DueWait, run: Omit<TurnRun, "scope">): DialogTurn | undefined {
    // Taken after the bot stopped running here: the next start arms the wait again.
    if (this.stopped) return undefined;
    const { key, turns } = wait;
    const scope = new DurableScope({
      store: this.options.store,
      clock: this.options.clock,
      bot: this.options.bot,
      id: `timeout:${this.options.bot}:${key}:${turns}`,
      user: wait.user,
      session: this.options.session,
      ...(this.options.file !== undefined ? { file: this.options.file } : {}),
    });
    const record = scope.read<DialogRecord>(this.ns, key);
    if (!record || record.turns !== turns || record.deadline === undefined) return undefined;
    if (record.deadline > this.options.clock.now()) return void this.arm(key, record);
    const current = this.defined.get(`${record.plugin}\u0000${record.name}`);
    if (!current) return undefined;
    const found = this.versions.of(record, current, run.log);
    return this.begin(record, key, "timeout", undefined, found, { ...run, scope });
  }

  private disarm(key: string): void {
    this.timers.get(key)?.();
    this.timers.delete(key);
    this.deferred.delete(key);
  }

  /**
   * Waits until the user's turns before are over, and holds the user's lock (one turn of a
   * user at a time) until the returned release is called: the stage holds it across deciding,
   * running and settling a turn.
   */
  async acquire(userId: string): Promise<() => void> {
    const before = this.locks.get(userId) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((resolve) => (release = resolve));
    const tail = before.then(() => mine);
    this.locks.set(userId, tail);
    await before;
    return () => {
      release();
      if (this.locks.get(userId) === tail) this.locks.delete(userId);
    };
  }
}

/** The handler a turn runs: the definition's start, timeout or cancelled, or the waiting step's. */
function handlerOf(
  definition: DialogDefinition<unknown>,
  reason: TurnReason,
  step: string,
): TurnHandler<unknown> | undefined {
  if (reason === "start") return definition.start;
  if (reason === "timeout") return definition.timeout;
  if (reason === "cancel") return definition.cancelled;
  return definition.steps[step];
}

/** What a turn's handler asked for: the texts it said, and the step it waits in next (none: it ends). */
export interface Asked {
  turn: Turn<unknown>;
  said: string[];
  waitFor: { step: string; timeoutMs?: number } | undefined;
}

/** The `turn` a handler gets, writing what it says and where it waits into the answer. */
function turnOf(
  record: DialogRecord,
  reason: TurnReason,
  message: DialogMessage | undefined,
  found: Defined,
  parts: { session: Turn<unknown>["session"]; log: Logger },
): Asked {
  const { definition } = found;
  const asked: Asked = { turn: undefined as never, said: [], waitFor: undefined };
  const turn: Turn<unknown> = {
    reason,
    step: record.step || undefined,
    message,
    text: message ? answerText(message.text) : "",
    user: record.user,
    channel: record.channel,
    attempt: reason === "answer" ? record.attempts : 0,
    session: parts.session,
    log: parts.log,
    say(text: string) {
      if (typeof text !== "string" || text.trim() === "")
        throw new TypeError("turn.say needs a text that is not empty");
      asked.said.push(text);
    },
    wait(step: string, options?: { timeoutMs?: number; say?: string }) {
      if (!Object.hasOwn(definition.steps, step))
        throw new Error(
          `turn.wait("${step}"): the dialog "${found.name}" has no such step (its steps: ${Object.keys(definition.steps).join(", ") || "none"})`,
        );
      if (options?.say !== undefined) turn.say(options.say);
      asked.waitFor = { step, ...(options?.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}) };
    },
    end() {
      asked.waitFor = undefined;
    },
  };
  asked.turn = turn;
  return asked;
}

/** The record after a turn: waiting in its next step (with its deadline from `now`), or null when it ended. */
function nextRecord(
  record: DialogRecord,
  reason: TurnReason,
  waitFor: Asked["waitFor"],
  definition: DialogDefinition<unknown>,
  now: number,
): DialogRecord | null {
  if (!waitFor) return null;
  const timeoutMs = waitFor.timeoutMs ?? definition.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  // (`data`: a dialog's own state in records written before postbot 0.2; its answers live in the session now.)
  const { deadline: _old, data: _data, ...rest } = record as DialogRecord & { data?: unknown };
  return {
    ...rest,
    step: waitFor.step,
    turns: record.turns + 1,
    attempts: waitFor.step === record.step && reason === "answer" ? record.attempts + 1 : 0,
    ...(timeoutMs > 0 && Number.isFinite(timeoutMs) ? { deadline: now + timeoutMs } : {}),
  };
}

/** A record as {@link DialogState} shows it. */
function stateOf(r: DialogRecord): DialogState {
  return {
    id: r.id,
    plugin: r.plugin,
    name: r.name,
    user: { id: r.user.id, username: r.user.username },
    channel: r.channel,
    ...(r.place !== undefined ? { place: r.place } : {}),
    step: r.step,
    turns: r.turns,
    ...(r.deadline !== undefined ? { deadline: r.deadline } : {}),
    startedAt: r.startedAt,
  };
}

/**
 * A user's open dialog with a bot, read from the store (`postbot/testing` and tools that
 * look at a state from outside), with the bot's last message in it when it is in a thread.
 */
export function readDialog(
  store: Store,
  bot: string,
  userId: string,
  channel: ChannelKind,
): (DialogState & { lastBotPost?: string }) | undefined {
  const r = store.get<ScopedRecord<DialogRecord>>(dialogNamespace(bot), dialogKey(userId, channel))?.v;
  if (!r) return undefined;
  return { ...stateOf(r), ...(r.lastBotPost !== undefined ? { lastBotPost: r.lastBotPost } : {}) };
}

/** A short, stable id made of `seed` (a dialog's: the same start, run again, gets the same id). */
const shortId = (seed: string) => createHash("sha256").update(seed).digest("base64url").slice(0, 12);
