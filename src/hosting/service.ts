/**
 * Which service `bot start` talks to, and with which credentials: from the environment (or
 * `.env`), `POSTBOT_BASE_URL`, `POSTBOT_CONSUMER_KEY`, `POSTBOT_CONSUMER_SECRET`; each bot's
 * account from its file (`account: {token, token_secret}`) or from the state store
 * (`bot auth login --account NAME`). Every missing piece is one message saying how to supply
 * it, and all of them are reported at once.
 */
import { backoffMs, isRevoked } from "../actions/index.ts";
import { fingerprint } from "../api/auth/fingerprint.ts";
import { requestToken } from "../api/auth/oauth1-flow.ts";
import { InvalidTokenError, NetworkError, OAuthError } from "../api/errors.ts";
import { ServiceTime } from "../api/service-time.ts";
import { secureBaseUrl } from "../api/secure-origin.ts";
import { getAccount } from "../credentials/accounts.ts";
import { appKeysHint, notSetMessage } from "../config/env.ts";
import type { Clock } from "../clock.ts";
import type { BotConfig } from "../config/index.ts";
import { UserError } from "../errors.ts";
import { templateOf } from "../store/dynamic-bots.ts";
import { silentLogger, type Logger } from "../log.ts";
import type { Store } from "../store/store.ts";
import type { AppCredentials, HostedBot } from "./types.ts";

export type Vars = Readonly<Record<string, string | undefined>>;

/** Whether the environment names a service; without one, `bot start` runs the embedded sandbox. */
export const hasService = (vars: Vars) => !!vars.POSTBOT_BASE_URL?.trim();

/**
 * The bots with their app and account on the real service (or a separate `bot sandbox`).
 * A bot file's `app:` names its app; the others share the app of `POSTBOT_CONSUMER_KEY`
 * (needed only when some bot names none). The bots of one app must name the same plan.
 */
export function resolveService(
  vars: Vars,
  envFile: string,
  bots: readonly BotConfig[],
  store: Store,
): { baseUrl: string; bots: HostedBot[] } {
  const { baseUrl, appOf, problems } = serviceApps(vars, envFile, bots);
  const hosted: HostedBot[] = [];
  for (const config of bots) {
    const bot = withAccount(config, appOf(config), store);
    if (typeof bot === "string") problems.push(bot);
    else hosted.push(bot);
  }
  if (problems.length > 0) throw new UserError(problems.join("\n"));
  return { baseUrl: baseUrl(), bots: hosted };
}

/**
 * A bot with its account, on an app worked out already for its configuration (a bot built
 * again from what was checked: ./fleet.ts `hydrate`). The app's key as the bot's file reads it
 * and the service's address were checked when the app was worked out; working them out again
 * for each of thousands of bots taken over after a process died (a digest of the key for each)
 * was a third of building them.
 *
 * @throws UserError when its stored account is missing or was signed in for another app.
 */
export function accountOf(config: BotConfig, app: AppCredentials, store: Store): HostedBot {
  const bot = withAccount(config, app, store);
  if (typeof bot === "string") throw new UserError(bot);
  return bot;
}

/**
 * The app a bot of this configuration runs on with the environment's service: the one its file
 * names, else the environment's (an account connecting with a template authorizes that app).
 */
export function serviceAppOf(vars: Vars, envFile: string, config: BotConfig): AppCredentials {
  const { appOf, problems } = serviceApps(vars, envFile, [config]);
  if (problems.length > 0) throw new UserError(problems.join("\n"));
  return appOf(config);
}

