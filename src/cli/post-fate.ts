/**
 * What became of a post a bot was expected to answer, read from the demo's state (read-only,
 * as `bot status` reads it, while the demo runs): when `bot say --wait` gives up, it says
 * what actually happened (not seen yet, seen and waiting, answered later, refused by the
 * reply cooldown, or handled with no answer) instead of guessing at the user's mistake. The
 * same for a direct message `bot say --dm --wait` sent, whichever plugin answers it.
 */
import { actionKey } from "../actions/action.ts";
import { compareIds } from "../api/ids.ts";
import type { LedgerEntry } from "../actions/index.ts";
import { dmAnswerTarget, formerKeys } from "../actions/keys.ts";
import { cooldownMark } from "../actions/steps/reply-safety.ts";
import type { BotStatus } from "../runtime/types.ts";
import { waitingEvents } from "../runtime/inbox.ts";
import type { Store } from "../store/store.ts";
import { mentionsCursorKey, type MentionsCursor } from "../triggers/mentions.ts";
import { dmsCursorKey, type DmsCursor } from "../triggers/dms.ts";

/** What became of the post, for one bot. */
export type PostFate =
  | { kind: "answered"; at: number; replyId?: string }
  | { kind: "queued"; since: number; readyAt?: number; reason?: string }
  | { kind: "ended"; state: string; reason?: string }
  | { kind: "cooldown"; at: number; until: number }
  | { kind: "inbox" }
  | { kind: "no-answer" }
  | { kind: "unseen"; lastCheckAt?: number; checked?: "mentions" | "DMs" };

/** Whether post id `a` is at or before `b` (ids grow with time; compared as numbers). */
const atOrBefore = (a: string, b: string) => a.length < b.length || (a.length === b.length && a <= b);

/**
 * Looks `postId` up in `bot`'s state: its reply in the ledger, the event in the inbox,
 * whether the mentions cursor has passed it, and a reply cooldown running in its conversation.
 */
export function postFate(store: Store, bot: string, postId: string, conversationId: string, now: number): PostFate {
  const entry = store.get<LedgerEntry>("ledger", actionKey(bot, "reply", postId));
  if (entry) return ledgerFate(store, bot, entry, postId);
  if (waitingEvents(store, bot).some((e) => "post" in e && e.post.id === postId)) return { kind: "inbox" };
  const cursor = store.get<MentionsCursor>("cursors", mentionsCursorKey(bot));
  const seen = (cursor?.since_id && atOrBefore(postId, cursor.since_id)) || cursor?.seen?.includes(postId);
  if (seen) {
    const mark = cooldownMark(store, bot, conversationId, now);
    if (mark && mark.key !== actionKey(bot, "reply", postId))
      return { kind: "cooldown", at: mark.at, until: mark.until };
    return { kind: "no-answer" };
  }
  const status = store.entries<BotStatus>("status").find(([, s]) => s.bot === bot)?.[1];
  const lastCheckAt = status?.triggers.mentions?.lastCheckAt;
  return { kind: "unseen", ...(lastCheckAt !== undefined ? { lastCheckAt } : {}) };
}

/** What an entry of the ledger says of an answer: sent, waiting, or ended otherwise. */
function ledgerFate(store: Store, bot: string, entry: LedgerEntry, target: string): PostFate {
  if (entry.state === "done") {
    // A post's answer has an id; a DM's answer is in the conversation (`dm_event_id`, not shown).
    const id = (entry.result as { data?: { id?: unknown } } | undefined)?.data?.id;
    return { kind: "answered", at: entry.updatedAt, ...(typeof id === "string" ? { replyId: id } : {}) };
  }
  if (entry.state === "queued" || entry.state === "pending") {
    const status = store.entries<BotStatus>("status").find(([, s]) => s.bot === bot)?.[1];
    const waiting = status?.waiting?.find((w) => w.label.includes(target));
    return {
      kind: "queued",
      since: entry.createdAt,
      ...(waiting ? { readyAt: waiting.readyAt, reason: waiting.reason } : {}),
    };
  }
  return { kind: "ended", state: entry.state, ...(entry.reason ? { reason: entry.reason } : {}) };
}

/** A direct message a user sent a bot, as `bot say --dm` knows it. */
export interface SentDm {
  id: string;
  /** The user who sent it. */
  senderId: string;
  /** When the service recorded it (ms on the demo's clock), when known. */
  sentAt?: number;
}

/**
 * Whether a `dm` entry of the ledger goes to `senderId`'s conversation: an answer to a message
 * (its target the message), or a DM to the user (`<user id>:<hash>`, whatever its key: a
 * dialog's turn, a welcome, `ctx.dm`), or one whose unfinished action names the participant.
 */
