/**
 * What `bot say --wait` waits for, and for how long. `--wait` takes an optional number, so
 * `bot say --as bob --wait "@greeter hello"` must read the quoted words as the text, not as
 * a number of seconds; and `--wait` alone must wait as long as the bots that will answer need
 * (a bot on the basic plan sees a mention only at its next poll, 90 s later), not a fixed
 * minute that gives up before the answer comes.
 */
import { UserError } from "../errors.ts";
import { humanInterval } from "../hosting/capacity.ts";
import { usernameOf, type DemoAccess, type DemoAnswerer } from "./demo-access.ts";

/** The longest `--wait SECONDS` may ask for. */
export const MAX_WAIT_S = 600;
/** How long `--wait` alone waits when the demo does not say how soon its bots answer (an older demo). */
export const FALLBACK_WAIT_S = 60;
/** What `--wait` alone adds to a bot's poll interval: handling the post, sending the answer, finding it. */
export const WAIT_MARGIN_MS = 30_000;
/** How soon a mention comes through the stream. */
const STREAM_DELIVERY_MS = 5_000;

/** The text to post and how `--wait` was given: `undefined` (not given), `true` (alone) or seconds. */
export interface SayInput {
  text: string;
  wait: true | number | undefined;
}

/**
 * Reads `bot say`'s text and `--wait`: a `--wait` value that is not a number is the text
 * (`--wait "@greeter hello"`), since commander gives an optional value whatever follows it.
 */
export function sayInput(text: string | undefined, wait: string | true | undefined): SayInput {
  let value = wait;
  let words = text;
  if (typeof value === "string" && !/^\d+$/.test(value.trim()) && words === undefined) {
    words = value;
    value = true;
  }
  if (words === undefined)
    throw new UserError("missing the text to post: bot say --as USER [--wait] TEXT", { exitCode: 2 });
  if (value === undefined || value === true) return { text: words, wait: value };
  const seconds = Number(value);
  if (!(Number.isInteger(seconds) && seconds >= 1 && seconds <= MAX_WAIT_S)) {
    throw new UserError(
      `--wait ${value}: expected whole seconds from 1 to ${MAX_WAIT_S} (or --wait alone to wait as long as the bots need)`,
      { exitCode: 2 },
    );
  }
  return { text: words, wait: seconds };
}

/** `bot say --dm`'s bot, text and `--wait`. */
export interface SayDmInput extends SayInput {
  bot: string;
}

/**
 * Reads `bot say --dm`'s two words, the bot and the text, and `--wait`: a `--wait` value that
 * is not a number is the first of them (`--wait friendly "hi"`), as {@link sayInput} reads it.
 */
export function sayDmInput(first: string | undefined, second: string | undefined, wait: string | true | undefined) {
  const stolen = typeof wait === "string" && !/^\d+$/.test(wait.trim());
  const words = [...(stolen ? [wait] : []), first, second].filter((w): w is string => w !== undefined);
  if (words.length !== 2) {
    throw new UserError(
      `${words.length < 2 ? "missing" : "too many words:"} the bot and the text of the message: bot say --dm --as USER [--wait] BOT TEXT (quote the text)`,
      { exitCode: 2 },
    );
  }
  const [bot, text] = words as [string, string];
  return { bot: bot.replace(/^@/, ""), ...sayInput(text, stolen ? true : wait) } satisfies SayDmInput;
}

/** A bot expected to answer the post, why, and how soon it can. */
export interface Awaited {
  bot: string;
  /** Its account's username, what a post mentions (a connected account's differs from the bot's name). */
  username: string;
  event: "mention" | "reply";
  answerer: DemoAnswerer;
}

/** The usernames a text mentions (`@greeter` → `greeter`), lower-cased. */
const mentioned = (text: string) => new Set([...text.matchAll(/@(\w{1,15})/g)].map((m) => m[1]!.toLowerCase()));

/**
 * The demo's bots that will answer a post: those whose account it mentions (by the account's
 * username: `@maya_codes` is the bot `greeter-for-maya-codes`) that answer mentions, and
 * with `--reply-to`, the bot whose post it answers when that bot answers replies.
 */
export function awaitedBots(access: DemoAccess, text: string, repliedToBot?: string): Awaited[] {
  const names = mentioned(text);
  const out: Awaited[] = [];
  for (const [bot, answerer] of Object.entries(access.answers ?? {})) {
    const username = usernameOf(access, bot);
    const event = bot === repliedToBot ? "reply" : names.has(username.toLowerCase()) ? "mention" : undefined;
    if (event && answerer.events.includes(event)) out.push({ bot, username, event, answerer });
  }
  return out;
}

/** How long a bot may take to see a post: a poll interval, or a moment on the stream. */
export const deliveryMs = (a: DemoAnswerer) => (a.via === "stream" ? STREAM_DELIVERY_MS : a.every_ms);

/** How long `--wait` alone waits: the slowest awaited bot's delivery plus {@link WAIT_MARGIN_MS}. */
export function defaultWaitMs(awaited: readonly Awaited[]): number {
  if (awaited.length === 0) return FALLBACK_WAIT_S * 1000;
  return Math.max(...awaited.map((a) => deliveryMs(a.answerer))) + WAIT_MARGIN_MS;
}

/** `90 s`, `2 min 30 s`: a delay as people read it, as the log and `bot status` say it. */
export const seconds = humanInterval;

/** `@greeter (mentions polled every 90 s)`: who is awaited and how soon it can see the post. */
export function describeAwaited(a: Awaited): string {
  const how =
    a.answerer.via === "stream"
      ? "through the stream, within seconds"
      : `at its next mentions poll, every ${seconds(a.answerer.every_ms)}`;
  const named = a.username === a.bot ? `@${a.bot}` : `@${a.username} (bot ${a.bot})`;
  return `${named} (${a.event === "reply" ? "a reply to its post" : "a mention"}, seen ${how})`;
}
