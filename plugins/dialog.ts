/**
 * `dialog`: a dialog written in the bot file, for bots without code. A mention (or a
 * reply to the bot, or a DM) containing one of the `start` words opens it; its questions go
 * where it started (replies in that thread, or DMs), and the user's answers there move it on.
 *
 * ```yaml
 * plugins:
 *   dialog:
 *     start: [quiz, start]          # a mention or a DM containing one of these words starts it
 *     timeout: 10m                  # no answer in time: say timeout_text and end
 *     timeout_text: "No answer, so I stopped. Say quiz to start again."
 *     cancel: [stop, cancel]
 *     steps:
 *       - ask: "What's your name?"
 *         save: name
 *       - ask: "Hi {session.name}! Favourite colour: red, green or blue?"
 *         expect: [red, green, blue]          # anything else: say retry and ask again
 *         retry: "Please answer red, green or blue."
 *         save: colour
 *       - say: "Thanks {session.name}, {session.colour} it is. Bye!"
 * ```
 *
 * - `ask` says a question and waits for the user's answer; `say` just says (a turn's texts go
 *   out as one message, so `say` after an answer and the next `ask` are one reply).
 * - `expect`: the answers taken (any case, ignoring the @mentions a reply starts with and a
 *   final `.`, `!` or `?`); anything else gets `retry` (default: "Please answer A, B or C.")
 *   and the question again. `save: NAME` keeps the answer in the user's session (the word of
 *   `expect` it matched, as written here), for `{session.NAME}` in later texts.
 * - Placeholders: `{session.NAME}` (a `save` of an earlier step), `{user.username}`,
 *   `{user.name}`.
 * - `timeout`: how long each question waits (default 10m; `0s`: for ever); then
 *   `timeout_text`, if given, and the dialog ends. `cancel`: words that end it at once
 *   (`cancel_text`, if given, is said).
 *
 * What the plugin does not need to do, because the dialog engine and the action layer
 * do it: keep one dialog per user and place, take each user's messages in order, ask no
 * question twice and skip none across a crash, answer within `reply_cooldown` inside the
 * dialog, and vary a text the service would refuse as a duplicate (each reply in a
 * thread starts with `@user`; the same user asked the same question within 24 hours gets it
 * with a counter, `(2)`).
 */
import {
  DURATION_HINT,
  definePlugin,
  parseDuration,
  type DialogDefinition,
  type DmContext,
  type MentionContext,
  type ReplyContext,
  type Turn,
} from "postbot";
import { z } from "zod";
import { placeholdersOf, render } from "./lib/template.ts";

/** A session field name: what `save` names and `{session.NAME}` reads. */
const SAVE_NAME = /^[a-z][a-z0-9_]*$/;

const words = (what: string) =>
  z
    .array(z.string().trim().min(1, { error: "must not be empty" }), {
      error: `expected a list of words (${what})`,
    })
    .min(1, { error: `needs at least one word (${what})` });

const text = (what: string) =>
  z
    .string({ error: (iss) => (iss.input === undefined ? `is required; give ${what}` : `expected ${what} (text)`) })
    .min(1, { error: `must not be empty; give ${what}` });

/** The message of a key a step does not take. */
const unknownKeys = (step: string, takes: string) => (iss: { code: string; keys?: string[] }) =>
  iss.code === "unrecognized_keys" && iss.keys
    ? `${iss.keys.map((k) => `"${k}"`).join(", ")} ${iss.keys.length === 1 ? "is" : "are"} not part of ${step} step, which takes ${takes}`
    : undefined;

const askStep = z
  .strictObject(
    {
      ask: text("the question"),
      expect: words("the answers taken").optional(),
      retry: text("what to say when the answer is not one of expect").optional(),
      save: z
        .string({ error: "expected a name (lower-case letters, digits and _)" })
        .regex(SAVE_NAME, { error: "must be a name: lower-case letters, digits and _, starting with a letter" })
        .optional(),
    },
    { error: unknownKeys("an ask", "ask, expect, retry and save") },
  )
  .meta({ description: "A question: waits for the user's answer" });

const sayStep = z
  .strictObject({ say: text("what to say") }, { error: unknownKeys("a say", "only say") })
  .meta({ description: "Says a text and goes on" });

const duration = z
  .string({ error: `expected a duration (${DURATION_HINT})` })
  .refine((v) => parseDuration(v) !== undefined, { error: `is not a duration; ${DURATION_HINT}` })
  .transform((v) => parseDuration(v)!);

/** The options of `dialog` (exported so a bot's own tests can build on them). */
export const dialogOptions = z
  .strictObject(
    {
      start: words("a mention or a DM containing one of them starts the dialog"),
      steps: z
        .array(
          z.union([askStep, sayStep], {
            error: (iss) =>
              typeof iss.input === "object" && iss.input !== null
                ? "a step is either {ask: ...} (with expect, retry, save) or {say: ...}"
                : "expected a step: {ask: ...} or {say: ...}",
          }),
          { error: "expected a list of steps" },
        )
        .min(1, { error: "needs at least one step" }),
      timeout: duration.default(10 * 60_000).meta({ description: `How long each question waits (${DURATION_HINT})` }),
      timeout_text: text("what to say when a question's time is up").optional(),
      cancel: words("messages that end the dialog").optional(),
      cancel_text: text("what to say when the user cancels").optional(),
    },
    {
      error: (iss) =>
        iss.code === "unrecognized_keys"
          ? `unknown option ${iss.keys.map((k) => `"${k}"`).join(", ")}; dialog takes start, steps, timeout, timeout_text, cancel and cancel_text`
          : undefined,
    },
  )
  .superRefine((options, ctx) => {
    const saved = new Set<string>();
    options.steps.forEach((step, i) => {
      const said = "ask" in step ? step.ask : step.say;
      const texts: Array<[string, string]> = [["ask" in step ? "ask" : "say", said]];
      if ("ask" in step && step.retry !== undefined) texts.push(["retry", step.retry]);
      for (const [field, value] of texts) checkPlaceholders(value, saved, ["steps", i, field], ctx);
      if ("ask" in step) {
        if (step.retry !== undefined && step.expect === undefined)
          ctx.addIssue({
            code: "custom",
            path: ["steps", i, "retry"],
            input: step.retry,
            message: "is said when an answer is not one of expect; give expect too, or remove retry",
          });
        if (step.save !== undefined) saved.add(step.save);
      }
    });
    for (const field of ["timeout_text", "cancel_text"] as const) {
      const value = options[field];
      if (value !== undefined) checkPlaceholders(value, saved, [field], ctx);
    }
    if (!options.steps.some((s) => "ask" in s))
      ctx.addIssue({
        code: "custom",
        path: ["steps"],
        input: options.steps,
        message: "has no ask: a dialog needs at least one question",
      });
  });

