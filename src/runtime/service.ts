/**
 * Which service `bot start` talks to, and with which credentials: from the environment (or
 * `.env`), `POSTBOT_BASE_URL`, `POSTBOT_CONSUMER_KEY`, `POSTBOT_CONSUMER_SECRET`; each bot's
 * account from its file (`account: {token, token_secret}`) or from the state store
 * (`bot auth login --account NAME`). Every missing piece is one message saying how to supply
 * it, and all of them are reported at once.
 */
import { fingerprint } from "../api/auth/credentials.ts";
import { secureBaseUrl } from "../api/secure-origin.ts";
import { getAccount } from "../auth-flows/accounts.ts";
import { notSetMessage } from "../auth-flows/app-settings.ts";
import type { BotConfig } from "../config/index.ts";
import { UserError } from "../errors.ts";
import type { Store } from "../store/store.ts";
import type { AppCredentials, HostedBot } from "./runtime.ts";

export type Vars = Readonly<Record<string, string | undefined>>;

/** Whether the environment names a service; without one, `bot start` runs the embedded sandbox. */
export const hasService = (vars: Vars) => !!vars.POSTBOT_BASE_URL?.trim();

/**
 * The bots with their app and account on the real service (or a separate `bot sandbox`).
 * A bot file's `app:` names its app; the others share the app of `POSTBOT_CONSUMER_KEY`
 * (needed only when some bot names none). The bots of one app must name the same plan.
 */
export function resolveService(vars: Vars, envFile: string, bots: readonly BotConfig[], store: Store): { baseUrl: string; bots: HostedBot[] } {
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
  if (plans.length > 1) {
    const which = plans.map((p) => `${p}: ${defaultBots.filter((b) => b.plan === p).map((b) => b.name).join(", ")}`).join("; ");
    problems.push(`the bots that name no app share one (POSTBOT_CONSUMER_KEY), and an app has one plan, but they name several (${which}); give them all the app's plan, or give some their own app: {consumer_key, consumer_secret}`);
  }
  const enrolment = vars.POSTBOT_ENROLMENT_DAY?.trim();
  const enrolmentDay = enrolment ? Number(enrolment) : undefined;
  if (enrolmentDay !== undefined && !(Number.isInteger(enrolmentDay) && enrolmentDay >= 1 && enrolmentDay <= 31)) {
    problems.push(`POSTBOT_ENROLMENT_DAY is "${enrolment}": give the day of the month (1-31) the app enrolled, when the monthly read cap resets`);
  }
  const envApp: AppCredentials = { id: fingerprint(key || "none"), key, secret, plan: plans[0] ?? "basic", ...(enrolmentDay ? { enrolmentDay } : {}) };
  const apps = new Map<string, AppCredentials>();
  const appOf = (config: BotConfig): AppCredentials => {
    if (!config.app) return envApp;
    const known = apps.get(config.app.consumer_key);
    if (known) return known;
    const app: AppCredentials = { id: fingerprint(config.app.consumer_key), key: config.app.consumer_key, secret: config.app.consumer_secret, plan: config.plan, ...(enrolmentDay ? { enrolmentDay } : {}) };
    apps.set(config.app.consumer_key, app);
    return app;
  };

  const hosted: HostedBot[] = [];
  for (const config of bots) {
    const app = appOf(config);
    if (config.account.kind === "oauth1") {
      hosted.push({ config, app, token: { token: config.account.token, secret: config.account.token_secret } });
      continue;
    }
    const name = config.account.stored;
    const record = getAccount(store, name);
    if (!record?.oauth1) {
      problems.push(
        `${config.file}: bot ${config.name} uses the stored account "${name}", which ${record ? "has no OAuth 1.0a token" : "is not stored"}; sign it in with \`bot auth login --account ${name}\`, or give account: {token, token_secret} in the bot file`,
      );
      continue;
    }
    if (record.oauth1.consumer_key !== app.key) {
      problems.push(`${config.file}: the stored account "${name}" was signed in for another app (API key); sign it in again with \`bot auth login --account ${name}\``);
      continue;
    }
    hosted.push({ config, app, token: { token: record.oauth1.token, secret: record.oauth1.secret } });
  }
  if (problems.length > 0) throw new UserError(problems.join("\n"));
  return { baseUrl: secureBaseUrl(rawUrl, "POSTBOT_BASE_URL").href.replace(/\/$/, ""), bots: hosted };
}
