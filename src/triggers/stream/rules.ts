/**
 * The app's rules on the service, made what its bots want. The service allows one
 * filtered-stream connection per app, so the rules of all its bots share one list: two bots
 * may want the same rule value, and the service keeps one rule for it, its tag naming every
 * bot that wants it (`greeter/ask,liker/cats`). The bots whose mentions come through the
 * stream get packed rules of their own (../mention-rules.ts).
 *
 * A full sync ({@link syncAppRules}) reads the service's list and makes it exactly the wanted
 * one, tags included: a restart with the same bots changes nothing. While the stream stays
 * connected a fleet change takes the smallest step instead ({@link updateAppRules}).
 */
import type { ApiClient } from "../../api/client.ts";
import { ProblemError } from "../../api/errors.ts";
import type { StreamRule } from "../../api/types.ts";
import type { Logger } from "../../log.ts";
import type { MentionPlan } from "../mention-plan.ts";
import { MENTIONS_RULE_TAG, type RuleCaps } from "../mention-rules.ts";
import { budgetedPages, direct, executed, type Budgeted } from "./search.ts";

/** What one bot wants of its app's stream: its own rules (its mentions are a {@link MentionBot}'s). */
export interface BotRules {
  bot: string;
  userId: string;
  rules: ReadonlyArray<{ value: string; tag?: string }>;
}

/** A bot that wants a rule value, with its own tag for it (its `post` events carry that tag). */
export interface Wanter {
  bot: string;
  tag?: string;
}

/** The tag the service keeps for a rule value: every bot that wants it and its own tag. */
export const ruleTag = (wanters: readonly Wanter[]) => wanters.map((w) => `${w.bot}/${w.tag ?? ""}`).join(",");

/** The merged rules: value → wanters, in the order the bots were given. */
export function mergeRules(wants: readonly BotRules[]): Map<string, Wanter[]> {
  const merged = new Map<string, Wanter[]>();
  for (const { bot, rules } of wants) {
    for (const rule of rules) {
      const list = merged.get(rule.value) ?? [];
      if (!list.some((w) => w.bot === bot)) list.push({ bot, ...(rule.tag !== undefined ? { tag: rule.tag } : {}) });
      merged.set(rule.value, list);
    }
  }
  return merged;
}

/** The rules after a sync. */
export interface SyncedRules {
  /** Every rule of the app, by id. */
  byId: Map<string, StreamRule>;
  /** The mention rules' values. */
  mentionValues: string[];
  /** Usernames the cap left without a mention rule. */
  overflow: string[];
}

/** How rules are synced: the app's client, its log, and the budget its requests go through. */
export interface RulesOptions {
  client: ApiClient;
  log: Logger;
  budgeted?: Budgeted;
  /** The plan's caps (how many rules the app may have: whether adds fit before the deletes). */
  caps?: RuleCaps;
}

/**
 * The mention rules wanted: the plan of the bots whose mentions come through the stream, kept
 * between changes (../mention-plan.ts), so that a change plans only what it moved.
 */
export interface WantedMentions {
  plan: MentionPlan;
  caps: RuleCaps;
}

/**
 * Makes the app's rules exactly the wanted ones: the bots' own (merged) and, when
 * `mentions` is given, the packed mention rules of those usernames. Deletes what no bot
 * wants (or whose tag is stale), adds what is missing; a bot's rule the service refuses is
 * logged and the rest go on. Idempotent: a second run with the same wants sends no change.
 */
export async function syncAppRules(
  options: RulesOptions,
  merged: Map<string, Wanter[]>,
  mentions?: WantedMentions,
): Promise<SyncedRules> {
  const existing = await listRules(options);
  // A rule whose tag no longer names its bots is replaced, so the service's list reads right.
  return await changeRules(options, existing, merged, mentions, { retag: true });
}

/** Every rule of the app on the service (a page holds 1,000, a pro app's cap). */
async function listRules(options: RulesOptions): Promise<StreamRule[]> {
  const { client } = options;
  const key = "GET /2/posts/search/stream/rules";
  return await budgetedPages(options.budgeted ?? direct, key, (token, signal) =>
    client.exchange(key, { query: { max_results: 1000, ...token } }, { signal }),
  ).toArray();
}

