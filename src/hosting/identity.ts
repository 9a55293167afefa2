/**
 * Who a bot's account is on the service (user id and username). Mostly known already: `bot
 * auth login` stores it with the account (the access-token answer carries it) and the sandbox
 * provisioning makes the user. When not (a token written in the bot file), it is asked once
 * with `GET /2/users/me` and remembered in the state store for as long as the token is the
 * same: on the free plan that endpoint allows 25 calls a day, and a restart loop must not use
 * them up. What is remembered carries a fingerprint of itself: changed since (damage, a hand's
 * edit), it is asked again and the difference said, rather than the bot polling the mentions
 * of a user that is not its account, and answering none, without a word.
 */
import type { ApiClient } from "../api/client.ts";
import { fingerprint } from "../api/auth/fingerprint.ts";
import type { Plan } from "../limits/types.ts";
import type { Logger } from "../log.ts";
import type { Store } from "../store/store.ts";
import type { BotIdentity } from "../runtime/types.ts";
import { dataOf } from "../config/bot-source.ts";
import { getAccount } from "../credentials/accounts.ts";
import type { FleetBot, HostedBot } from "./types.ts";

interface CachedIdentity {
  userId: string;
  username: string;
  /** A fingerprint of the token it was asked with (not the token). */
  token: string;
  /**
   * A fingerprint of the three above, as the service said them: a record changed since (one
   * digit of the user id) no longer matches, and the service is asked again rather than the
   * bot running as nobody. Absent in records of earlier postbots: asked again once.
   */
  check?: string;
}

/** The fingerprint that vouches for a remembered identity (see {@link CachedIdentity.check}). */
const checkOf = (userId: string, username: string, token: string) => fingerprint(`${userId}\n${username}\n${token}`);

/** The bot's identity: the one `known` with its account, else the one remembered for its token, else asked once. */
export async function resolveIdentity(options: {
  store: Store;
  client: ApiClient;
  bot: string;
  plan: Plan;
  token: string;
  known?: { id: string; username: string };
  /** Told when the identity remembered does not match what the service says now. */
  log?: Logger;
}): Promise<BotIdentity> {
  const { store, client, bot, plan, known } = options;
  if (known) return { name: bot, userId: known.id, username: known.username, plan };
  const token = fingerprint(options.token);
  const cached = store.get<CachedIdentity>("identity", bot);
  if (cached?.token === token && cached.check === checkOf(cached.userId, cached.username, token))
    return { name: bot, userId: cached.userId, username: cached.username, plan };
  const me = await client.users.me();
  if (!me.data) throw new Error(`GET /2/users/me answered no user for bot ${bot}`);
  const { id: userId, username } = me.data;
  const where = store.whereIs?.("identity", bot) ?? "the state";
  if (
    cached?.token === token &&
    cached.check !== undefined &&
    (cached.userId !== userId || cached.username !== username)
  )
    options.log?.warn(
      { bot, remembered: cached.userId, service: userId },
      `bot ${bot}: the identity kept in the state (${where}) said user ${cached.userId} (@${cached.username}), but the service says this account is user ${userId} (@${username}): the record was changed after it was written (by hand, or damaged). The bot goes on as the service's, kept in its place; nothing to do, unless this comes back: then look for what else writes ${where}`,
    );
  store.set<CachedIdentity>("identity", bot, { userId, username, token, check: checkOf(userId, username, token) });
  await store.flush();
  return { name: bot, userId, username, plan };
}

/** Who a hosted bot's account is, or why the service would not say. */
export type Identified = { identity: BotIdentity } | { error: unknown };

/** {@link resolveIdentity} of a hosted bot, its failure kept as a value (one refused account pauses only its bot). */
export function identify(store: Store, hosted: HostedBot, client: ApiClient, log?: Logger): Promise<Identified> {
  return resolveIdentity({
    store,
    client,
    bot: hosted.config.name,
    plan: hosted.app.plan,
    token: hosted.token.token,
    ...(hosted.user ? { known: hosted.user } : {}),
    ...(log ? { log } : {}),
  }).then(
    (identity) => ({ identity }),
    (error: unknown) => ({ error }),
  );
}

/** How many accounts' identities are asked for at once at start. */
const IDENTITY_CONCURRENCY = 16;

/**
 * {@link identify} of every bot, a few at a time: a first start of thousands of bots with
 * tokens in their files asks each once; later starts find them in the state store.
 */
export async function identifyAll(
  store: Store,
  bots: readonly HostedBot[],
  clients: readonly ApiClient[],
  log?: Logger,
): Promise<Identified[]> {
  const out = new Array<Identified>(bots.length);
  let next = 0;
  const worker = async () => {
    while (next < bots.length) {
      const i = next++;
      out[i] = await identify(store, bots[i]!, clients[i]!, log);
    }
  };
  await Promise.all(Array.from({ length: Math.min(IDENTITY_CONCURRENCY, bots.length) }, worker));
  return out;
}

/**
 * Who a bot's account is, when known without starting the bot (so without its token): a bot
 * kept whole says ({@link HostedBot.user}); one kept as its outline signs in with the account
 * of its name when its file names no account (no `account:` in its data), and the state keeps
 * that account with its user (`bot auth login`). Undefined otherwise: the bot says who it is
 * when it starts. The process that starts an app's stream describes the app's bots with it
 * (./shared-apps.ts), to put in their mention rules before they run.
 */
export function knownUser(store: Store, bot: FleetBot): { id: string; username: string } | undefined {
  if ("token" in bot) return (bot as HostedBot).user;
  if (bot.source === undefined) return undefined;
  const data = dataOf(bot.source);
  if (typeof data !== "object" || data === null || "account" in data) return undefined;
  const account = getAccount(store, bot.config.name);
  return account?.user_id && account.username ? { id: account.user_id, username: account.username } : undefined;
}
