/**
 * The chat a model is asked to answer: the bot file's `system` text as the one system
 * message, the conversation so far (the bot's own posts as `assistant`, everyone else's as
 * `user`), and the post or message answered as the last `user` message. A person's words go
 * only in `user` messages, never into the system text, so what someone writes to the bot
 * cannot pass for the bot author's instructions.
 */
import type { ChatMessage } from "./chat.ts";

/** One earlier post or message of the conversation, oldest first. */
export interface ChatTurn {
  /** Whether the bot wrote it. */
  byBot: boolean;
  text: string;
}

/** The messages for a model; see the module comment. */
export function chatMessages(o: {
  system?: string | undefined;
  history?: readonly ChatTurn[];
  text: string;
}): ChatMessage[] {
  const messages: ChatMessage[] = [];
  if (o.system) messages.push({ role: "system", content: o.system });
  for (const turn of o.history ?? [])
    if (turn.text.trim()) messages.push({ role: turn.byBot ? "assistant" : "user", content: turn.text });
  messages.push({ role: "user", content: o.text });
  return messages;
}
