/**
 * What accounts connecting themselves through the web (src/connect, `bot start --http`) need
 * of a started fleet, whichever service it runs against: the app a template's bot runs on (the
 * app the person authorizes), where sign-ins in progress are kept, and the check a bot file's
 * text passes.
 *
 * With the embedded sandbox, the app is the one provisioning gives the template's plan, and its
 * settings are made to list the connect pages' callback URL, as an operator lists it in a real
 * app's settings. Sign-ins in progress are kept in memory with the state in a directory (one
 * process serves every page), and in the state's Redis when processes share it, so a callback
 * reaching another process than the one that started the flow (a load balancer) finishes it.
 */
import type { Clock } from "../clock.ts";
import { loadBotText, loadEnv, PluginCache, type BotConfig } from "../config/index.ts";
import type { BotTextCheck } from "../config/template.ts";
import { redisPendingFlows } from "../redis/pending-flows.ts";
import type { SharedState } from "../redis/shared-state.ts";
import type { Sandbox } from "../sandbox/index.ts";
import { memoryPendingFlows, type PendingFlows } from "../store/pending-flows.ts";
import { sandboxApp } from "./provision.ts";
import { serviceAppOf, type Vars } from "./service.ts";
import type { AppCredentials } from "./types.ts";

/** See the module comment. */
export interface WebAccounts {
  /**
   * The app a bot of this configuration runs on (its file's, or the environment's); with the
   * embedded sandbox, one whose settings list `callback`.
   */
  app(config: BotConfig, callback: string): Promise<AppCredentials>;
  /** Where sign-ins in progress are kept: this process's memory, or the shared Redis. */
  flows<T>(): PendingFlows<T>;
  /** Checks a bot file's text as `bot validate` checks a file, with the fleet's plugins and environment. */
  check: BotTextCheck;
}

export interface WebAccountsOptions {
  sandbox?: Sandbox;
  /** The environment the bot files were read with (the service's app keys). */
  vars: Vars;
  envFile: string;
  /** The state's Redis, when processes share it. */
  shared?: Pick<SharedState, "redis" | "leases">;
  botsDir: string;
  pluginsDir: string;
  cwd?: string;
  env?: Readonly<Record<string, string | undefined>>;
  clock: Clock;
}

export function webAccounts(options: WebAccountsOptions): WebAccounts {
  const { sandbox, shared, clock } = options;
  const cwd = options.cwd ?? process.cwd();
  const plugins = new PluginCache(options.pluginsDir, cwd);
  return {
    async app(config, callback) {
      if (!sandbox) return serviceAppOf(options.vars, options.envFile, config);
      const app = await sandboxApp(sandbox, config.plan, config.app?.consumer_key);
      const listed = sandbox.context.data.auth.apps[app.id]?.callback_urls ?? [];
      if (!listed.includes(callback))
        await sandbox.admin.updateApp({ consumer_key: app.key, callback_urls: [...listed, callback] });
      return app;
    },
    flows: <T>() =>
      shared ? redisPendingFlows<T>(shared.redis, clock, shared.leases.prefix) : memoryPendingFlows<T>(clock),
    check: (file, text) =>
      loadBotText({
        file,
        text,
        // Read again each time, as the fleet reads it: a variable added to .env counts at once.
        env: loadEnv({ botsDir: options.botsDir, cwd, ...(options.env ? { env: options.env } : {}) }),
        others: [],
        plugins,
      }),
  };
}
