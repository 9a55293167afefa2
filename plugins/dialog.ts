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
 * - Edited under open dialogs (steps reordered, removed), the file changes only the dialogs
 *   started afterwards: an open one finishes on the steps it started with (the plugin gives
 *   its options to the engine as the dialog's data, which keeps them while a dialog is on
 *   them). A placeholder with no value is never sent (the turn's message is dropped, the
 *   dialog ends, and the log names the field).
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
import { placeholdersOf, render, UnfilledPlaceholderError } from "./lib/template.ts";

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

/** A text of the bot file that could not be filled: which field it is, and what it lacked. */
class UnfilledText extends Error {
  constructor(
    readonly field: string,
    readonly unfilled: UnfilledPlaceholderError,
  ) {
    super(unfilled.message);
  }
}

/** What a turn says and where it waits next (undefined: the dialog ends), decided before any of it is said. */
interface Said {
  texts: string[];
  wait?: string;
}

/** Fills a text of the bot file (`field`: where it is, for the log). */
function fill(turn: Turn<Session>, field: string, template: string): string {
  try {
    return render(template, {
      "user.username": turn.user.username,
      "user.name": turn.user.name,
      ...Object.fromEntries(Object.entries(turn.session).map(([k, v]) => [`session.${k}`, String(v)])),
    });
  } catch (err) {
    throw err instanceof UnfilledPlaceholderError ? new UnfilledText(field, err) : err;
  }
}

/**
 * A turn that says what `decide` made of it, all or nothing: a text with a placeholder that
 * has no value (an answer gone from the user's session: a `session.ttl` shorter than the
 * dialog, a session another plugin changed) is never sent; the log names the field and the
 * placeholder, and the dialog ends, so the user can start it again.
 */
const speaking =
  (decide: (turn: Turn<Session>) => Said) =>
  (turn: Turn<Session>): void => {
    let said: Said;
    try {
      said = decide(turn);
    } catch (err) {
      if (!(err instanceof UnfilledText)) throw err;
      const names = err.unfilled.missing.map((n) => `{${n}}`).join(", ");
      turn.log.warn(
        { field: `plugins.dialog.${err.field}`, missing: err.unfilled.missing },
        `plugins.dialog.${err.field} ${JSON.stringify(err.unfilled.template)} needs ${names}, which @${turn.user.username}'s session does not have (a session.ttl shorter than the dialog, or a session changed elsewhere), so its message was not sent and the dialog ended; the user can start it again`,
      );
      return turn.end();
    }
    for (const text of said.texts) turn.say(text);
    if (said.wait !== undefined) turn.wait(said.wait);
    else turn.end();
  };

/**
 * The dialog the options describe: steps named by their place in the list, 1 first. It
 * gives the engine its options as its data (`versioned`), so a dialog open when the bot file
 * changes finishes on the steps it started with (src/plugins/dialogs/versions.ts).
 */
export function dialogDefinition(options: Options): DialogDefinition<Session> {
  /** The texts of the steps from `from` on, up to and including the next question (waiting for it), or to the end. */
  const enter = (turn: Turn<Session>, from: number, said: Said): Said => {
    for (let i = from; i < options.steps.length; i++) {
      const step = options.steps[i]!;
      if ("say" in step) {
        said.texts.push(fill(turn, `steps[${i}].say`, step.say));
        continue;
      }
      said.texts.push(fill(turn, `steps[${i}].ask`, step.ask));
      return { ...said, wait: String(i + 1) };
    }
    return said;
  };
  const steps: DialogDefinition<Session>["steps"] = {};
  options.steps.forEach((step, i) => {
    if (!("ask" in step)) return;
    steps[String(i + 1)] = speaking((turn) => {
      const answer = turn.text;
      const match = step.expect?.find((w) => normal(w) === normal(answer));
      if (step.expect && match === undefined)
        return {
          texts: [
            fill(turn, `steps[${i}].retry`, step.retry ?? `Please answer ${orList(step.expect)}.`),
            fill(turn, `steps[${i}].ask`, step.ask),
          ],
          wait: String(i + 1),
        };
      if (step.save !== undefined) turn.session[step.save] = match ?? answer;
      return enter(turn, i + 1, { texts: [] });
    });
  });
  /** A text said as the dialog ends (the timeout's, the cancel's), if the bot file gives one. */
  const closing = (field: "timeout_text" | "cancel_text") =>
    speaking((turn) => {
      const text = options[field];
      return { texts: text === undefined ? [] : [fill(turn, field, text)] };
    });
  return {
    start: speaking((turn) => enter(turn, 0, { texts: [] })),
    steps,
    timeoutMs: options.timeout,
    timeout: closing("timeout_text"),
    ...(options.cancel ? { cancel: options.cancel } : {}),
    cancelled: closing("cancel_text"),
    // Its options are its data: JSON as parsed (the timeout in ms), made again as they are.
    versioned: {
      spec: options,
      make(spec) {
        if (!Array.isArray((spec as Partial<Options> | null)?.steps))
          throw new Error("its data are not this plugin's options");
        return dialogDefinition(spec as Options);
      },
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