/** Every placeholder of a text is a user field or a session field saved by an earlier step. */
function checkPlaceholders(
  value: string,
  saved: ReadonlySet<string>,
  path: Array<string | number>,
  ctx: z.RefinementCtx,
) {
  for (const name of placeholdersOf(value)) {
    const field = name.startsWith("session.") ? name.slice("session.".length) : undefined;
    if (name === "user.username" || name === "user.name" || (field !== undefined && saved.has(field))) continue;
    ctx.addIssue({
      code: "custom",
      path,
      input: value,
      message:
        field !== undefined
          ? `{${name}} is not saved by an earlier step; add save: ${field} to a step before this one`
          : `unknown placeholder {${name}}; the placeholders here are {user.username}, {user.name} and {session.NAME} of an earlier step's save`,
    });
  }
}

type Options = z.output<typeof dialogOptions>;
type Session = Record<string, string>;

/** An answer as compared with `expect`: any case, without a final `.`, `!` or `?`. */
const normal = (answer: string) =>
  answer
    .trim()
    .replace(/[.!?]+$/, "")
    .trim()
    .toLowerCase();

/** Whether a message contains one of the words (whole words, any case). */
const containsWord = (message: string, words: readonly string[]) => {
  const lower = message.toLowerCase();
  return words.some((w) =>
    new RegExp(`(^|[^\\p{L}\\p{N}_])${escape(w.toLowerCase())}($|[^\\p{L}\\p{N}_])`, "u").test(lower),
  );
};
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** The dialog the options describe: steps named by their place in the list, 1 first. */
export function dialogDefinition(options: Options): DialogDefinition<Session> {
  const fill = (turn: Turn<Session>, template: string) =>
    render(template, {
      "user.username": turn.user.username,
      "user.name": turn.user.name,
      ...Object.fromEntries(Object.entries(turn.session).map(([k, v]) => [`session.${k}`, String(v)])),
    });
  /** Says the steps from `from` on, up to and including the next question (waiting for it), or to the end. */
  const enter = (turn: Turn<Session>, from: number) => {
    for (let i = from; i < options.steps.length; i++) {
      const step = options.steps[i]!;
      if ("say" in step) {
        turn.say(fill(turn, step.say));
        continue;
      }
      turn.say(fill(turn, step.ask));
      return turn.wait(String(i + 1));
    }
    turn.end();
  };
  const steps: DialogDefinition<Session>["steps"] = {};
  options.steps.forEach((step, i) => {
    if (!("ask" in step)) return;
    steps[String(i + 1)] = (turn) => {
      const answer = turn.text;
      const match = step.expect?.find((w) => normal(w) === normal(answer));
      if (step.expect && match === undefined) {
        turn.say(fill(turn, step.retry ?? `Please answer ${orList(step.expect)}.`));
        turn.say(fill(turn, step.ask));
        return turn.wait(String(i + 1));
      }
      if (step.save !== undefined) turn.session[step.save] = match ?? answer;
      enter(turn, i + 1);
    };
  });
  return {
    start: (turn) => enter(turn, 0),
    steps,
    timeoutMs: options.timeout,
    timeout(turn) {
      if (options.timeout_text !== undefined) turn.say(fill(turn, options.timeout_text));
    },
    ...(options.cancel ? { cancel: options.cancel } : {}),
    cancelled(turn) {
      if (options.cancel_text !== undefined) turn.say(fill(turn, options.cancel_text));
    },
  };
}

/** `red, green or blue`. */
const orList = (items: readonly string[]) =>
  items.length === 1 ? items[0]! : `${items.slice(0, -1).join(", ")} or ${items.at(-1)}`;

/** A post's text without the @mentions it starts with. */
const bodyOf = (text: string) => text.replace(/^(?:\s*@\w+)+\s*/, "");

export default definePlugin({
  name: "dialog",
  options: dialogOptions,
  // What `save` keeps: the user's answers, by name.
  session: z.record(z.string(), z.string()),
  setup(bot, options) {
    const dialog = bot.dialog("dialog", dialogDefinition(options));
    const maybeStart = async (ctx: MentionContext | ReplyContext | DmContext) => {
      const text = "message" in ctx ? ctx.message.text : bodyOf(ctx.post.text);
      if (containsWord(text, options.start)) await dialog.start(ctx);
    };
    bot.on("mention", maybeStart);
    bot.on("reply", maybeStart);
    // A DM that is no answer to an open dialog (those never reach a handler) may start one.
    bot.on("dm", maybeStart);
  },
});
