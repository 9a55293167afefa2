/**
 * A reply written by a language model, as a `WriteText` the action layer calls when the reply
 * goes (once per reply: the layer records the text before it is sent, see
 * src/actions/steps/text-writer.ts). Writing it is:
 *
 * 1. wait for the bot's model budget (tokens and requests, ./budget.ts) on the clock;
 * 2. ask the model (./chat.ts); a failure that can pass (no answer in time, unreachable, a 5xx,
 *    a 429, an answer that is not the format) is tried again with exponential back-off, each
 *    try waiting for the budget again (a 429 pauses it for the server's `retry-after`), up
 *    to {@link WRITER_RETRY}`.attempts`; one that cannot (a bad key, an unknown model) ends it;
 * 3. shape the text for the service (./shape.ts: 280 weighted characters, no other mentions);
 * 4. check it with the moderation classifier: a text it finds abusive is refused
 *    (`TextRefused`), logged with the rule that fired, and counted, never posted;
 * 5. then, where the bot file configures a moderation judge (`moderate`'s `judge:`, handed
 *    over through ./judge-slot.ts), ask it too, as the writer's check ({@link judgeCheck},
 *    given as `WriteText.check`):
 *    the action layer runs it once the text is recorded, so that a crash while the judge is
 *    asked (up to its timeout) costs no second request to the model, and runs it again on the
 *    recorded text after a restart. A text it flags is refused the same way, with the
 *    categories it named. A judge that fails or does not answer within its timeout gives no
 *    opinion, and, as for the replies it judges for `moderate`, the classifier's verdict
 *    stands: the text is posted, and the log says the judge gave none.
 *
 * Each request first takes one of its model server's request slots (./request-slots.ts:
 * `parallel` per server and process) and keeps it until the action layer says its text is
 * recorded (`WriteText`'s `recorded`), so that a crash never finds more than `parallel` of a
 * server's answers unrecorded; a failed try gives its slot back before its back-off. Once it has
 * the slot (the waits for the budget and for the slot are over), and before the request goes,
 * it looks again: a reply whose action's time-to-live passed meanwhile (`WriteText`'s
 * `expiresAt`) is not asked for (`TextExpired`: the action ends `dropped`, as one that waited
 * past it in the budget queue does), nor one whose bot stopped; either gives its slot back at
 * once, and the request its budget counted, so the model never writes a text that could only
 * be dropped.
 *
 * The request goes out, and its answer is worked on (steps 3 and 4), each in a turn of the event
 * loop of its own, taken in order with every other writer of the process (./turns.ts): a hundred
 * mentions asked, or answered, at once then hold back none of the bots' other actions (a like
 * that came meanwhile goes out between two of them, not after all of them).
 *
 * The person's words reach the model only as `user` messages (./prompt.ts): the system
 * message is the bot file's alone.
 */
import { TextDeferred, TextExpired, TextRefused, type CheckText, type WriteText } from "../actions/action.ts";
import type { Clock } from "../clock.ts";
import type { Logger } from "../log.ts";
import type { Classifier } from "../moderation/types.ts";
import type { ModelBudget } from "./budget.ts";
import type { TextJudge } from "./judge-slot.ts";
import {
  chatCompletion,
  chatEndpoint,
  ModelError,
  type ChatAnswer,
  type ChatMessage,
  type ChatTarget,
  type ModelFailure,
} from "./chat.ts";
import { MODEL_PARALLEL, modelSlots, type ReleaseSlot, type RequestSlots } from "./request-slots.ts";
import { shapeReply } from "./shape.ts";
import { modelTurns } from "./turns.ts";

/** What happened with the model, for `/metrics` (`postbot_llm_*`). */
export interface ModelObserver {
  /** One request to the model and how long it took (`outcome`: `ok` or the failure's reason). */
  request(seen: { bot: string; seconds: number; outcome: "ok" | ModelFailure }): void;
  /** An answer's tokens. */
  tokens(seen: { bot: string; prompt: number; completion: number }): void;
  /** A written text that was not posted: refused by a check, or nothing usable. */
  refused(seen: { bot: string; by: "classifier" | "judge" | "empty"; reason: string }): void;
}

/** Tries and back-off of a failed generation. */
export const WRITER_RETRY = { attempts: 4, firstDelayMs: 2_000, maxDelayMs: 60_000 };

/** Failures that a later try may not meet. */
const PASSING: ReadonlySet<ModelFailure> = new Set([
  "timeout",
  "unreachable",
  "rate-limited",
  "server-error",
  "busy",
  "bad-answer",
]);

