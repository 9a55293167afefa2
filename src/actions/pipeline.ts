/**
 * The action pipeline: every action a bot takes passes these steps, in this order, each a
 * file of ./steps that states the one thing it guarantees (and has its own test in
 * test/actions/steps):
 *
 *     hidden guard ▸ ledger ▸ reply safety ▸ text writer ▸ duplicate guard ▸ budget gate ▸ retry ▸ queue ▸ executor
 *
 * - hidden guard: nothing answers a post the bot has hidden;
 * - ledger: an idempotency key is sent at most once, and nothing asked for is lost;
 * - reply safety: no reply that would start a loop;
 * - text writer: a text written when the action goes (a model's reply) is written once per
 *   key and recorded with the ledger entry before anything is sent;
 * - duplicate guard: no request spent on a text the service refuses as a duplicate;
 * - budget gate: what the plan or the bot file never allows is refused at once;
 * - retry: a failure is tried again only when that can help, checking first whether it arrived;
 * - queue: no request without a slot in every window, and every answer corrects its slot;
 * - executor: one request, and what came back (body and headers, or the error).
 *
 * Reads the runtime makes (polls, checks with the service) take the short way through the
 * same budget:
 *
 *     budget gate ▸ retry ▸ queue ▸ executor
 *
 * The steps are wrapped around each other (a {@link Step} gets the rest of the pipeline as
 * `next`); the mechanisms some of them drive live in ./mechanics (the budget queue, the
 * idempotency ledger, the retry policy, the service check). Steps talk to each other only
 * through the job they pass down and the outcome they pass up: every such channel is listed
 * in "Job channels" below, and nowhere else. ./bot-pipelines.ts makes a bot's steps from its
 * parts; this file puts them in order.
 *
 * ## At most once, in one place
 *
 * An idempotency key is sent at most once, across crashes, because:
 *
 * 1. The ledger step lets one job per key through at a time (the same key asked for again
 *    meanwhile waits for the first's outcome), answers `duplicate` for a key whose entry is
 *    final (`done`, or `unknown`: it may have been sent), and records the action `queued`.
 * 2. It hands the job a {@link PendingMark}: the entry's `pending` mark for this key. Only the
 *    queue step uses it, once it holds the request's slot and before it calls `next` (the
 *    executor): with a budget shared on Redis, the slot's claim writes the mark in the same
 *    script (both or neither; the slot comes back `marked`); otherwise the queue step awaits
 *    {@link PendingMark.write}, which resolves only once the store has made the mark durable
 *    (`flushFor`, or `flush`). If the mark cannot be written, nothing is sent and a slot taken
 *    for it is given back ({@link unsentFailure}).
 * 3. So a request never leaves before its key reads `pending` in durable state. A process that
 *    dies after that leaves the key `pending`; at the next start the ledger step asks the
 *    service (./mechanics/service-check.ts) before anything is sent again: found, it is done;
 *    not found, the slot the lost request held is given back and it is sent. A process that
 *    dies before that leaves the key `queued` (or unwritten): never sent, so sending it is safe.
 * 4. The retry step hands the mark to the first attempt only: later attempts go out under the
 *    same `pending` entry. After an ambiguous failure (the request may have arrived) it checks
 *    with the service before sending again, and one that cannot be checked ends `unknown`,
 *    final for the ledger step.
 * 5. The steps between the ledger and the queue (reply safety, text writer, duplicate guard,
 *    budget gate, retry) pass the job on with its channels; none replaces the mark, and only
 *    the retry step drops it, as point 4 says.
 *
 * ## What rides with the ledger's record
 *
 * A handler's other changes (its user's session, a conversation's step: src/plugins/dialogs)
 * must become durable together with the actions it sends: a crash may lose neither one without
 * the other. The job's {@link LedgerRider} carries them, as data. The ledger step hands its
 * values to `Ledger.queue` (./mechanics/idempotency-ledger.ts), which sets them in the store
 * in the same synchronous run as the first record of the action, and nowhere else. Both stores make a bot's changes durable a whole "file" at a time
 * (the file store: one journal line holds every change made before it; Redis: one fenced script
 * per bot hash, and the ledger, sessions and dialogs share the bot's hash), so every
 * durable write holds both the record and the rider's values, or neither: a write that holds the
 * session holds the action `queued` (or, later, `pending`), which the next start resumes, and
 * the `pending` mark written before the request leaves holds the session. An action the ledger
 * does not record (a duplicate, refused before the ledger, the ledger off) leaves its rider
 * untaken; its owner writes the values at the end of the handler instead, or with its next
 * action's rider, and marks this one superseded, so that a ledger step that gets to it
 * later (one that checked the service first) never writes older values over newer ones.
 *
 * ## A written text, once
 *
 * A text written when its action goes (a language model's reply: {@link WriteText}) is asked
 * for at most once per key, and the text sent is the one written. The ledger step lets one
 * job per key through, and hands on the action as an earlier run recorded it; the text writer
 * step calls the writer only when that action has no text, and awaits {@link JobChannels.record}
 * (the action with its text, `queued`, flushed) before passing it on. So a retry, or a restart
 * after a crash anywhere after the record, resumes the recorded action and sends its text; a
 * crash before the record leaves no text, and the event, still in the bot's inbox, asks again.
 *
 * A writer's check that takes time (a moderation judge: `WriteText.check`) runs after the
 * record, on the recorded text, which the record marks unchecked until it passes (then it is
 * recorded again, checked, before the action goes on). A crash while it runs costs the writer
 * nothing: the restart's event checks the recorded text again, and `recover()` leaves an
 * unchecked action to its event, so no text goes out unchecked.
 *
 * The window in which a crash costs the model a second request is therefore exactly: from the
 * model's answer reaching the writer to the record being durable. It holds the writer's own
 * synchronous work on the answer (budget.llm's count, the shaping, the moderation classifier:
 * about half a millisecond; answers that came back at once take their turns for it one after
 * another, src/llm/turns.ts) and one durable write (the file store: the journal's append and
 * fdatasync, shared with whatever else is flushed at once; Redis: the bot's fenced write). A
 * request whose answer a crash cut off on its way is in it too. How many answers a crash can
 * find in it is bounded by the writer, not by how fast they are recorded: the step tells the
 * writer when its text is durable (`WriteText`'s `recorded`), and a model's writer holds its
 * server's request slot until then (src/llm/request-slots.ts), so at most `parallel` answers
 * of a server are ever outside the record (without it, 200 requests went out at once, a
 * journal append under load took 30-300 ms, and a kill found ~100 answers not recorded).
 * Past it, nothing depends on the text that is not durable: the check, the duplicate guard,
 * the budget queue, the `pending` mark and the request all come after the record, and
 * `recover()` resumes a recorded, checked action even once its event has left the inbox
 * (test/llm/kill9.test.ts kills a child at each of these: while the recorded text is checked,
 * while the reply waits for its slot, and once it is marked `pending`).
 */
