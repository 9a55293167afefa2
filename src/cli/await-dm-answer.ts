/**
 * `bot say --dm --wait`: after a demo user sends a bot a direct message, wait for the bot's
 * answer in their conversation and print it. It reads the conversation as that user, like any
 * client would (`GET /2/dm_conversations/with/:participant_id/dm_events`). That read allows
 * only 15 calls per 15 minutes per user on pro, so it looks every 10 s, not every 2 s as
 * `say --wait` does for posts; the first read is not at once (nothing can have come yet) but
 * 2 s after the message (a bot that read its DMs just then has answered by then), then at
 * 10 s, 20 s...: a wait of 90 s spends 10 reads, as many as reading at once and every 10 s.
 */
import { compareIds } from "../api/ids.ts";
import type { ApiClient } from "../api/index.ts";
import type { Clock } from "../clock.ts";
import { lookUntil } from "./await-replies.ts";

/** How often the conversation is read, unless told otherwise. */
export const DM_LOOK_EVERY_MS = 10_000;

/** The waits before each read of the conversation, the last one repeated: at 2 s, 10 s, 20 s... */
export const DM_LOOK_WAITS_MS: readonly number[] = [2_000, DM_LOOK_EVERY_MS - 2_000, DM_LOOK_EVERY_MS];

/** A message of the bot's in the conversation. */
export interface DmAnswer {
  id: string;
  text: string;
}

export interface AwaitDmAnswerOptions {
  /** A client of the user who sent the message. */
  client: ApiClient;
  clock: Clock;
  /** The bot's user id (the other participant). */
  botId: string;
  /** The message sent: only the bot's messages after it count. */
  afterId: string;
  /** How long to wait for the first answer (ms). */
  timeoutMs: number;
  /** When to look (see {@link lookUntil}; default {@link DM_LOOK_WAITS_MS}). */
  waits?: number | readonly number[];
}

/**
 * The bot's messages in the conversation after `afterId`, oldest first, once there is at least
 * one; an empty list when none came within `timeoutMs`. A rate limit makes it wait for the
 * window's reset (within the time left), never fail.
 */
export async function awaitDmAnswer(options: AwaitDmAnswerOptions): Promise<DmAnswer[]> {
  const { client, clock, botId, afterId, timeoutMs } = options;
  return lookUntil(clock, timeoutMs, options.waits ?? DM_LOOK_WAITS_MS, async () => {
    const page = await client.dms.eventsWith(botId, {
      event_types: ["MessageCreate"],
      "dm_event.fields": ["id", "text", "sender_id"],
    });
    return (page.data ?? [])
      .filter((e) => e.sender_id === botId && compareIds(e.id, afterId) > 0)
      .map((e) => ({ id: e.id, text: e.text ?? "" }))
      .reverse();
  });
}