/** What {@link checkAppRules} found: the rules made right, and how many differed. */
export interface CheckedRules {
  rules: SyncedRules;
  /** Rules the hub had made that the service no longer has (or has with another value). */
  gone: number;
  /** Rules the service has that the hub did not know of. */
  unknown: number;
}

/**
 * Reads the app's rules and compares them with those the hub last synced or updated
 * (`current`): when they differ (a write of the hub that ran the stream before, in this
 * process or another, landed after this hub read the rules), makes them exactly the wanted
 * ones as {@link syncAppRules} does. One read, and nothing per bot when they are the same:
 * `mentions` is asked for only then. Undefined when they are the same.
 */
export async function checkAppRules(
  options: RulesOptions,
  current: SyncedRules,
  merged: Map<string, Wanter[]>,
  mentions: () => WantedMentions | undefined,
): Promise<CheckedRules | undefined> {
  const existing = await listRules(options);
  const found = new Map(existing.map((r) => [r.id, r.value]));
  let unknown = 0;
  for (const rule of existing) if (current.byId.get(rule.id)?.value !== rule.value) unknown++;
  let gone = 0;
  for (const [id, rule] of current.byId) if (found.get(id) !== rule.value) gone++;
  if (gone === 0 && unknown === 0) return undefined;
  const rules = await changeRules(options, existing, merged, mentions(), { retag: true });
  return { rules, gone, unknown };
}

/**
 * The smallest change from the rules synced before (`current`) to the wanted ones, for a
 * stream that stays connected (a bot added, changed or removed): only values no bot wanted
 * before are added, only values no bot wants any more deleted, and the mention rules keep
 * every pack whose bots are all still wanted. A value whose bots changed keeps its rule
 * (posts are routed by value; its tag is brought up to date at the next full sync). Adds go
 * before deletes when the cap leaves room, so a repacked mention rule leaves no gap.
 */
export async function updateAppRules(
  options: RulesOptions,
  current: SyncedRules,
  merged: Map<string, Wanter[]>,
  mentions?: WantedMentions,
): Promise<SyncedRules> {
  return await changeRules(options, [...current.byId.values()], merged, mentions, { retag: false });
}

/** {@link syncAppRules} for the bots' own rules only; returns the app's rules by id. */
export async function syncRules(
  options: RulesOptions,
  merged: Map<string, Wanter[]>,
): Promise<Map<string, StreamRule>> {
  return (await syncAppRules(options, merged)).byId;
}

/** What a change of the app's rules deletes and adds, and the rules it keeps, by id. */
interface RuleChange {
  doomed: StreamRule[];
  /** The bots' own rules to add, tagged. */
  add: Array<{ value: string; tag: string }>;
  /** The mention rules to add. */
  mentions: string[];
  byId: Map<string, StreamRule>;
  overflow: string[];
}

const isMention = (r: StreamRule) => r.tag === MENTIONS_RULE_TAG;

/** Computes and sends the change from `existing` to the wanted rules; see {@link syncAppRules}, {@link updateAppRules}. */
async function changeRules(
  options: RulesOptions,
  existing: readonly StreamRule[],
  merged: Map<string, Wanter[]>,
  mentions: WantedMentions | undefined,
  how: { retag: boolean },
): Promise<SyncedRules> {
  const change = planChange(existing, merged, mentions, how.retag);
  // Adding first leaves no moment without a rule for a repacked bot; a full sync (or a cap
  // without room for both) deletes first, as the service counts every rule against the cap.
  const cap = (options.caps ?? mentions?.caps)?.maxRules ?? 0;
  const room = cap - existing.length;
  if (!how.retag && change.add.length + change.mentions.length <= room) {
    await addWanted(options, change);
    await deleteDoomed(options, change.doomed);
  } else {
    await deleteDoomed(options, change.doomed);
    await addWanted(options, change);
  }
  const mentionValues = [...change.byId.values()].filter(isMention).map((r) => r.value);
  return { byId: change.byId, mentionValues, overflow: change.overflow };
}