export interface ReplyWriterOptions {
  bot: string;
  target: ChatTarget;
  maxTokens: number;
  clock: Clock;
  log: Logger;
  classifier: Classifier;
  budget?: ModelBudget | undefined;
  observe?: ModelObserver | undefined;
  retry?: Partial<typeof WRITER_RETRY>;
  /** How long one request may take (default `CHAT_TIMEOUT_MS`). */
  timeoutMs?: number;
  /**
   * The most requests in flight to this model server from the process (`llm-reply`'s
   * `parallel`; default {@link MODEL_PARALLEL}), each held until its answer is recorded: see
   * ./request-slots.ts.
   */
  parallel?: number | undefined;
}

/** One reply to write: the chat to send, and whom it answers (the one mention kept). */
export interface ReplyRequest {
  messages: readonly ChatMessage[];
  answered?: string | undefined;
}

/** The writer of one reply; see the module comment. */
export function replyWriter(o: ReplyWriterOptions, request: ReplyRequest): WriteText {
  const retry = { ...WRITER_RETRY, ...o.retry };
  const parallel = o.parallel ?? MODEL_PARALLEL;
  return async (signal, recorded, expiresAt, stopping) => {
    // The server's request slot (./request-slots.ts): held from before the request leaves until
    // the answer's text is durable (`recorded`), or given back once nothing will be recorded.
    let release: ReleaseSlot | undefined;
    try {
      const ask: Ask = { retry, parallel, signal, expiresAt, stopping, held: (slot) => (release = slot) };
      const answer = await answered(o, request, ask);
      // Answers that came back at once are shaped and checked one per turn, the bot's other work between.
      await modelTurns.next();
      const text = checkedText(o, request, answer);
      if (recorded) void recorded.then(release);
      else release?.();
      release = undefined;
      return text;
    } finally {
      release?.();
    }
  };
}

/** How one reply asks its model: the tries, the slots, and the signals that end the asking. */
interface Ask {
  retry: typeof WRITER_RETRY;
  parallel: number;
  signal: AbortSignal;
  expiresAt: number | undefined;
  stopping: AbortSignal | undefined;
  /** Told of the slot held now (undefined: none), so the writer can give it back. */
  held: (slot: ReleaseSlot | undefined) => void;
}

/**
 * The model's answer: asked once a budget and a slot allow, and asked again after a failure
 * that can pass, with back-off, up to `retry.attempts` tries.
 */
async function answered(o: ReplyWriterOptions, request: ReplyRequest, ask: Ask): Promise<ChatAnswer> {
  const { signal } = ask;
  for (let attempt = 1; ; attempt++) {
    const slot = await slotToAsk(o, ask.parallel, signal, ask.expiresAt, ask.stopping);
    ask.held(slot);
    const started = o.clock.now();
    try {
      const answer = await chatCompletion(
        o.target,
        { messages: request.messages, maxTokens: o.maxTokens },
        o.clock,
        signal,
        o.timeoutMs,
      );
      o.observe?.request({ bot: o.bot, seconds: (o.clock.now() - started) / 1000, outcome: "ok" });
      return answer;
    } catch (err) {
      // No slot held through a back-off: another reply's request may use it meanwhile.
      slot();
      ask.held(undefined);
      if (signal.aborted) throw err;
      const failure = err instanceof ModelError ? err : new ModelError("unreachable", String(err));
      o.observe?.request({ bot: o.bot, seconds: (o.clock.now() - started) / 1000, outcome: failure.reason });
      await backOff(o, ask, failure, attempt);
    }
  }
}

/** After a failed try: throws when no later try may do better, else waits before the next one. */
async function backOff(o: ReplyWriterOptions, ask: Ask, failure: ModelError, attempt: number): Promise<void> {
  const { retry } = ask;
  if (failure.reason === "rate-limited" && failure.retryAfterMs !== undefined) o.budget?.pause(failure.retryAfterMs);
  if (!PASSING.has(failure.reason) || attempt >= retry.attempts)
    throw new Error(`the model at ${o.target.url} ${failure.message}${attempt > 1 ? ` (after ${attempt} tries)` : ""}`);
  const backoff = Math.min(retry.maxDelayMs, retry.firstDelayMs * 2 ** (attempt - 1));
  const wait = Math.max(backoff, failure.retryAfterMs ?? 0);
  o.log.warn(
    { reason: failure.reason, attempt, retry_in_ms: wait },
    `the model ${failure.message}; asking again in ${Math.ceil(wait / 1000)} s (try ${attempt + 1} of ${retry.attempts})`,
  );
  await o.clock.sleep(wait, ask.signal);
}

/**
 * The answer's text as it will be posted: its tokens spent and counted, shaped for the service
 * (./shape.ts), and refused (`TextRefused`) when nothing usable is left or the moderation
 * classifier finds it abusive.
 */
