/**
 * How the chat-completions stand-in counts tokens. A real model counts with its own
 * tokenizer; the stand-in needs only a rule that is simple, documented and stable, so a test
 * or a budget can predict it: a **token is a run of letters, marks and digits, or any other
 * single character that is not white space**. `"Hello, world!"` is 4 tokens.
 *
 * A prompt counts the tokens of each message's text plus {@link TOKENS_PER_MESSAGE} for its
 * role and framing, plus {@link TOKENS_PER_ANSWER} for the answer's priming (the overhead
 * OpenAI documents for its chat format, so counts land near a real model's).
 */

/** One token: a word-ish run, or one other visible character. */
const TOKEN = /[\p{L}\p{M}\p{N}]+|[^\s\p{L}\p{M}\p{N}]/gu;

export const TOKENS_PER_MESSAGE = 3;
export const TOKENS_PER_ANSWER = 3;

/** The number of tokens in a text. */
export function countTokens(text: string): number {
  let n = 0;
  for (const _ of text.matchAll(TOKEN)) n += 1;
  return n;
}

/** The tokens of a whole prompt: each message's text and framing, and the answer's priming. */
export function promptTokens(texts: readonly string[]): number {
  return texts.reduce((sum, t) => sum + countTokens(t) + TOKENS_PER_MESSAGE, TOKENS_PER_ANSWER);
}

/**
 * The text cut after its `max`-th token (white space after it dropped), and whether it was
 * cut: what a model that hit `max_tokens` answers, with `finish_reason: "length"`.
 */
export function cutToTokens(text: string, max: number): { text: string; cut: boolean } {
  let n = 0;
  for (const m of text.matchAll(TOKEN)) {
    n += 1;
    if (n === max) {
      const end = m.index + m[0].length;
      return { text: text.slice(0, end), cut: end < text.trimEnd().length };
    }
  }
  return { text, cut: false };
}
