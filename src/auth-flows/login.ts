/**
 * `bot auth login`: the 3-legged OAuth 1.0a flow in a terminal. It prints the authorize
 * URL, reads the PIN (or, with a callback URL, the address the browser was sent to), trades
 * it for the account's access token and stores the token and secret in the state store.
 */
import { accessToken, authorizeUrl, requestToken } from "../api/auth/oauth1-flow.ts";
import { UserError } from "../errors.ts";
import { saveAccount, type AccountRecord } from "../credentials/accounts.ts";
import { ACCOUNT_NAME, checkAccountOption } from "./accounts.ts";
import { appSettings } from "./app-settings.ts";
import type { AuthFlowContext } from "./context.ts";

export interface LoginOptions {
  /** The account's name in the store (default: the screen name the service returns). */
  account?: string;
  /** `oob` (PIN, the default) or a callback URL registered on the app. */
  callback?: string;
}

/** Reads the verifier from what the person pasted: a PIN, a bare verifier, or the callback address. */
export function verifierFrom(answer: string, requestTokenValue: string): string {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(answer)) return answer;
  const url = new URL(answer);
  const token = url.searchParams.get("oauth_token");
  const verifier = url.searchParams.get("oauth_verifier");
  if (url.searchParams.get("denied"))
    throw new UserError("the authorization was cancelled on the service's page; nothing was stored");
  if (!verifier)
    throw new UserError(
      "that address has no oauth_verifier parameter; paste the whole address the browser was sent to after approving",
    );
  if (token && token !== requestTokenValue)
    throw new UserError("that address is for another sign-in (its oauth_token differs); run bot auth login again");
  return verifier;
}

export async function login(ctx: AuthFlowContext, options: LoginOptions = {}): Promise<AccountRecord> {
  checkAccountOption(options.account);
  const { baseUrl, consumer } = appSettings(ctx.vars, ctx.envFile);
  const callback = options.callback ?? "oob";
  if (callback !== "oob" && !/^[a-z][a-z0-9+.-]*:/i.test(callback)) {
    throw new UserError(
      `--callback ${JSON.stringify(callback)}: give "oob" (PIN) or the callback URL registered on the app`,
      { exitCode: 2 },
    );
  }
  const rt = await requestToken(baseUrl, { consumer, callback, clock: ctx.clock });
  ctx.terminal.print("Open this page in a browser, sign in as the bot's account and authorize the app:");
  ctx.terminal.print(`  ${authorizeUrl(baseUrl, rt.token)}`);
  const answer = await ctx.terminal.ask(
    callback === "oob" ? "Then type the PIN shown: " : "Then paste the address the browser was sent to: ",
  );
  const verifier = verifierFrom(answer, rt.token);
  const at = await accessToken(baseUrl, { consumer, requestToken: rt, verifier, clock: ctx.clock });
  const name = options.account ?? at.screenName;
  if (!ACCOUNT_NAME.test(name))
    throw new UserError(
      `the service's screen name ${JSON.stringify(name)} cannot be an account name; give one with --account NAME`,
    );
  const record = saveAccount(ctx.store, {
    name,
    base_url: baseUrl.href,
    user_id: at.userId,
    username: at.screenName,
    oauth1: { token: at.token, secret: at.secret, consumer_key: consumer.key },
    updated_at: new Date(ctx.clock.now()).toISOString(),
  });
  await ctx.store.flush();
  ctx.terminal.print(
    `Signed in: account ${name} is @${at.screenName} (user ${at.userId}); its token is stored in ${ctx.statePath}.`,
  );
  return record;
}
