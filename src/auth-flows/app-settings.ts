/**
 * Which service and app `bot auth` works with: `POSTBOT_BASE_URL`, `POSTBOT_CONSUMER_KEY`,
 * `POSTBOT_CONSUMER_SECRET` (and, for PKCE, `POSTBOT_CLIENT_ID` and optionally
 * `POSTBOT_CLIENT_SECRET`), from the environment or a `.env` file, read the same way bot
 * files read theirs. A missing or bad value is a message naming the variable.
 */
import type { ConsumerCredentials } from "../api/auth/oauth1.ts";
import { secureBaseUrl } from "../api/secure-origin.ts";
import { loadEnv, notSetMessage } from "../config/env.ts";
import { UserError } from "../errors.ts";

export interface AppSettings {
  baseUrl: URL;
  consumer: ConsumerCredentials;
}

/** The variables, from `env` when given (tests), else the process environment and `.env` files. */
export function settingsEnv(
  env?: Readonly<Record<string, string | undefined>>,
  cwd?: string,
): { vars: Readonly<Record<string, string | undefined>>; file: string } {
  const loaded = loadEnv({ botsDir: "bots", ...(env ? { env } : {}), ...(cwd ? { cwd } : {}) });
  return { vars: loaded.vars, file: loaded.suggestedFile };
}

function required(
  vars: Readonly<Record<string, string | undefined>>,
  name: string,
  file: string,
  what: string,
): string {
  const v = vars[name]?.trim();
  if (!v) throw new UserError(notSetMessage(name, what, file));
  return v;
}

/** The service's base URL (checked: HTTPS, or HTTP to loopback). */
export function baseUrlFrom(vars: Readonly<Record<string, string | undefined>>, file: string): URL {
  const raw = required(vars, "POSTBOT_BASE_URL", file, APP_VARIABLES[0][1]);
  return secureBaseUrl(raw, "POSTBOT_BASE_URL");
}

/** What each setting of the app is, for the message when it is not set. */
const APP_VARIABLES = [
  ["POSTBOT_BASE_URL", "the address of the service (or of a running `bot sandbox`)"],
  ["POSTBOT_CONSUMER_KEY", "the app's API key"],
  ["POSTBOT_CONSUMER_SECRET", "the app's API key secret"],
] as const;

/** Base URL and the app's API key and secret; every one not set is named at once, not one per try. */
export function appSettings(vars: Readonly<Record<string, string | undefined>>, file: string): AppSettings {
  const missing = APP_VARIABLES.filter(([name]) => !vars[name]?.trim());
  if (missing.length > 0)
    throw new UserError(missing.map(([name, what]) => notSetMessage(name, what, file)).join("\n"));
  return {
    baseUrl: baseUrlFrom(vars, file),
    consumer: {
      key: required(vars, "POSTBOT_CONSUMER_KEY", file, APP_VARIABLES[1][1]),
      secret: required(vars, "POSTBOT_CONSUMER_SECRET", file, APP_VARIABLES[2][1]),
    },
  };
}

/** The OAuth 2.0 client of the app, for PKCE. */
export function pkceClientFrom(
  vars: Readonly<Record<string, string | undefined>>,
  file: string,
): { clientId: string; clientSecret?: string } {
  const clientId = required(vars, "POSTBOT_CLIENT_ID", file, "the app's OAuth 2.0 client id (PKCE)");
  const secret = vars.POSTBOT_CLIENT_SECRET?.trim();
  return secret ? { clientId, clientSecret: secret } : { clientId };
}
