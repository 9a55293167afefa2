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
