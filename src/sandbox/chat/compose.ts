/**
 * The text of the chat-completions stand-in: no model, a deterministic sentence built from
 * the prompt, so the demo's `llm-reply` bot answers with nothing but Node and a test can
 * predict every word. It starts with {@link STAND_IN_LABEL} so nobody mistakes it for a
 * model's answer, picks a friendly opener from a fixed list by a hash of the last user
 * message, and echoes a few of that message's words (never a mention, hashtag or link, so the
 * stand-in does not make a bot address or advertise anyone).
 *
 * The sandbox numbers its answers (`(sandbox stand-in, reply 12)`), so each post gets a
 * text of its own: the crowd says the same few things over and over, and the service refuses
 * a bot the same text twice within 24 hours, which left the demo's helpdesk refused after a
 * few minutes.
 */
import { createHash } from "node:crypto";

/** How every stand-in answer starts. */
export const STAND_IN_LABEL = "(sandbox stand-in)";

/** The openers, picked by a hash of the last user message. */
export const OPENERS = [
  "Thanks for writing!",
  "Good question.",
  "Happy to help.",
  "Glad you asked.",
  "Nice to hear from you.",
  "Let me think about that.",
  "That sounds interesting.",
  "Thanks for reaching out.",
] as const;

/** At most this many of the user's words are echoed, each at most {@link ECHO_WORD_CHARS} long. */
export const ECHO_WORDS = 4;
export const ECHO_WORD_CHARS = 24;

/** Words worth echoing: letters and digits, at least 3 long; no mention, hashtag or link. */
function echoWords(text: string): string[] {
  const out: string[] = [];
  for (const raw of text.split(/\s+/)) {
    if (/^[@#＠＃]|:\/\/|^www\./i.test(raw)) continue;
    const word = raw.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, "");
    if ([...word].length < 3 || !/^[\p{L}\p{M}\p{N}'’-]+$/u.test(word)) continue;
    out.push([...word].slice(0, ECHO_WORD_CHARS).join(""));
    if (out.length === ECHO_WORDS) break;
  }
  return out;
}

/**
 * The stand-in's answer to a conversation whose last user message is `lastUser` (may be
 * empty); `answer`, the sandbox's number for it, goes in the label (`(sandbox stand-in,
 * reply 12)`), first, where a cut to `max_tokens` leaves it. (Worded so: "answer 12" there
 * made the moderation classifier's model take most of the texts for abuse.)
 */
export function standInText(lastUser: string, answer?: number): string {
  const hash = createHash("sha256").update(lastUser).digest();
  const opener = OPENERS[hash.readUInt32BE(0) % OPENERS.length]!;
  const words = echoWords(lastUser);
  const echo = words.length > 0 ? ` You wrote about "${words.join(" ")}".` : "";
  const label = answer === undefined ? STAND_IN_LABEL : `${STAND_IN_LABEL.slice(0, -1)}, reply ${answer})`;
  return `${label} ${opener}${echo} A language model would answer here.`;
}