import type { StagedWrite } from "../store/staged-write.ts";
import type { Action, CheckText, Executed, HeaderBag, Outcome, SlotRecord, WriteText } from "./action.ts";

// ---------------------------------------------------------------------------------------------
// Job channels: what a step sets on the job (or on the outcome) for another step. Each says
// who writes it, who reads it, and who clears it.
// ---------------------------------------------------------------------------------------------

/**
 * The ledger's durable `pending` mark of one job's key, made by the ledger step for the queue
 * step (see "At most once" above). `write` and `stage` are two ways to write the same mark:
 * which one runs is the budget's choice, never both. Plain functions, handed on detached.
 */
export interface PendingMark {
  /**
   * Marks the key `pending` with the slot its request is counted in and resolves once that is
   * durable (flushed). Called by the queue step right before `next`, unless the slot came
   * back `marked`. When it throws, nothing is sent.
   */
  readonly write: (slot: SlotRecord) => Promise<void>;
  /**
   * The same mark, prepared for a shared budget's take to write with the slot (one round trip,
   * both or neither; see `AccountBudget.claim`), or `undefined` when the store cannot (then
   * {@link write} runs after the slot).
   */
  readonly stage: (slot: SlotRecord) => Promise<StagedWrite | undefined>;
}

/** One value a {@link LedgerRider} sets in the store: under `namespace` and `key`; `undefined` deletes it. */
export interface RiderWrite {
  readonly namespace: string;
  readonly key: string;
  readonly value: unknown;
}

/**
 * Values that must become durable with an action's first ledger record (see "What rides with
 * the ledger's record" above): made by whoever asked for the action (a handler's durable scope,
 * src/plugins/dialogs/durable-scope.ts), written by the ledger step with the record. Plain
 * data, not a callback: the ledger calls nothing back. Its two flags are how the two sides
 * tell each other what happened to it.
 */
export interface LedgerRider {
  /** The values, as they were when the action was asked for. */
  readonly writes: readonly RiderWrite[];
  /** Set by the ledger step once it wrote the values with the record. */
  taken?: boolean;
  /**
   * Set by the rider's owner when it has written newer values itself (its run went on, or
   * ended) before the ledger step took this rider: the ledger step then never writes it.
   */
  superseded?: boolean;
}

