/**
 * Reply safety. Invariant: a bot never replies to itself or to another bot of the same process unless
 * its file says `reply_to_bots: true`, and never replies twice in one conversation within
 * its cooldown. Two bots answering each other, or one bot answering its own answers, is a
 * reply loop, and reply loops get accounts suspended.
 *
 * An answer to a direct message (a `dm` action naming the message's sender) obeys the first
 * rule: two bots of the process that answer DMs would otherwise talk to each other forever.
 * The cooldown does not apply to it: a DM conversation has two people in it, one of whom
 * asked, and a bot answering each message there is what DMs are for (a conversation of
 * several questions would stop at the first answer otherwise).
 *
 * The cooldown is persisted, so a restart does not reopen it.
 *
 * Inside a dialog the bot holds (src/plugins/dialogs: the action names it in its
 * `context.dialog`), a question and its answers take turns by design, so the cooldown does
 * not apply there, and the bot may answer its own question (to say that the time for an
 * answer is up). The other bots of the process stay refused unless `reply_to_bots`. The
 * dialog's replies still mark the thread, so other plugins wait out the cooldown after it.
 */
import type { Clock } from "../../clock.ts";
import type { Store } from "../../store/store.ts";
import type { Action } from "../action.ts";
import type { Step } from "../pipeline.ts";

/** The bot file's reply-safety settings and what the policy needs to apply them. */
export interface ReplySafetyOptions {
  store: Store;
  clock: Clock;
  /** The bot's own user id. */
  selfId: string;
  /** User ids of every bot hosted by this process (a live set: bots added later count). */
  botIds: ReadonlySet<string>;
  /** `reply_to_bots`: allow replies to itself and to the process's other bots (default false). */
  replyToBots?: boolean;
  /** `reply_cooldown` in ms (default 15 minutes; 0 turns it off). */
  cooldownMs?: number;
}

const NS = "replies.recent";

interface Mark {
  at: number;
  key: string;
  /** When the cooldown of the bot that replied ends (absent in marks saved before it was kept). */
  until?: number;
}

/** How long a mark saved without `until` is kept: the longest cooldown before marks had one. */
const LEGACY_MARK_MS = 24 * 3_600_000;

/** When each store's marks were last swept (on the clock). */
const swept = new WeakMap<Store, number>();

/**
 * Drops the marks whose cooldown ended. Every bot's marks live in one namespace, each ending
 * with its own bot's cooldown; the sweep runs once a minute per store at most, not once per
 * bot (10,000 bots starting made it 10,000 scans of 10,000 marks). An expired mark left a
 * little longer refuses nothing: {@link replySafety} checks its `until` too.
 */
function sweepExpired(store: Store, clock: Clock): void {
  const now = clock.now();
  const last = swept.get(store);
  if (last !== undefined && now - last < 60_000 && now >= last) return;
  swept.set(store, now);
  for (const [key, mark] of store.entries<Mark>(NS))
    if (!((mark.until ?? mark.at + LEGACY_MARK_MS) > now)) store.delete(NS, key);
}

/**
 * The bot's last reply in a conversation while its cooldown lasts, as the state keeps it:
 * `bot say --wait` reads it to tell a user why a bot did not answer.
 */
export function cooldownMark(
  store: Store,
  bot: string,
  conversationId: string,
  now: number,
): { at: number; key: string; until: number } | undefined {
  const mark = store.get<Mark>(NS, `${bot}:${conversationId}`);
  if (!mark) return undefined;
  const until = mark.until ?? mark.at + LEGACY_MARK_MS;
  return until > now ? { at: mark.at, key: mark.key, until } : undefined;
}

/** The conversation a reply belongs to; a post with no known conversation is its own. */
const conversationOf = (action: Action) => action.context?.conversationId ?? action.target;

/**
 * What reply safety decides by. (Its refusals are functions of the module, not closures of
 * each bot's step: with 10,000 bots, each closure tsx names costs a few hundred bytes.)
 */
