/**
 * Runs one event through a bot's handlers: in the order the bot's YAML lists its plugins,
 * each inside an error boundary and a time limit, so one broken or hanging plugin is logged
 * with its bot, plugin and event, and the others still run.
 */
import type { Clock } from "../clock.ts";
import type { Logger } from "../log.ts";

export interface HandlerEntry<C> {
  /** The plugin that registered the handler (for logs). */
  plugin: string;
  handler: (ctx: C) => unknown;
}

export interface DispatchOptions<C> {
  clock: Clock;
  log: Logger;
  /** How long one handler may take before it is abandoned and logged (default 30 s). */
  timeoutMs?: number;
  /**
   * Checked after each handler: when true, the remaining handlers are not run. The runtime
   * stops an event once a handler hid its post, so no later plugin answers a hidden reply.
   */
  stop?: (ctx: C) => boolean;
  /**
   * Checked when a handler's time is up: while true (the handler is waiting for an action
   * the budget queue holds back), the limit is extended by another `timeoutMs`. A plugin
   * that awaits a reply on a small plan is waiting for the plan, not hanging.
   */
  busy?: (ctx: C) => boolean;
}

export interface DispatchReport {
  ran: string[];
  failed: Array<{ plugin: string; reason: "threw" | "timed out"; error?: unknown }>;
  stoppedAfter?: string;
}

class HandlerTimeout extends Error {}

const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  typeof (value as PromiseLike<unknown> | null)?.then === "function";

/**
 * Settles with the handler's promise, or rejects with {@link HandlerTimeout} once
 * `timeoutMs` passed on the clock while `busy` is false. One clock timer, no AbortSignal:
 * thousands of events a second each start one.
 */
function limited<C>(
  work: PromiseLike<unknown>,
  ctx: C,
  timeoutMs: number,
  options: DispatchOptions<C>,
): Promise<unknown> {
  return new Promise((resolve, reject) => {
    let cancel: (() => void) | undefined;
    const arm = () => {
      cancel = options.clock.setTimeout(() => {
        if (options.busy?.(ctx)) arm();
        else {
          cancel = undefined;
          reject(new HandlerTimeout());
        }
      }, timeoutMs);
    };
    arm();
    work.then(
      (value) => {
        cancel?.();
        resolve(value);
      },
      (error: unknown) => {
        cancel?.();
        reject(error);
      },
    );
  });
}

/**
 * Runs `entries` in order on `ctx`; never throws. A handler that returns synchronously needs
 * no time limit (it cannot hang the event without hanging the process), so only a returned
 * promise is raced against the clock.
 */
export async function dispatch<C>(
  entries: ReadonlyArray<HandlerEntry<C>>,
  ctx: C,
  options: DispatchOptions<C>,
): Promise<DispatchReport> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const report: DispatchReport = { ran: [], failed: [] };
  for (const { plugin, handler } of entries) {
    try {
      const result = handler(ctx);
      if (isThenable(result)) await limited(result, ctx, timeoutMs, options);
      report.ran.push(plugin);
    } catch (error) {
      if (error instanceof HandlerTimeout) {
        report.failed.push({ plugin, reason: "timed out" });
        options.log.error(
          { plugin, timeout_ms: timeoutMs },
          `plugin ${plugin} did not finish within ${timeoutMs} ms; going on without it`,
        );
      } else {
        report.failed.push({ plugin, reason: "threw", error });
        options.log.error(
          { plugin, err: error },
          `plugin ${plugin} threw: ${(error as Error)?.message ?? String(error)}`,
        );
      }
    }
    if (options.stop?.(ctx)) {
      report.stoppedAfter = plugin;
      break;
    }
  }
  return report;
}
