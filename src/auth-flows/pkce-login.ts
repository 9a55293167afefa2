/**
 * `bot auth pkce`: OAuth 2.0 Authorization Code with PKCE in a terminal. It prints the
 * consent page's URL (S256 challenge, a random state), reads back the address the browser
 * was redirected to, checks the state, exchanges the code, learns who signed in, and stores
 * the tokens (with the refresh token, so the runtime can refresh them before they expire).
 */
import {
  createPkceChallenge,
  createPkceState,
  exchangePkceCode,
  pkceAuthorizeUrl,
  PkceSession,
} from "../api/auth/pkce.ts";
import { createClient } from "../api/client.ts";
import { ALL_SCOPES } from "../api/endpoints.ts";
import { UserError } from "../errors.ts";
import { saveAccount, type AccountRecord } from "../credentials/accounts.ts";
import { checkAccountOption } from "./accounts.ts";
import { baseUrlFrom, pkceClientFrom } from "./app-settings.ts";
import type { AuthFlowContext } from "./context.ts";

export interface PkceLoginOptions {
  account?: string;
  /** The redirect URI registered on the app. */
  redirect: string;
  /** Scopes to ask for (default: every scope, `offline.access` included). */
  scopes?: string[];
}

export async function pkceLogin(ctx: AuthFlowContext, options: PkceLoginOptions): Promise<AccountRecord> {
  checkAccountOption(options.account);
  const unknown = (options.scopes ?? []).filter((s) => !(ALL_SCOPES as readonly string[]).includes(s));
  if (unknown.length)
    throw new UserError(`--scopes: unknown scope ${unknown.join(", ")}; known: ${ALL_SCOPES.join(" ")}`, {
      exitCode: 2,
    });
  const scopes = options.scopes?.length ? options.scopes : [...ALL_SCOPES];
  const baseUrl = baseUrlFrom(ctx.vars, ctx.envFile);
  const client = pkceClientFrom(ctx.vars, ctx.envFile);
  const { verifier, challenge } = createPkceChallenge();
  const state = createPkceState();
  ctx.terminal.print("Open this page in a browser, sign in as the account and authorize the app:");
  ctx.terminal.print(
    `  ${pkceAuthorizeUrl(baseUrl, { clientId: client.clientId, redirectUri: options.redirect, scopes, state, challenge })}`,
  );
  const answer = await ctx.terminal.ask("Then paste the address the browser was sent to: ");
  let url: URL;
  try {
    url = new URL(answer);
  } catch {
    throw new UserError(
      "that is not an address; paste the whole address the browser was sent to (it has ?state=...&code=...)",
    );
  }
  if (url.searchParams.get("error"))
    throw new UserError(
      `the service answered ${url.searchParams.get("error")}: ${url.searchParams.get("error_description") ?? "the authorization was not granted"}; nothing was stored`,
    );
  if (url.searchParams.get("state") !== state)
    throw new UserError("that address is for another sign-in (its state differs); run bot auth pkce again");
  const code = url.searchParams.get("code");
  if (!code) throw new UserError("that address has no code parameter; paste the whole address the browser was sent to");
  const tokens = await exchangePkceCode(baseUrl, {
    ...client,
    code,
    redirectUri: options.redirect,
    verifier,
    clock: ctx.clock,
  });
  const me = createClient({
    baseUrl,
    clock: ctx.clock,
    auth: { pkce: new PkceSession({ service: baseUrl, ...client, tokens, clock: ctx.clock }) },
  });
  let user: { id: string; username: string };
  try {
    const res = await me.users.me();
    if (!res.data) throw new UserError("the service did not say who signed in (GET /2/users/me had no data)");
    user = res.data;
  } finally {
    await me.close();
  }
  const name = options.account ?? user.username;
  const record = saveAccount(ctx.store, {
    name,
    base_url: baseUrl.href,
    user_id: user.id,
    username: user.username,
    pkce: { ...tokens, client_id: client.clientId },
    updated_at: new Date(ctx.clock.now()).toISOString(),
  });
  await ctx.store.flush();
  if (!tokens.refresh_token)
    ctx.terminal.print(
      "Note: no refresh token was granted (ask for offline.access); the token stops working in two hours.",
    );
  ctx.terminal.print(
    `Signed in with PKCE: account ${name} is @${user.username} (user ${user.id}), scopes ${(tokens.scopes.length ? tokens.scopes : scopes).join(" ")}; tokens stored in ${ctx.statePath}.`,
  );
  return record;
}