/** The service's address and each bot's app, with every setting missing or wrong. */
function serviceApps(
  vars: Vars,
  envFile: string,
  bots: readonly BotConfig[],
): { baseUrl(): string; appOf(config: BotConfig): AppCredentials; problems: string[] } {
  const problems: string[] = [];
  const need = (name: string, what: string) => {
    const v = vars[name]?.trim();
    if (!v) problems.push(notSetMessage(name, what, envFile));
    return v ?? "";
  };
  const rawUrl = need("POSTBOT_BASE_URL", "the address of the service");
  const defaultBots = bots.filter((b) => !b.app);
  const key = defaultBots.length > 0 ? need("POSTBOT_CONSUMER_KEY", "the app's API key") : "";
  const secret = defaultBots.length > 0 ? need("POSTBOT_CONSUMER_SECRET", "the app's API key secret") : "";

  const plans = [...new Set(defaultBots.map((b) => b.plan))];
  if (plans.length > 1) problems.push(severalPlans(defaultBots, plans));
  const enrolment = vars.POSTBOT_ENROLMENT_DAY?.trim();
  const enrolmentDay = enrolment ? Number(enrolment) : undefined;
  if (enrolmentDay !== undefined && !(Number.isInteger(enrolmentDay) && enrolmentDay >= 1 && enrolmentDay <= 31)) {
    problems.push(
      `POSTBOT_ENROLMENT_DAY is "${enrolment}": give the day of the month (1-31) the app enrolled, when the monthly read cap resets`,
    );
  }
  const envApp: AppCredentials = {
    id: fingerprint(key || "none"),
    key,
    secret,
    plan: plans[0] ?? "basic",
    ...(enrolmentDay ? { enrolmentDay } : {}),
  };
  const apps = new Map<string, AppCredentials>();
  const appOf = (config: BotConfig): AppCredentials => {
    if (!config.app) return envApp;
    const known = apps.get(config.app.consumer_key);
    if (known) return known;
    const app: AppCredentials = {
      id: fingerprint(config.app.consumer_key),
      key: config.app.consumer_key,
      secret: config.app.consumer_secret,
      plan: config.plan,
      ...(enrolmentDay ? { enrolmentDay } : {}),
    };
    apps.set(config.app.consumer_key, app);
    return app;
  };
  // Checked once every setting is known to be there, so all missing ones are named at once.
  const baseUrl = () => secureBaseUrl(rawUrl, "POSTBOT_BASE_URL").href.replace(/\/$/, "");
  return { baseUrl, appOf, problems };
}

/** The problem of bots that share the environment's app but name different plans. */
function severalPlans(defaultBots: readonly BotConfig[], plans: readonly string[]): string {
  const which = plans
    .map(
      (p) =>
        `${p}: ${defaultBots
          .filter((b) => b.plan === p)
          .map((b) => b.name)
          .join(", ")}`,
    )
    .join("; ");
  return `the bots that name no app share one (POSTBOT_CONSUMER_KEY), and an app has one plan, but they name several (${which}); give them all the app's plan, or give some their own app: {consumer_key, consumer_secret}`;
}

/** A bot with its app and its account's token (from its file, or signed in and stored), or what is wrong. */
function withAccount(config: BotConfig, app: AppCredentials, store: Store): HostedBot | string {
  if (config.account.kind === "oauth1")
    return { config, app, token: { token: config.account.token, secret: config.account.token_secret } };
  const name = config.account.stored;
  const record = getAccount(store, name);
  if (!record?.oauth1)
    return `${config.file}: bot ${config.name} uses the stored account "${name}", which ${record ? "has no OAuth 1.0a token" : "is not stored"}; sign it in with \`bot auth login --account ${name}\`, or give account: {token, token_secret} in the bot file`;
  if (record.oauth1.consumer_key !== app.key)
    return `${config.file}: the stored account "${name}" was signed in for another app (API key); sign it in again with \`bot auth login --account ${name}\``;
  const user = record.user_id && record.username ? { user: { id: record.user_id, username: record.username } } : {};
  return { config, app, token: { token: record.oauth1.token, secret: record.oauth1.secret }, ...user };
}

/** How long `bot start` waits between tries while the service cannot be reached: 1 s doubling to 1 min. */
export const UNREACHABLE_RETRY = { firstDelayMs: 1_000, maxDelayMs: 60_000, maxAttempts: Number.POSITIVE_INFINITY };

export interface ServiceCheck {
  baseUrl: string;
  app: AppCredentials;
  /** Where the keys were read from, for the message when they are refused. */
  envFile: string;
  clock: Clock;
  logger: Logger;
  /** Stops the waiting (SIGINT while the service is down). */
  signal?: AbortSignal;
}

/**
 * Before any bot starts: is the service there, and does it accept the app's keys? One call
 * signed with the keys alone (`POST /oauth/request_token`, the first step of a sign-in, which
 * spends no bot's budget) answers both. While the service cannot be reached, this says so
 * and tries again, 1 s doubling to a minute, until it answers (a service manager starting
 * postbot before the network, a sandbox started second). Keys the service refuses (401,
 * code 32) are the user's to fix: a {@link UserError} naming the variables. Any other answer
 * means the keys were accepted (a 403 for the PIN callback still verified the signature).
 * A signature refused for its time (401, code 135: this machine's clock is off) is signed
 * again with the service's time, read from the `Date` of its answer, as the bots' requests are
 * (../api/service-time.ts; their client says how far off the clock is): only a service whose
 * time cannot be read stops the start.
 */
