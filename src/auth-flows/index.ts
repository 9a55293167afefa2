/**
 * Signing accounts in from a terminal (`bot auth`): the OAuth 1.0a 3-legged flow, PKCE,
 * the app's bearer token, signing out and listing, over the state store. The runtime reads
 * the stored accounts with `getAccount` (../credentials/accounts.ts).
 */
export {
  ACCOUNTS_NAMESPACE,
  APP_TOKENS_NAMESPACE,
  getAccount,
  listAccounts,
  saveAccount,
  removeAccount,
  appTokenKey,
  type AccountRecord,
  type AccountSummary,
  type AppTokenRecord,
} from "../credentials/accounts.ts";
export { pickAccount } from "./accounts.ts";
export { appSettings, settingsEnv, type AppSettings } from "./app-settings.ts";
export type { AuthFlowContext } from "./context.ts";
export { login, verifierFrom, type LoginOptions } from "./login.ts";
export { logout, type LogoutOptions } from "./logout.ts";
export { pkceLogin, type PkceLoginOptions } from "./pkce-login.ts";
export { bearer, type BearerOptions } from "./bearer.ts";
export { list } from "./list.ts";
export { streamTerminal, type Terminal } from "./terminal.ts";