function checkedText(o: ReplyWriterOptions, request: ReplyRequest, answer: ChatAnswer): string {
  o.budget?.spend(answer.usage.prompt + answer.usage.completion);
  o.observe?.tokens({ bot: o.bot, ...answer.usage });
  const cutShort = answer.finishReason === "length";
  if (cutShort)
    o.log.info(
      { max_tokens: o.maxTokens },
      `the model stopped at max_tokens (${o.maxTokens}); its unfinished last sentence is left out`,
    );
  const text = shapeReply(answer.text, { answered: request.answered, cutShort });
  if (!text) {
    const reason = "the model answered no text that could be posted";
    o.observe?.refused({ bot: o.bot, by: "empty", reason });
    throw new TextRefused(reason);
  }
  const verdict = o.classifier.classify(text);
  if (verdict.abusive) {
    const rule = verdict.rules[0]?.rule ?? "model:abuse";
    const reason = `the moderation classifier refused the model's text (rule ${rule}, score ${verdict.score.toFixed(2)}); not posted`;
    o.observe?.refused({ bot: o.bot, by: "classifier", reason });
    o.log.warn({ rule, score: verdict.score }, reason);
    throw new TextRefused(reason);
  }
  return text;
}

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * Waits for the bot's budget, then for a request slot of its model server, and returns the
 * slot once the request may go: not for a reply past its time-to-live (`expiresAt`) by then,
 * nor one whose bot stopped (the module comment); what it took is given back then. When the
 * process stops (`stopping`) during these waits, nothing was asked: {@link TextDeferred}.
 */
async function slotToAsk(
  o: ReplyWriterOptions,
  parallel: number,
  signal: AbortSignal,
  expiresAt: number | undefined,
  stopping: AbortSignal | undefined,
): Promise<ReleaseSlot> {
  // One controller for the waits, aborted by `signal` or `stopping`, its listeners removed
  // after: `AbortSignal.any` would leave a weak reference per request on `stopping`, which
  // lives as long as the process (Node 20; see ./chat.ts).
  const waits = stopping ? new AbortController() : undefined;
  const abort = () => waits?.abort(signal.aborted ? signal.reason : stopping?.reason);
  for (const source of stopping ? [signal, stopping] : [])
    if (source.aborted) abort();
    else source.addEventListener("abort", abort, { once: true });
  let unspend: (() => void) | undefined;
  let slots: RequestSlots;
  let slot: ReleaseSlot;
  try {
    unspend = await o.budget?.acquire(waits?.signal ?? signal);
    // Taken right away: a server's slots are kept only while one is held or waited for.
    slots = modelSlots(chatEndpoint(o.target.url), o.target.url);
    slot = await slots.acquire(parallel, waits?.signal ?? signal, o.bot);
  } catch (err) {
    unspend?.();
    if (signal.aborted || !stopping?.aborted) throw err;
    throw new TextDeferred(
      "the process stopped while it waited for its model's budget or request slot; the next start writes it",
    );
  } finally {
    signal.removeEventListener("abort", abort);
    stopping?.removeEventListener("abort", abort);
  }
  // The request goes out in a turn of its own (./turns.ts), as its answer is worked on.
  await modelTurns.next();
  if (!signal.aborted && (expiresAt === undefined || o.clock.now() < expiresAt)) return slot;
  slot();
  unspend?.();
  if (signal.aborted) throw signal.reason;
  throw new TextExpired(
    `waited past its time-to-live (${iso(expiresAt!)}) for the model at ${slots.server}; the model was not asked`,
  );
}

/**
 * The bot's judge as the check of a written text (step 5 of the module comment): asked once
 * the text is recorded, so a crash while it is asked costs no second request to the model, and
 * again after a restart until it answers. Refuses a text it flags; its failure leaves the
 * classifier's verdict standing.
 */
export function judgeCheck(o: Pick<ReplyWriterOptions, "bot" | "log" | "observe">, judge: TextJudge): CheckText {
  return (text) => judged(o, judge, text);
}

async function judged(
  o: Pick<ReplyWriterOptions, "bot" | "log" | "observe">,
  judge: TextJudge,
  text: string,
): Promise<void> {
  const result = await judge.opinion(text);
  if (!result.ok) {
    // The judge logs its outage once (src/moderation/judge/judge.ts); each text says it was not judged.
    o.log.info(
      { judge: judge.name, reason: result.error.reason },
      `judge ${judge.name} gave no opinion of the model's text (${result.error.reason}); the classifier's verdict stands`,
    );
    return;
  }
  if (!result.opinion.flagged) return;
  const categories = result.opinion.categories;
  const reason = `judge ${judge.name} refused the model's text (${categories.join(", ")}); not posted`;
  o.observe?.refused({ bot: o.bot, by: "judge", reason });
  o.log.warn({ judge: judge.name, categories }, reason);
  throw new TextRefused(reason);
}
