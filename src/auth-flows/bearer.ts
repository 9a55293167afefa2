/**
 * `bot auth bearer`: gets the app's app-only bearer token (once: the service answers 403/99
 * when asked too often) and keeps it in the state store; `--invalidate` revokes it, signed
 * by the app owner's account. `bot start` reads and keeps the token the same way
 * (`storedBearer`, ../credentials/bearer.ts), so restarts do not ask the service again.
 */
import { fetchBearerToken, invalidateBearerToken } from "../api/auth/bearer.ts";
import { BearerTooFrequentError } from "../api/errors.ts";
import { UserError } from "../errors.ts";
import { APP_TOKENS_NAMESPACE, appTokenKey, type AppTokenRecord } from "../credentials/accounts.ts";
import { storedBearer } from "../credentials/bearer.ts";
import { pickAccount } from "./accounts.ts";
import { appKeysHint } from "../config/env.ts";
import { appSettings } from "./app-settings.ts";
import type { AuthFlowContext } from "./context.ts";

export interface BearerOptions {
  /** Revoke the stored token instead, signed with this (owner) account. */
  invalidate?: boolean;
  account?: string;
}

export async function bearer(ctx: AuthFlowContext, options: BearerOptions = {}): Promise<void> {
  const { baseUrl, consumer } = appSettings(ctx.vars, ctx.envFile);
  const key = appTokenKey(baseUrl, consumer.key);
  const stored = ctx.store.get<AppTokenRecord>(APP_TOKENS_NAMESPACE, key);
  if (options.invalidate) {
    const owner = pickAccount(ctx, options.account);
    if (!owner.oauth1)
      throw new UserError(
        `account ${owner.name} has no OAuth 1.0a token; invalidating the bearer token needs the app owner's (bot auth login)`,
      );
    const token = stored?.token ?? (await fetchBearerToken(baseUrl, consumer));
    await invalidateBearerToken(baseUrl, { consumer, owner: owner.oauth1, token, clock: ctx.clock });
    ctx.store.delete(APP_TOKENS_NAMESPACE, key);
    await ctx.store.flush();
    ctx.terminal.print(
      "The app's bearer token was invalidated and forgotten; the next one the service issues will differ.",
    );
    return;
  }
  if (stored) {
    ctx.terminal.print(
      `The app's bearer token is already stored in ${ctx.statePath} (since ${stored.fetched_at}); not asking the service again.`,
    );
    return;
  }
  await storedBearer(ctx.store, baseUrl, consumer, ctx.clock).catch((err: unknown) => {
    // 403/99 answers both wrong keys and too many requests; with no token stored here, this
    // process has not been asking, so the keys are the likely cause.
    if (!(err instanceof BearerTooFrequentError)) throw err;
    throw new UserError(
      `the service could not verify the app's credentials (403, code 99 "Unable to verify your credentials"); ${appKeysHint(ctx.envFile)}. The service gives the same answer when the token was requested many times within 15 minutes: if the keys are right, wait and try again`,
      { cause: err },
    );
  });
  ctx.terminal.print(`The app's bearer token is stored in ${ctx.statePath}.`);
}
