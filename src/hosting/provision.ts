/**
 * Gives bots accounts in a sandbox: one app per plan (an app has one plan) for the bots that
 * name no app, one app per API key for those that do (`app: {consumer_key}`: the sandbox
 * makes its own keys, so the key only tells apps apart), one user per bot (named like the
 * bot), and an access token for it, as the 3-legged flow would give.
 *
 * Idempotent: with a sandbox restored from its state file, the same apps, users and tokens
 * are found again, so the bots' cursors, ledger and budget windows still refer to them.
 */
import { fingerprint } from "../api/auth/fingerprint.ts";
import type { BotConfig } from "../config/index.ts";
import type { AccountRecord } from "../credentials/accounts.ts";
import type { Plan } from "../limits/types.ts";
import { outstandingToken } from "../sandbox/auth/credentials.ts";
import { findUsername } from "../sandbox/domain/users.ts";
import type { Sandbox } from "../sandbox/index.ts";
import type { AppCredentials, HostedBot } from "./types.ts";

/** The sandbox username of a bot: its name with `-` as `_`, cut to the service's 15 characters. */
export const sandboxUsername = (bot: string) => bot.replace(/-/g, "_").slice(0, 15);

/** The name of the sandbox app that hosts the bots of a plan (and of an API key the bot file names). */
export const appName = (plan: Plan, consumerKey?: string) =>
  consumerKey === undefined ? `postbot-${plan}` : `postbot-${plan}-${fingerprint(consumerKey)}`;

/** A bot with its account in the sandbox: what the runtime needs, and the sandbox user it is. */
export interface ProvisionedBot extends HostedBot {
  user: { id: string; username: string };
}

/**
 * The sandbox app of a plan (and of an API key a bot file names), made the first time: the app
 * every bot of that plan runs on, and the one an account connecting with a template of that
 * plan authorizes.
 */
export async function sandboxApp(sandbox: Sandbox, plan: Plan, consumerKey?: string): Promise<AppCredentials> {
  const { data } = sandbox.context;
  const name = appName(plan, consumerKey);
  const existing = Object.values(data.auth.apps).find((a) => a.name === name && a.plan === plan);
  const app = existing ?? (await sandbox.admin.createApp({ name, plan }));
  return {
    id: app.id,
    key: app.consumer_key,
    secret: app.consumer_secret,
    plan,
    enrolmentDay: new Date(app.created_at).getUTCDate(),
  };
}

/**
 * Gives each bot its account: the sandbox user named like the bot (made the first time) with a
 * token as the 3-legged flow would give. A bot whose stored account (`stored`: the credential
 * store's) holds a token of this sandbox for the bot's app runs as that account instead: an
 * account that connected itself through the web (`/connect/NAME`), or one signed in with
 * `bot auth login` against this sandbox. A revoked one too: the bot is then paused, as on a
 * real service.
 */
export async function provisionBots(
  sandbox: Sandbox,
  bots: readonly BotConfig[],
  stored?: (name: string) => AccountRecord | undefined,
): Promise<ProvisionedBot[]> {
  const { data } = sandbox.context;
  const apps = new Map<string, AppCredentials>();
  const appFor = async (plan: Plan, consumerKey: string | undefined): Promise<AppCredentials> => {
    const name = appName(plan, consumerKey);
    const known = apps.get(name) ?? (await sandboxApp(sandbox, plan, consumerKey));
    apps.set(name, known);
    return known;
  };

  const hosted: ProvisionedBot[] = [];
  for (const config of bots) {
    const app = await appFor(config.plan, config.app?.consumer_key);
    const account = config.account.kind === "stored" ? stored?.(config.account.stored) : undefined;
    const own = account?.oauth1 && data.auth.access_tokens[account.oauth1.token];
    if (account?.oauth1 && own && own.app_id === app.id) {
      hosted.push({
        config,
        app,
        token: { token: account.oauth1.token, secret: account.oauth1.secret },
        user: { id: account.user_id, username: account.username },
      });
      continue;
    }
    const username = sandboxUsername(config.name);
    // From the sandbox's indexes: a scan of every user and token for each bot made
    // provisioning 100,000 bots take hours.
    const user =
      findUsername(data.world.users, username.toLowerCase()) ??
      (await sandbox.admin.createUser({
        username,
        name: config.name,
        description: `postbot example bot (${config.file})`,
      }));
    const existing = outstandingToken(data, app.id, user.id);
    const token = existing
      ? { token: existing.token, secret: existing.secret }
      : await sandbox.admin
          .createToken({ consumer_key: app.key, user_id: user.id })
          .then((t) => ({ token: t.token, secret: t.token_secret }));
    hosted.push({ config, app, token, user: { id: user.id, username: user.username } });
  }
  return hosted;
}