interface Rules {
  store: ReplySafetyOptions["store"];
  clock: ReplySafetyOptions["clock"];
  selfId: string;
  botIds: ReadonlySet<string>;
  replyToBots: boolean;
  cooldownMs: number;
}

/** Why a reply would start a loop or break the cooldown, if it would. */
function refusal(rules: Rules, action: Action): string | undefined {
  const { store, clock, selfId, botIds, replyToBots, cooldownMs } = rules;
  const author = action.context?.authorId;
  // (`conversation`: the name of `dialog` in an action recorded before postbot 0.2.)
  const held = action.context?.dialog !== undefined || action.context?.conversation !== undefined;
  if (!replyToBots && author !== undefined) {
    if (author === selfId && !held)
      return `post ${action.target} is the bot's own; a bot does not reply to itself unless its file says reply_to_bots: true`;
    if (author !== selfId && botIds.has(author)) {
      return `post ${action.target} is by another bot of this process (user ${author}); bots do not reply to each other unless the file says reply_to_bots: true`;
    }
  }
  if (cooldownMs > 0 && !held) {
    const mark = store.get<Mark>(NS, `${action.bot}:${conversationOf(action)}`);
    const since = mark ? clock.now() - mark.at : Infinity;
    // A mark ends with the cooldown of the bot that made it (its `until`), swept or not.
    if (mark && since < cooldownMs && !((mark.until ?? Infinity) <= clock.now()) && mark.key !== action.key) {
      return `the bot replied in conversation ${conversationOf(action)} ${Math.round(since / 1000)} s ago; its reply_cooldown is ${Math.round(cooldownMs / 1000)} s, one reply per conversation in that time: to change it, set reply_cooldown in its bot file (0s turns it off)`;
    }
  }
  return undefined;
}

/** Why an answer to a direct message would start a loop, if it would. */
function dmRefusal(rules: Rules, action: Action, sender: string): string | undefined {
  if (rules.replyToBots) return undefined;
  if (sender === rules.selfId)
    return `message ${action.target} is the bot's own; a bot does not answer itself unless its file says reply_to_bots: true`;
  if (rules.botIds.has(sender))
    return `message ${action.target} is from another bot of this process (user ${sender}); bots do not answer each other unless the file says reply_to_bots: true`;
  return undefined;
}

/**
 * The reply safety step: refuses replies that would start a loop, and marks the conversation
 * when one is let through (unmarking it if the reply is not sent in the end).
 */
export function replySafety(options: ReplySafetyOptions): Step {
  const { store, clock, selfId, botIds } = options;
  const replyToBots = options.replyToBots ?? false;
  const cooldownMs = options.cooldownMs ?? 15 * 60_000;
  store.retain?.(NS, { maxEntries: 10_000 });
  sweepExpired(store, clock);

  const rules: Rules = { store, clock, selfId, botIds, replyToBots, cooldownMs };
  return (next) => async (job) => {
    const { action } = job;
    if (action.kind === "dm" && action.context?.authorId !== undefined) {
      const reason = dmRefusal(rules, action, action.context.authorId);
      if (reason) return action.key ? { status: "refused", key: action.key, reason } : { status: "refused", reason };
      return next(job);
    }
    if (action.kind !== "reply") return next(job);
    const reason = refusal(rules, action);
    if (reason) return action.key ? { status: "refused", key: action.key, reason } : { status: "refused", reason };
    if (cooldownMs <= 0) return next(job);
    const markKey = `${action.bot}:${conversationOf(action)}`;
    const mark: Mark = { at: clock.now(), key: action.key ?? action.target, until: clock.now() + cooldownMs };
    store.set<Mark>(NS, markKey, mark);
    const outcome = await next(job);
    const sentOrMaybe =
      outcome.status === "sent" ||
      outcome.status === "duplicate" ||
      outcome.status === "dry-run" ||
      (outcome.status === "failed" && outcome.maybeSent);
    if (!sentOrMaybe && store.get<Mark>(NS, markKey)?.key === mark.key) store.delete(NS, markKey);
    return outcome;
  };
}
