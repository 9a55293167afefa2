/**
 * Whether a bot's own state is there when its other records say it ran before. A bot's
 * cursors, inbox and ledger live together (its file `state/bots/NAME.json`, or its Redis hash
 * `postbot:state:bots/NAME`); deleted, or set aside after damage, the bot would start afresh
 * without a word: its first poll reaches back an hour and answers again what it answered,
 * its ledger being gone with the rest. So its state carries a mark (`kept`: since when it is
 * kept), written the first time the bot runs, and its status (kept apart, in `status.json` or
 * the shared status hash) repeats when that was (`stateSince`, ./status-saver.ts). A start
 * that finds the status saying so and no mark refuses the bot, naming where its state was and
 * what to do; the others start. `bot start --afresh NAME` starts it afresh on purpose.
 *
 * A bot whose status predates the mark (an upgrade) gets the mark at its next start.
 */
import type { BotStatus } from "../runtime/types.ts";
import type { Store } from "../store/store.ts";

/** The namespace of the marks, in each bot's own state (src/store/shards.ts). */
export const KEPT_NAMESPACE = "kept";

/** What a bot's mark says. */
export interface KeptMark {
  /** When the bot's state was first kept. */
  since: number;
}

/** When the bot's state was first kept: its mark's time, else what its last status said (a bot that does not run here keeps it). */
export function stateSince(store: Store, bot: string): number | undefined {
  return (
    store.get<KeptMark>(KEPT_NAMESPACE, bot)?.since ??
    store.get<Pick<BotStatus, "stateSince">>("status", bot)?.stateSince
  );
}

/**
 * Checks a bot's state before it runs. Its mark there: nothing to say. No mark and no status
 * that says it ran: a new bot (or one from before the marks), marked now. No mark though its
 * status says its state was kept: why it must not start (undefined when `afresh`: then it is
 * marked anew, and `afresh` is told so the caller can say it).
 */
export function checkKeptState(
  store: Store,
  bot: string,
  options: { now: number; afresh: boolean; onAfresh?(since: number): void },
): string | undefined {
  if (store.get<KeptMark>(KEPT_NAMESPACE, bot)) return undefined;
  const since = store.get<Pick<BotStatus, "stateSince">>("status", bot)?.stateSince;
  if (since !== undefined && !options.afresh) {
    const where = store.whereIs?.(KEPT_NAMESPACE, bot) ?? "its state";
    return `its state (${where}) is missing, though its status says the bot ran with it since ${new Date(since).toISOString()}: started afresh, it would answer again what it answered. Restore it from a backup, or start the bot afresh knowing that: bot start --afresh ${bot}`;
  }
  if (since !== undefined) options.onAfresh?.(since);
  store.set<KeptMark>(KEPT_NAMESPACE, bot, { since: options.now });
  return undefined;
}
