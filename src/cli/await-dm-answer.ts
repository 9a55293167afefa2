/**
 * `bot say --dm --wait`: after a demo user sends a bot a direct message, wait for the bot's
 * answer in their conversation and print it, whichever plugin of the bot sends it (a `reply`,
 * a dialog's next question, `llm-reply`...). It watches the conversation through the demo
 * sandbox's admin API (`GET /_sandbox/dm_events`), which reads none of the user's windows:
 * the service lets a user read a DM conversation 15 times per 15 minutes, and a user taking a
 * quiz by DM, step after step, spent them in a few waits and then saw nothing until the
 * deadline, while the bot had answered. Nothing being spent, it looks every second.
 */
import { UserError } from "../errors.ts";
import type { Clock } from "../clock.ts";
import { lookUntil } from "./await-replies.ts";
import type { DemoAccess } from "./demo-access.ts";
import { admin } from "./demo-users.ts";

/** How often the conversation is looked at (the admin API costs the user nothing). */
export const DM_LOOK_EVERY_MS = 1_000;

/** The most answers one wait prints (a bot that never stops talking still lets it end). */
const MAX_ANSWERS = 20;

/** A message of the bot's in the conversation. */
export interface DmAnswer {
  id: string;
  text: string;
}

/** What waiting saw: the bot's answers (none when none came in time), and when the user's message was sent. */
export interface DmWaited {
  answers: DmAnswer[];
  /** When the sandbox recorded the user's message (ms on the demo's clock), once seen. */
  sentAt?: number;
}

export interface AwaitDmAnswerOptions {
  /** The demo's sandbox and its admin token. */
  access: Pick<DemoAccess, "url" | "admin_token">;
  clock: Clock;
  /** The user who sent the message, and the bot (the other participant). */
  userId: string;
  botId: string;
  /** The message sent: only the bot's messages after it count. */
  messageId: string;
  /** How long to wait for the first answer (ms). */
  timeoutMs: number;
  /** How often to look (default {@link DM_LOOK_EVERY_MS}). */
  everyMs?: number;
}

interface SeenEvent {
  id: string;
  text?: string;
  sender_id?: string;
  created_at?: string;
}

/**
 * The bot's messages in the conversation after `messageId`, oldest first, once there is at
 * least one and the bot has said all it says at once (a dialog's turn may be several
 * messages, sent one after the other: none came at the next look); none when none came
 * within `timeoutMs`.
 */
export async function awaitDmAnswer(options: AwaitDmAnswerOptions): Promise<DmWaited> {
  const { access, clock, userId, botId, messageId, timeoutMs } = options;
  const everyMs = options.everyMs ?? DM_LOOK_EVERY_MS;
  // From the message itself on (since_id is exclusive), to learn when it was sent.
  const since = (BigInt(messageId) - 1n).toString();
  const path = `/_sandbox/dm_events?user_id=${userId}&participant_id=${botId}&since_id=${since}`;
  let sentAt: number | undefined;
  const look = async (): Promise<DmAnswer[]> => {
    const found = await admin<{ data?: SeenEvent[]; detail?: string }>(access, path);
    if (found.status === 404)
      throw new UserError(
        "the running demo cannot show a DM conversation to bot say (it started before this version): restart it (npm start)",
      );
    if (found.status >= 300)
      throw new UserError(
        `the demo's sandbox would not show the DM conversation: ${found.body.detail ?? found.status}`,
      );
    const events = found.body.data ?? [];
    const own = events.find((e) => e.id === messageId);
    if (own?.created_at !== undefined) sentAt = Date.parse(own.created_at);
    return events
      .filter((e) => e.sender_id === botId && e.id !== messageId)
      .map((e) => ({ id: e.id, text: e.text ?? "" }));
  };
  let answers = await lookUntil(clock, timeoutMs, everyMs, look);
  // The rest of what it says at once: looked for until a look finds nothing new.
  for (let more = answers; more.length > 0 && answers.length < MAX_ANSWERS; ) {
    await clock.sleep(everyMs);
    const now = await look();
    more = now.slice(answers.length);
    answers = now;
  }
  return { answers, ...(sentAt !== undefined ? { sentAt } : {}) };
}