export async function checkService(check: ServiceCheck): Promise<void> {
  const { baseUrl, app, clock, logger, signal } = check;
  let signing: Clock = clock;
  for (let attempt = 1; ; attempt++) {
    try {
      await requestToken(baseUrl, {
        consumer: { key: app.key, secret: app.secret },
        callback: "oob",
        clock: signing,
        ...(signal ? { signal } : {}),
      });
    } catch (err) {
      if (err instanceof NetworkError && !err.aborted) {
        const delay = backoffMs(attempt, UNREACHABLE_RETRY);
        logger.warn(
          { service: baseUrl, code: err.code, attempt },
          `cannot reach the service at ${baseUrl} (${err.message.replace(/^\S+ \S+: /, "")}); trying again in ${delay / 1000} s (Ctrl-C stops)`,
        );
        await clock.sleep(delay, signal);
        continue;
      }
      if (err instanceof OAuthError && err.code === 32) {
        throw new UserError(
          `the service at ${baseUrl} refused the app's keys (401, code 32 "Could not authenticate you"); ${appKeysHint(check.envFile)}`,
          { cause: err },
        );
      }
      if (err instanceof OAuthError && err.code === 135) {
        if (signing === clock) {
          const time = new ServiceTime(clock, silentLogger);
          if (time.observe(await serviceDate(baseUrl, signal))) {
            signing = { ...clock, now: () => time.now() };
            continue;
          }
        }
        throw new UserError(
          `the service at ${baseUrl} says this machine's clock is off (401, code 135 "Timestamp out of bounds"); set the system clock right (NTP) and start again`,
          { cause: err },
        );
      }
      if (signal?.aborted) throw signal.reason;
      // Any other answer came from the service and did not refuse the keys.
    }
    if (attempt > 1) logger.info({ service: baseUrl }, `the service at ${baseUrl} answers; starting the bots`);
    return;
  }
}

/** The `Date` header of the service's answer to a plain request (undefined when it gives none). */
async function serviceDate(baseUrl: string, signal?: AbortSignal): Promise<string | undefined> {
  try {
    const res = await fetch(baseUrl, { method: "HEAD", ...(signal ? { signal } : {}) });
    await res.body?.cancel();
    return res.headers.get("date") ?? undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether the service refused a bot's own account when asked who it is: its token revoked
 * (401, code 89), or a token or token secret it does not know (401, code 32, once
 * {@link checkService} has shown the app's keys are good). That bot is paused; the others go on.
 */
export const accountRefused: (err: unknown) => boolean = isRevoked;

/**
 * Why a bot whose account the service refused is paused, and what to do: connect it again on
 * its connect page when it was made by connecting (`origin`), sign in again when the token was
 * stored by `bot auth login`, or check the token its bot file gives (`${VAR}`
 * reads the environment or `.env`), where signing in again would change nothing.
 */
export function refusedAccountReason(config: BotConfig, err: unknown, origin?: string): string {
  let refusal: OAuthError | undefined;
  for (let e = err as { cause?: unknown } | undefined, i = 0; e && i < 5 && !refusal; i++, e = e.cause as typeof e)
    if (e instanceof OAuthError) refusal = e;
  const what = refusal ? `${refusal.status}, code ${refusal.code}` : ((err as Error)?.message ?? String(err));
  // A bot made by connecting: its connect page first (what the account's person can do).
  const template = templateOf(origin);
  const login =
    config.account.kind === "stored"
      ? `sign it in again (bot auth login --account ${config.account.stored}) and restart`
      : "";
  const advice = template
    ? `connect the account again on its connect page (/connect/${template}), which restarts the bot${login ? `; or ${login}` : ""}`
    : login
      ? `${login}, or, for an account that connected itself, connect it again on its connect page`
      : `its token comes from account.token and account.token_secret in ${config.file}: check them (and the environment variables or .env lines they read) and restart`;
  return `the service refused the account's token (${what}); ${advice}`;
}