/**
 * The change from `existing` to the wanted rules: a bot's rule is stale when no bot wants its
 * value (or, with `retag`, when its tag no longer names its bots); the mention rules follow
 * the app's {@link MentionPlan}, in the room the bots' own rules leave.
 */
function planChange(
  existing: readonly StreamRule[],
  merged: Map<string, Wanter[]>,
  mentions: WantedMentions | undefined,
  retag: boolean,
): RuleChange {
  const wanted = new Map([...merged].map(([value, wanters]) => [value, ruleTag(wanters)]));
  const own = existing.filter((r) => !isMention(r));
  const stale = own.filter((r) => (retag ? wanted.get(r.value) !== (r.tag ?? "") : !wanted.has(r.value)));
  const keep = new Set(own.filter((r) => !stale.includes(r)).map((r) => r.value));
  const add = [...wanted].filter(([value]) => !keep.has(value)).map(([value, tag]) => ({ value, tag }));
  const plan = mentions
    ? mentions.plan.plan(existing.filter(isMention), mentions.caps.maxRules - wanted.size)
    : { keep: [], add: [], remove: existing.filter(isMention), overflow: [] };
  return {
    doomed: [...stale, ...plan.remove],
    add,
    mentions: plan.add,
    byId: new Map([...own.filter((r) => keep.has(r.value)), ...plan.keep].map((r) => [r.id, r])),
    overflow: plan.overflow,
  };
}

/** Deletes the rules no bot wants any more, in one request. */
async function deleteDoomed(options: RulesOptions, doomed: readonly StreamRule[]): Promise<void> {
  if (doomed.length === 0) return;
  const { client, log } = options;
  await (options.budgeted ?? direct)("POST /2/posts/search/stream/rules", (signal) =>
    executed(
      client.exchange(
        "POST /2/posts/search/stream/rules",
        { body: { delete: { ids: doomed.map((r) => r.id) } } },
        { signal },
      ),
    ),
  );
  log.info({ deleted: doomed.length }, `stream rules: deleted ${doomed.length} no bot wants any more`);
}

/**
 * Adds the change's rules: the bots' own in one request, or, when the service refuses one
 * (which refuses the whole request), one by one, naming each it refuses; then the mention rules.
 */
async function addWanted(options: RulesOptions, change: RuleChange): Promise<void> {
  const { log } = options;
  const { add } = change;
  if (add.length > 0) {
    try {
      await addRules(options, add, change.byId);
    } catch (err) {
      if (!(err instanceof ProblemError) || err.status !== 400) throw err;
      for (const rule of add) {
        await addRules(options, [rule], change.byId).catch((e: unknown) => {
          if (!(e instanceof ProblemError) || e.status !== 400) throw e;
          log.error(
            { rule: rule.value, bots: rule.tag },
            `stream rule "${rule.value}" (${rule.tag}) was refused by the service: ${e.message}; fix it in the bot file`,
          );
        });
      }
    }
    log.info({ added: add.length }, `stream rules: added ${add.length} of the bots' rules`);
  }
  if (change.mentions.length > 0) {
    await addRules(
      options,
      change.mentions.map((value) => ({ value, tag: MENTIONS_RULE_TAG })),
      change.byId,
    );
    log.info({ added: change.mentions.length }, `stream rules: added ${change.mentions.length} mention rules`);
  }
}

/** Adds rules in one request: those the service took join `byId`; those it refused are logged. */
async function addRules(
  options: RulesOptions,
  rules: Array<{ value: string; tag: string }>,
  byId: Map<string, StreamRule>,
): Promise<void> {
  const { client, log } = options;
  const res = await (options.budgeted ?? direct)("POST /2/posts/search/stream/rules", (signal) =>
    executed(client.exchange("POST /2/posts/search/stream/rules", { body: { add: rules } }, { signal })),
  );
  for (const rule of (res.data as StreamRule[] | undefined) ?? []) byId.set(rule.id, rule);
  const refused = (res.errors ?? []).map(
    (e) => `${String(e.value ?? "")}: ${e.title}${e.detail ? ` (${e.detail})` : ""}`,
  );
  if (refused.length > 0)
    log.error({ refused }, `stream rules: the service refused ${refused.length}; fix them in the bot files`);
}
