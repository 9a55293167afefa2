/**
 * Puts events in a bot's inbox as an earlier run would have left them (fetched, not yet
 * handled), with a cursor's move, straight in the state: for tests that start a bot, or look
 * at a state, after such a run. A running bot's inbox is src/runtime/inbox.ts.
 */
import type { Store } from "../../src/store/store.ts";
import type { BotEvent, CursorMove } from "../../src/triggers/events.ts";

export function seedInbox(store: Store, bot: string, events: readonly BotEvent[], cursor?: CursorMove): void {
  for (const e of events) store.set(`inbox:${bot}`, e.id, e);
  if (cursor) store.set("cursors", cursor.key, cursor.value);
}