/** What steps pass down on a job for a later step. */
export interface JobChannels {
  /**
   * What rides with the action's first ledger record. Written by the layer (from what asked for
   * the action); written to the store by the ledger step with the record that queues the
   * action (unless superseded), and marked taken; not read by any other step.
   */
  readonly rider?: LedgerRider | undefined;
  /**
   * The ledger's mark of the job's key. Written by the ledger step (absent when the ledger is
   * off or the action has no key); cleared by the retry step for every attempt after the
   * first; used (staged or written) and cleared by the queue step, so the executor never
   * sees it.
   */
  readonly pendingMark?: PendingMark | undefined;
  /**
   * Not before this time (ms on the clock): a retry's back-off or a 429's reset. Written by the
   * retry step; read by the queue step, which hands out no slot sooner.
   */
  readonly notBefore?: number | undefined;
  /**
   * Writes the action's text (see {@link WriteText}) when the action as the ledger has it has
   * none yet. Set by the layer (a verb given a writer instead of a text); called at most once,
   * by the text writer step, which hands the text on in the action and clears this.
   */
  readonly write?: WriteText | undefined;
  /**
   * The writer's check of its recorded text (`WriteText.check`). Set by the layer with
   * `write`; called by the text writer step on a text whose record says it is unchecked,
   * before the action goes on (a restart's event brings it again); not read by any other step.
   */
  readonly check?: CheckText | undefined;
  /**
   * Records the action, its written text in it, with its ledger entry, and resolves once that
   * is durable. Written by the ledger step; called by the text writer step right after the
   * text is written (absent when the ledger is off).
   */
  readonly record?: ((action: Action) => Promise<void>) | undefined;
}

/**
 * One action (or budgeted read) on its way through the pipeline: what the layer asked for,
 * and the {@link JobChannels} steps add. The ledger step may also hand on, as `action`, the
 * copy of it an earlier run recorded (so a resumed action keeps its first time-to-live).
 */
export interface Job extends JobChannels {
  readonly action: Action;
  readonly signal: AbortSignal;
  /** Aborted when the layer closes (the process stops): a text writer still waiting gives up (see `WriteText`). */
  readonly stopping?: AbortSignal;
  /**
   * How to send a read's request when it brings its own (a read through another client: the
   * app's stream connection, or a check with the service); actions are sent by the bot's
   * executor and described reads (`ActionLayer.fetch`) by its reader. Set by the layer.
   */
  readonly send?: (signal: AbortSignal) => Promise<Executed>;
  /** Posts a read delivered, counted against the monthly read cap (capped endpoints only). Set by the layer. */
  readonly postsDelivered?: (result: unknown) => number;
}

/**
 * What steps pass back up: an {@link Outcome}, and channels on it.
 *
 * - `headers`: the answer's headers (for a request that got an answer), written by the
 *   executor step and read by the queue step, which turns them into budget corrections; the
 *   layer strips them before a plugin sees the outcome.
 * - a `failed` outcome's `error`: what the executor caught, which the retry step sorts. A
 *   failure without one was decided before any request left (see {@link unsentFailure}) and
 *   the retry step returns it as it is.
 */
export type StepOutcome = Outcome & { headers?: HeaderBag };

/**
 * A failure decided before any request left (the ledger's mark could not be written): no
 * `error`, so the retry step leaves it alone, and `maybeSent: false`, so the ledger step ends
 * the key `failed`, free to be asked for again.
 */
export const unsentFailure = (reason: string): StepOutcome => ({ status: "failed", reason, maybeSent: false });

/** Whether a failure was decided before any request left (no `error` to sort): see {@link unsentFailure}. */
export const isUnsentFailure = (outcome: StepOutcome & { status: "failed" }): boolean => outcome.error === undefined;

// ---------------------------------------------------------------------------------------------
// Steps and their order
// ---------------------------------------------------------------------------------------------

/** The rest of the pipeline, as a step sees it. */
export type Perform = (job: Job) => Promise<StepOutcome>;

/**
 * One step of the pipeline, wrapped around the rest of it: it may look at the job, refuse
 * it, change it, or act on the outcome (grammY's API transformers have the same shape).
 */
export type Step = (next: Perform) => Perform;

/** One bot's steps, each made for it (./bot-pipelines.ts), by name. */
export interface ActionSteps {
  hiddenGuard: Step;
  ledger: Step;
  replySafety: Step;
  textWriter: Step;
  duplicateGuard: Step;
  budgetGate: Step;
  retry: Step;
  queue: Step;
  executor: Perform;
}

/** The steps of budgeted reads: the short way. */
export type ReadSteps = Pick<ActionSteps, "budgetGate" | "retry" | "queue" | "executor">;

/** Wraps the steps around `last`, the first step outermost. */
const compose = (steps: Step[], last: Perform): Perform => steps.reduceRight<Perform>((next, step) => step(next), last);

/** The pipeline of a bot's actions, in the order of the module comment. */
export function actionPipeline(s: ActionSteps): Perform {
  return compose(
    [s.hiddenGuard, s.ledger, s.replySafety, s.textWriter, s.duplicateGuard, s.budgetGate, s.retry, s.queue],
    s.executor,
  );
}

/** The pipeline of a bot's budgeted reads (each job brings its own request as `send`). */
export function readPipeline(s: ReadSteps): Perform {
  return compose([s.budgetGate, s.retry, s.queue], s.executor);
}
