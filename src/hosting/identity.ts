/**
 * Who a bot's account is on the service (user id and username). Mostly known already: `bot
 * auth login` stores it with the account (the access-token answer carries it) and the sandbox
 * provisioning makes the user. When not (a token written in the bot file), it is asked once
 * with `GET /2/users/me` and remembered in the state store for as long as the token is the
 * same: on the free plan that endpoint allows 25 calls a day, and a restart loop must not use
 * them up.
 */
import type { ApiClient } from "../api/client.ts";
import { fingerprint } from "../api/auth/fingerprint.ts";
import type { Plan } from "../limits/types.ts";
import type { Store } from "../store/store.ts";
import type { BotIdentity } from "../runtime/types.ts";
import type { HostedBot } from "./types.ts";

interface CachedIdentity {
  userId: string;
  username: string;
  /** A fingerprint of the token it was asked with (not the token). */
  token: string;
}

/** The bot's identity: the one `known` with its account, else the one remembered for its token, else asked once. */
export async function resolveIdentity(options: {
  store: Store;
  client: ApiClient;
  bot: string;
  plan: Plan;
  token: string;
  known?: { id: string; username: string };
}): Promise<BotIdentity> {
  const { store, client, bot, plan, known } = options;
  if (known) return { name: bot, userId: known.id, username: known.username, plan };
  const token = fingerprint(options.token);
  const cached = store.get<CachedIdentity>("identity", bot);
  if (cached?.token === token) return { name: bot, userId: cached.userId, username: cached.username, plan };
  const me = await client.users.me();
  if (!me.data) throw new Error(`GET /2/users/me answered no user for bot ${bot}`);
  store.set<CachedIdentity>("identity", bot, { userId: me.data.id, username: me.data.username, token });
  await store.flush();
  return { name: bot, userId: me.data.id, username: me.data.username, plan };
}

/** Who a hosted bot's account is, or why the service would not say. */
export type Identified = { identity: BotIdentity } | { error: unknown };

/** {@link resolveIdentity} of a hosted bot, its failure kept as a value (one refused account pauses only its bot). */
export function identify(store: Store, hosted: HostedBot, client: ApiClient): Promise<Identified> {
  return resolveIdentity({
    store,
    client,
    bot: hosted.config.name,
    plan: hosted.app.plan,
    token: hosted.token.token,
    ...(hosted.user ? { known: hosted.user } : {}),
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
): Promise<Identified[]> {
  const out = new Array<Identified>(bots.length);
  let next = 0;
  const worker = async () => {
    while (next < bots.length) {
      const i = next++;
      out[i] = await identify(store, bots[i]!, clients[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(IDENTITY_CONCURRENCY, bots.length) }, worker));
  return out;
}
