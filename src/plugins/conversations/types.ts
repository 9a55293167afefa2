/**
 * The conversation API a plugin writes against (the engine that runs it is ./engine.ts): a
 * conversation is a small state machine. Its state is the step it waits in, its own `data` and
 * the user's session; a *turn* is one move, run on one input (the start, the user's answer,
 * the wait's time running out, a cancel word). A turn decides what to say and where to go next;
 * the engine then sends what it said, as one message, and the new state becomes durable with
 * that message's ledger record (./durable-scope.ts). So after a crash at any moment the
 * conversation is either before the turn (the turn runs again, from the same state, and its
 * message, if it was recorded, is not sent twice: the ledger checks it with the service) or
 * after it (the message is recorded and will be sent; the step has advanced): it never asks
 * a question twice and never skips one.
 *
 * Why a state machine rather than replaying a handler (grammY's conversations run the whole
 * conversation function again from the top on every message, feeding it the recorded answers):
 * a replayed function must be deterministic all the way through, every side effect must be
 * wrapped to be skipped on replay, and one that awaits something never recorded hangs or
 * diverges (grammY documents such cases). Here the durable state is explicit and small (a step
 * name and plain data), a turn is a function of that state and one input, and re-running one
 * turn after a crash is safe because every message it sends has an idempotency key made of
 * the conversation and the turn's number. The cost is that a conversation is written as named
 * steps, not as straight-line code with `await`s.
 *
 * @example
 * ```ts
 * const order = bot.conversation("order", {
 *   start(turn) { turn.say("Which size: S, M or L?"); turn.wait("size"); },
 *   steps: {
 *     size(turn) {
 *       const size = turn.text.toUpperCase();
 *       if (!["S", "M", "L"].includes(size)) return turn.wait("size", { say: "S, M or L, please." });
 *       turn.session.size = size;
 *       turn.say(`${size} it is. Thanks!`); // no wait: the conversation ends
 *     },
 *   },
 *   cancel: ["stop"],
 * });
 * bot.on("mention", (ctx) => order.start(ctx));
 * ```
 */
import type { User } from "../../api/types.ts";
import type { Logger } from "../../log.ts";

/** Where a conversation happens: the public thread it started in, or direct messages. */
export type ChannelKind = "thread" | "dm";

/** What a turn runs on. */
export type TurnReason = "start" | "answer" | "timeout" | "cancel";

/** A message of the user, as a turn sees it. */
export interface ConversationMessage {
  /** The post's id (a thread) or the DM event's id. */
  id: string;
  /** The whole text, as written. */
  text: string;
  /** When it was written (ISO time), when the service said. */
  createdAt?: string;
}

/** One move of a conversation; see the module comment. */
export interface Turn<D = Record<string, unknown>, S = Record<string, unknown>> {
  /** What the turn runs on. */
  readonly reason: TurnReason;
  /** The step the conversation waited in (undefined at the start). */
  readonly step: string | undefined;
  /** The user's message (absent for a timeout). */
  readonly message: ConversationMessage | undefined;
  /** The message's text without the @mentions it starts with, trimmed ("" for a timeout). */
  readonly text: string;
  /** Who the conversation is with. */
  readonly user: User;
  readonly channel: ChannelKind;
  /** How many answers this step got before this one (0 for its first answer): to word a retry. */
  readonly attempt: number;
  /** The conversation's own data, kept while it is open (change it in place). */
  readonly data: D;
  /** The user's session of this plugin, kept after the conversation ends (change it in place). */
  readonly session: S;
  /** A logger naming the bot, the plugin and the conversation. */
  readonly log: Logger;
  /** Says something: every text of a turn goes out as one message, in order, once the turn is over. */
  say(text: string): void;
  /**
   * Waits for the user's next message in `step` (that step's handler gets it). Without a wait,
   * the conversation ends after this turn. `timeoutMs` replaces the conversation's `timeoutMs`
   * for this wait (0: no timeout); `say` is said first, as {@link say}.
   */
  wait(step: string, options?: { timeoutMs?: number; say?: string }): void;
  /** Ends the conversation after this turn (what a turn without {@link wait} does too). */
  end(): void;
}

/** A turn's code: it may be async (to look something up), and decides before its message leaves. */
export type TurnHandler<D, S> = (turn: Turn<D, S>) => void | Promise<void>;

/** A conversation, as a plugin defines it with `bot.conversation(name, definition)`. */
export interface ConversationDefinition<D = Record<string, unknown>, S = Record<string, unknown>> {
  /** The first turn, when `start()` opens the conversation: usually says a question and waits in a step. */
  start: TurnHandler<D, S>;
  /** Each step's handler of the user's answer, by step name. */
  steps: Record<string, TurnHandler<D, S>>;
  /** How long each wait lasts before {@link timeout} runs, in ms (default 10 minutes; 0: no timeout). */
  timeoutMs?: number;
  /** When a wait's time is up; the conversation ends after it unless it waits again (default: ends silently). */
  timeout?: TurnHandler<D, S>;
  /** Messages that end the conversation when they are one of these words (any case, ignoring the leading @mentions). */
  cancel?: readonly string[];
  /** What to do when the user cancels, before the conversation ends (default: end silently). */
  cancelled?: TurnHandler<D, S>;
  /** The conversation's data at its start (default `{}`). */
  data?: () => D;
}

/** An open conversation, as `bed.conversation(bot, user)` and `bot status` show it. */
export interface ConversationState {
  /** The conversation's id (stable for its whole life). */
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
  data: unknown;
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

/** What `bot.conversation()` gives a plugin. */
export interface Conversation {
  readonly name: string;
  /**
   * Opens the conversation with the event's user, where the event happened: a mention starts
   * it in that thread (questions are replies there), a DM in that DM conversation. Runs the
   * first turn and resolves once its message was handled. Not started when the user has a
   * conversation open in that channel already (one per bot, user and channel).
   */
  start(ctx: object): Promise<StartResult>;
  /** The user's open conversation of this plugin in a channel, if any. */
  state(userId: string, channel: ChannelKind): ConversationState | undefined;
}
