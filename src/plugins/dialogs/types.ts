/**
 * The dialog API a plugin writes against (the engine that runs it is ./engine.ts): a dialog is
 * a small state machine with one user at a time. Its state is the step it waits in and the
 * user's session; a *turn* is one move, run on one input (the start, the user's answer, the
 * wait's time running out, a cancel word). A turn decides what to say and where to go next;
 * the engine then sends what it said, as one message, and the new state becomes durable with
 * that message's ledger record (./durable-scope.ts). So after a crash at any moment the
 * dialog is either before the turn (the turn runs again, from the same state, and its
 * message, if it was recorded, is not sent twice: the ledger checks it with the service) or
 * after it (the message is recorded and will be sent; the step has advanced): it never asks
 * a question twice and never skips one.
 *
 * A dialog's answers live in the user's session: `turn.session` is the same object as the
 * plugin's `ctx.session`, kept after the dialog ends.
 *
 * Why a state machine rather than replaying a handler (grammY's conversations run the whole
 * conversation function again from the top on every message, feeding it the recorded answers):
 * a replayed function must be deterministic all the way through, every side effect must be
 * wrapped to be skipped on replay, and one that awaits something never recorded hangs or
 * diverges (grammY documents such cases). Here the durable state is explicit and small (a step
 * name and the session), a turn is a function of that state and one input, and re-running one
 * turn after a crash is safe because every message it sends has an idempotency key made of
 * the dialog and the turn's number. The cost is that a dialog is written as named steps, not
 * as straight-line code with `await`s.
 *
 * @example
 * ```ts
 * const order = bot.dialog("order", {
 *   start(turn) { turn.say("Which size: S, M or L?"); turn.wait("size"); },
 *   steps: {
 *     size(turn) {
 *       const size = turn.text.toUpperCase();
 *       if (!["S", "M", "L"].includes(size)) return turn.wait("size", { say: "S, M or L, please." });
 *       turn.session.size = size;
 *       turn.say(`${size} it is. Thanks!`); // no wait: the dialog ends
 *     },
 *   },
 *   cancel: ["stop"],
 * });
 * bot.on("mention", (ctx) => order.start(ctx));
 * ```
 */
import type { User } from "../../api/types.ts";
import type { Logger } from "../../log.ts";

/** Where a dialog happens: the public thread it started in, or direct messages. */
export type ChannelKind = "thread" | "dm";

/** What a turn runs on. */
export type TurnReason = "start" | "answer" | "timeout" | "cancel";

/** A message of the user, as a turn sees it. */
export interface DialogMessage {
  /** The post's id (a thread) or the DM event's id. */
  id: string;
  /** The whole text, as written. */
  text: string;
  /** When it was written (ISO time), when the service said. */
  createdAt?: string;
}

/** One move of a dialog; see the module comment. `S` is the plugin's session. */
export interface Turn<S = Record<string, unknown>> {
  /** What the turn runs on. */
  readonly reason: TurnReason;
  /** The step the dialog waited in (undefined at the start). */
  readonly step: string | undefined;
  /** The user's message (absent for a timeout). */
  readonly message: DialogMessage | undefined;
  /** The message's text without the @mentions it starts with, trimmed ("" for a timeout). */
  readonly text: string;
  /** Who the dialog is with. */
  readonly user: User;
  readonly channel: ChannelKind;
  /** How many answers this step got before this one (0 for its first answer): to word a retry. */
  readonly attempt: number;
  /**
   * The user's session of this plugin (the plugin's `ctx.session`), where a dialog keeps its
   * answers: change it in place; it is kept after the dialog ends.
   */
  readonly session: S;
  /** A logger naming the bot, the plugin and the dialog. */
  readonly log: Logger;
  /** Says something: every text of a turn goes out as one message, in order, once the turn is over. */
  say(text: string): void;
  /**
   * Waits for the user's next message in `step` (that step's handler gets it). Without a wait,
   * the dialog ends after this turn. `timeoutMs` replaces the dialog's `timeoutMs` for this
   * wait (0: no timeout); `say` is said first, as {@link say}.
   */
  wait(step: string, options?: { timeoutMs?: number; say?: string }): void;
  /** Ends the dialog after this turn (what a turn without {@link wait} does too). */
  end(): void;
}

/** A turn's code: it may be async (to look something up), and decides before its message leaves. */
export type TurnHandler<S> = (turn: Turn<S>) => void | Promise<void>;

/** A dialog, as a plugin defines it with `bot.dialog(name, definition)`. `S` is the plugin's session. */
export interface DialogDefinition<S = Record<string, unknown>> {
  /** The first turn, when `start()` opens the dialog: usually says a question and waits in a step. */
  start: TurnHandler<S>;
  /** Each step's handler of the user's answer, by step name. */
  steps: Record<string, TurnHandler<S>>;
  /** How long each wait lasts before {@link timeout} runs, in ms (default 10 minutes; 0: no timeout). */
  timeoutMs?: number;
  /** When a wait's time is up; the dialog ends after it unless it waits again (default: ends silently). */
  timeout?: TurnHandler<S>;
  /** Messages that end the dialog when they are one of these words (any case, ignoring the leading @mentions). */
  cancel?: readonly string[];
  /** What to do when the user cancels, before the dialog ends (default: end silently). */
  cancelled?: TurnHandler<S>;
  /**
   * For a dialog made from data (the `dialog` plugin's steps in a bot file): the data, as
   * JSON, and how a definition is made from it. An open dialog then finishes on the version
   * it started with when the data changes (a bot file edited, live or while the bot was
   * stopped): the engine keeps each open dialog's version in the state and makes it again
   * with `make`. Without it (a dialog in code), open dialogs go on by step name. See
   * ./versions.ts.
   */
  versioned?: DialogVersioned<S>;
}

/** A dialog's data and how it is made from them: see {@link DialogDefinition.versioned}. */
export interface DialogVersioned<S = Record<string, unknown>> {
  /** The data this definition is made from (JSON: kept in the state while a dialog is on it). */
  spec: unknown;
  /** Makes the definition of a version from its data (an earlier one, read from the state). */
  make(spec: unknown): DialogDefinition<S>;
}

/** An open dialog, as `bed.dialog(bot, user)` and `bot status` show it. */
export interface DialogState {
  /** The dialog's id (stable for its whole life). */
  id: string;
  plugin: string;
  /** The name the plugin gave it. */
  name: string;
  user: { id: string; username: string };
  channel: ChannelKind;
  /** The thread (its conversation id), or the DM conversation, when known. */
  place?: string;
  /** The step it waits in. */
  step: string;
  /** Turns so far. */
  turns: number;
  /** When the wait's time is up (ms on the clock), if it has a timeout. */
  deadline?: number;
  startedAt: number;
}

/** How `start()` ended: opened (its first turn ran), or not and why. */
export type StartResult =
  | { started: true; id: string }
  | { started: false; reason: "open" | "no user" | "not a message" | "stopped" };
