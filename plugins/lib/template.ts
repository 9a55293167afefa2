/**
 * Text templates for the example plugins: `"Hello @{author.username}!"`.
 *
 * A placeholder is a name in braces. Each plugin says which names it fills, and the option
 * schema built here refuses any other when the bot file is loaded: a typo such as
 * `{auhtor.username}` is a `bot validate` problem at its YAML position, not a reply that
 * goes out with braces in it. Braces around anything that is not a name (`{ }`, `{:)}`)
 * are plain text.
 *
 * This folder has no `index.ts`, so postbot does not take it for a plugin.
 *
 * @example
 * ```ts
 * const options = z.strictObject({ text: templates(["author.username"], "the reply") });
 * // in a handler:
 * await ctx.reply(render(nextText(bot.store, "reply.next", options.text), { "author.username": ctx.author.username }));
 * ```
 */
import type { BotStore } from "postbot";
import { z } from "zod";

/** `{name}` or `{name.field}`: lower-case letters, digits and `_`, dot-separated. */
const PLACEHOLDER = /\{([a-z][a-z0-9_]*(?:\.[a-z][a-z0-9_]*)*)\}/g;

/** The placeholder names a template uses, in order of appearance (repeats kept once). */
export function placeholdersOf(template: string): string[] {
  return [...new Set(Array.from(template.matchAll(PLACEHOLDER), (m) => m[1]!))];
}

/**
 * A template with placeholders that have no value where it was filled: it is not sent, for a
 * text with `{session.colour}` in it, or with a gap where a word should be, is worse than none.
 */
export class UnfilledPlaceholderError extends Error {
  override name = "UnfilledPlaceholderError";
  constructor(
    readonly template: string,
    /** The placeholders without a value, by name. */
    readonly missing: readonly string[],
  ) {
    super(
      `the text ${JSON.stringify(template)} needs ${missing.map((n) => `{${n}}`).join(", ")}, which ${missing.length === 1 ? "has" : "have"} no value here; it was not sent`,
    );
  }
}

/**
 * Fills a template. Every placeholder was checked against the plugin's names when the
 * options were parsed, but a value may still be missing when the text is filled (a dialog's
 * answer no longer in the user's session): then nothing is filled and it throws, so a
 * placeholder is never sent as written.
 *
 * @throws {UnfilledPlaceholderError} naming the placeholders without a value.
 */
export function render(template: string, values: Readonly<Record<string, string | undefined>>): string {
  const missing = placeholdersOf(template).filter((name) => !Object.hasOwn(values, name) || values[name] === undefined);
  if (missing.length > 0) throw new UnfilledPlaceholderError(template, missing);
  return template.replace(PLACEHOLDER, (_whole, name: string) => values[name]!);
}

const list = (names: readonly string[]) => (names.length ? names.map((n) => `{${n}}`).join(", ") : "none");

/**
 * The option schema of one template (a non-empty text) whose placeholders must be among
 * `names`. `what` says what the text is for, in messages and in the JSON Schema.
 */
export function template(names: readonly string[], what: string) {
  return z
    .string({
      error: (iss) =>
        iss.input === undefined
          ? `is required; give ${what}`
          : `expected ${what} (text), got ${JSON.stringify(iss.input)}`,
    })
    .min(1, { error: `must not be empty; give ${what}` })
    .superRefine((text, ctx) => {
      for (const name of placeholdersOf(text)) {
        if (!names.includes(name))
          ctx.addIssue({
            code: "custom",
            input: text,
            message: `unknown placeholder {${name}}; the placeholders here are ${list(names)}`,
          });
      }
    })
    .meta({ description: `${what}; placeholders: ${list(names)}` });
}

/**
 * The option schema of a text or a list of texts (each a {@link template}); the output is
 * always a non-empty list. Several texts let a bot vary what it says, which matters because
 * the service refuses the same text from one account twice within 24 hours.
 */
export function templates(names: readonly string[], what: string) {
  const one = template(names, what);
  return z
    .union([one, z.array(one).min(1, { error: `needs at least one text; give ${what}` })], {
      error: (iss) =>
        iss.input === undefined
          ? `is required; give ${what} (a text or a list of texts)`
          : `expected ${what}: a text or a list of texts`,
    })
    .transform((value) => (Array.isArray(value) ? value : [value]))
    .meta({ description: `${what}, or a list of them used in turn; placeholders: ${list(names)}` });
}

/**
 * The next text of a list, in turn, round and round. The place in the list is kept in the
 * bot's store under `key`, so a restart goes on with the following text instead of
 * repeating the first (which the service might refuse as a duplicate).
 */
export function nextText(store: BotStore, key: string, texts: readonly string[]): string {
  if (texts.length === 1) return texts[0]!;
  const n = store.get<number>(key) ?? 0;
  store.set(key, n + 1);
  return texts[n % texts.length]!;
}
