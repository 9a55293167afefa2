/**
 * The plugin API's old spellings keep working for one release, each telling the log once per
 * process and plugin what to write instead, so an upgrade breaks nothing and the log says what
 * to change before the next one does. "Once" is kept by the process's runtime
 * ({@link DeprecationWarnings}, one per runtime), not by this module: a test's runtime (a
 * test bed) starts with nothing told, whatever ran before it in the same process.
 */
import type { Logger } from "../log.ts";

/** The old spellings still accepted, and what replaces each. */
export const DEPRECATED = {
  publish: { old: "ctx.post(text)", now: "ctx.publish(text)" },
  remaining: { old: "ctx.actions.remaining(kind)", now: "ctx.budget.remaining(kind)" },
  api: { old: "ctx.api", now: "ctx.unbudgetedApi" },
} as const;

/** The old spellings a runtime's plugins were told about: one per runtime (src/hosting/runtime.ts), shared by its bots. */
export class DeprecationWarnings {
  private readonly warned = new Set<string>();

  /** Logs, the first time `plugin` uses the old spelling `which`, that it is deprecated and what replaces it. */
  warn(log: Logger, plugin: string | undefined, which: keyof typeof DEPRECATED): void {
    const key = `${plugin ?? ""}\0${which}`;
    if (this.warned.has(key)) return;
    this.warned.add(key);
    const { old, now } = DEPRECATED[which];
    log.warn(
      { deprecated: old, use: now },
      `plugin ${plugin ?? "(unnamed)"} uses ${old}, which is deprecated and goes in the next release; write ${now}`,
    );
  }
}