function dmTo(entry: LedgerEntry, message: SentDm): boolean {
  if (entry.kind !== "dm") return false;
  // `ctx.dm`'s target is `<user id>:<hash>`; a dialog's turn (`dialog:...`) is known by where it went.
  if (entry.target.split(":")[0] === message.senderId) return true;
  const sent = (entry.result as { data?: { dm_conversation_id?: unknown } } | undefined)?.data?.dm_conversation_id;
  if (typeof sent === "string" && sent.split("-").includes(message.senderId)) return true;
  return (entry.action?.path as { participant_id?: string } | undefined)?.participant_id === message.senderId;
}

/**
 * What `bot` did in answer to a message, whichever plugin answered: the answer filed under the
 * message (`ctx.reply` on a `dm` event: `reply`, `llm-reply`; or its key before postbot 0.2,
 * ../actions/keys.ts), else the first DM to the sender asked for since it was sent (a dialog's
 * next question, any plugin's `ctx.dm`).
 */
function dmAnswerEntry(store: Store, bot: string, message: SentDm): LedgerEntry | undefined {
  const key = actionKey(bot, "dm", dmAnswerTarget(message.id));
  const filed = [key, ...formerKeys(key)].map((k) => store.get<LedgerEntry>("ledger", k)).find((e) => e);
  if (filed || message.sentAt === undefined) return filed;
  const since = message.sentAt;
  /** Sent after the message (its id is later), or, not sent yet, asked for since. */
  const after = (e: LedgerEntry) => {
    const made = (e.result as { data?: { dm_event_id?: unknown } } | undefined)?.data?.dm_event_id;
    return typeof made === "string" ? compareIds(made, message.id) > 0 : e.createdAt >= since;
  };
  return store
    .entries<LedgerEntry>("ledger")
    .map(([, e]) => e)
    .filter((e) => e.bot === bot && dmTo(e, message) && after(e))
    .sort((a, b) => a.createdAt - b.createdAt)[0];
}

/**
 * Looks a direct message up in `bot`'s state: an answer to it in the ledger, from any plugin
 * (see {@link dmAnswerEntry}), the event in the inbox, and whether the dms cursor has passed it.
 */
export function dmFate(store: Store, bot: string, message: SentDm): PostFate {
  const messageId = message.id;
  const entry = dmAnswerEntry(store, bot, message);
  if (entry) return ledgerFate(store, bot, entry, messageId);
  if (waitingEvents(store, bot).some((e) => e.kind === "dm" && e.message.id === messageId)) return { kind: "inbox" };
  const cursor = store.get<DmsCursor>("cursors", dmsCursorKey(bot));
  if (cursor && "last_id" in cursor && atOrBefore(messageId, cursor.last_id)) return { kind: "no-answer" };
  const status = store.entries<BotStatus>("status").find(([, s]) => s.bot === bot)?.[1];
  const lastCheckAt = status?.triggers.dms?.lastCheckAt;
  return { kind: "unseen", checked: "DMs", ...(lastCheckAt !== undefined ? { lastCheckAt } : {}) };
}

/** `13:05:09`: a time of day as the user's terminal shows it. */
export const timeOfDay = (ms: number) => new Date(ms).toLocaleTimeString("en-GB", { hour12: false });

/** The fate as a sentence about `@bot`, with what to do about it. */
export function describeFate(bot: string, fate: PostFate): string {
  switch (fate.kind) {
    case "answered":
      return `@${bot} answered it at ${timeOfDay(fate.at)}, after the wait${fate.replyId ? ` (post ${fate.replyId})` : ""}`;
    case "queued":
      return `@${bot} saw it; its answer waits for budget${fate.readyAt ? ` until ${timeOfDay(fate.readyAt)}` : ""}${fate.reason ? ` (${fate.reason})` : ""}: \`npx bot status\` shows what waits`;
    case "ended": {
      const why = fate.reason ? `: ${fate.reason}` : "";
      if (fate.state === "dropped") return `@${bot} saw it, but dropped its answer${why}`;
      if (fate.state === "unknown") return `@${bot} saw it; whether its answer was sent is unknown${why}`;
      return `@${bot} saw it, but its answer ${fate.state}${why}`;
    }
    case "cooldown":
      return `@${bot} saw it and sent no answer: it replied in this conversation at ${timeOfDay(fate.at)}, and its reply_cooldown allows no second reply there until ${timeOfDay(fate.until)} (set reply_cooldown in its bot file; 0s turns it off)`;
    case "inbox":
      return `@${bot} saw it and has not handled it yet (its plugins handle events in turn): wait longer, or watch the demo's log`;
    case "no-answer":
      return `@${bot} saw it and sent no answer (a filter, reply safety or its plugins chose not to): the demo's log says why`;
    case "unseen":
      return `@${bot} has not seen it yet${fate.lastCheckAt ? ` (its ${fate.checked ?? "mentions"} were last checked at ${timeOfDay(fate.lastCheckAt)})` : ""}: the demo may be busy; wait longer with --wait SECONDS`;
  }
}
