/**
 * `bot auth logout`: invalidates the account's tokens on the service, then forgets them. If
 * the service cannot be reached the account is kept (a token that still works must not be
 * forgotten unnoticed) unless the person asks to forget it locally only.
 */
import { invalidateToken } from "../api/auth/oauth1-flow.ts";
import { PkceSession } from "../api/auth/pkce.ts";
import { InvalidTokenError } from "../api/errors.ts";
import { UserError } from "../errors.ts";
import { removeAccount } from "../credentials/accounts.ts";
import { pickAccount } from "./accounts.ts";
import { appSettings, pkceClientFrom } from "./app-settings.ts";
import type { AuthFlowContext } from "./context.ts";

export interface LogoutOptions {
  account?: string;
  /** Forget the tokens without telling the service. */
  localOnly?: boolean;
}

export async function logout(ctx: AuthFlowContext, options: LogoutOptions = {}): Promise<void> {
  const account = pickAccount(ctx, options.account);
  if (!options.localOnly) {
    if (account.oauth1) {
      const { baseUrl, consumer } = appSettings(ctx.vars, ctx.envFile);
      if (consumer.key !== account.oauth1.consumer_key) {
        throw new UserError(
          `account ${account.name} was signed in with another app's key than POSTBOT_CONSUMER_KEY; set that app's keys, or use --local-only to forget it without invalidating`,
        );
      }
      try {
        await invalidateToken(baseUrl, { consumer, token: account.oauth1, clock: ctx.clock });
      } catch (err) {
        if (!(err instanceof InvalidTokenError)) throw withHint(err);
        ctx.terminal.print(`The service already considered the token of ${account.name} invalid.`);
      }
    }
    if (account.pkce) {
      const client = pkceClientFrom(ctx.vars, ctx.envFile);
      const session = new PkceSession({ service: account.base_url, ...client, tokens: account.pkce, clock: ctx.clock });
      await session.revoke().catch((err: unknown) => {
        throw withHint(err);
      });
    }
  }
  removeAccount(ctx.store, account.name);
  await ctx.store.flush();
  ctx.terminal.print(
    `${options.localOnly ? "Forgot" : "Signed out and forgot"} account ${account.name} (@${account.username}).`,
  );
}

function withHint(err: unknown): Error {
  const e = err as Error;
  return new UserError(
    `${e.message}. The account is still stored; try again, or use --local-only to forget it without telling the service`,
    { cause: err },
  );
}
