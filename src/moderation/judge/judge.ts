/**
 * A judge: the second opinion the `moderate` plugin asks about the replies the built-in
 * classifier is unsure of. It puts together the judge's wire format (`clients.ts`), its
 * limits (`limits.ts`), a cache of its opinions by text, and the report of its outages:
 *
 * - **Bounded wait**: an opinion is given, or refused, within `timeoutMs` on the clock
 *   (waiting for a slot, a token of the rate limit and the answer together), so a handler
 *   never waits for a judge longer than that, and a hanging judge costs each reply its
 *   timeout at most.
 * - **Never a reason to fail a reply**: every failure comes back as `{ok: false}` with a
 *   {@link JudgeError}; the caller keeps the built-in's verdict.
 * - **Once per outage**: the first failure after an answer logs a warning naming the judge
 *   and why; the failures after it are only counted (`moderationTallies.judgeFailures`);
 *   the first answer after an outage logs that it is back, with how long it was out and how
 *   many replies it missed.
 * - **Shared**: {@link sharedJudge} gives every bot of the process that names the same server,
 *   model and key the same judge, so its limits and cache are the judge's, not each bot's.
 *
 * The key is sent to the judge's server only; it is never logged, and the judge's name in
 * logs and metrics is made of its kind, model and address.
 */
import { createHash } from "node:crypto";
import type { Clock } from "../../clock.ts";
import type { Logger } from "../../log.ts";
import { moderationTallies } from "../tallies.ts";
import { judgeCall, type JudgeCall, type JudgeConfig, type JudgeOpinion } from "./clients.ts";
import { JudgeLimits } from "./limits.ts";
import { JudgeError } from "./request.ts";

/** A judge's settings: its server and its limits. */
export interface JudgeSettings extends JudgeConfig {
  /** How long a reply may wait for an opinion, all included (default 3 s). */
  timeoutMs?: number;
  /** Requests in flight at once (default 4). */
  concurrency?: number;
  /** Requests a minute (default 60). */
  perMinute?: number;
  /** Opinions kept by text (default 1,000; the oldest go first). */
  cacheSize?: number;
}

/** What asking a judge came to. */
export type JudgeResult = { ok: true; opinion: JudgeOpinion; cached: boolean } | { ok: false; error: JudgeError };

export const JUDGE_DEFAULTS = { timeoutMs: 3_000, concurrency: 4, perMinute: 60, cacheSize: 1_000 } as const;

/** A judge's name in logs and metrics: kind, model and address, never the key. */
export function judgeName(config: JudgeConfig): string {
  let where = config.url;
  try {
    const u = new URL(config.url);
    where = `${u.host}${u.pathname.replace(/\/+$/, "")}`;
  } catch {
    // an unparsable URL is refused by the options; keep it as written
  }
  return `${config.kind}${config.model ? ` ${config.model}` : ""} at ${where}`;
}

/** A judge's timeout, limits and cache size, defaults filled in. */
function limitsOf(config: JudgeSettings): Judge["settings"] {
  return {
    timeoutMs: config.timeoutMs ?? JUDGE_DEFAULTS.timeoutMs,
    concurrency: config.concurrency ?? JUDGE_DEFAULTS.concurrency,
    perMinute: config.perMinute ?? JUDGE_DEFAULTS.perMinute,
    cacheSize: config.cacheSize ?? JUDGE_DEFAULTS.cacheSize,
  };
}

/** One judge; see the module comment. */
export class Judge {
  readonly name: string;
  readonly settings: Required<Pick<JudgeSettings, "timeoutMs" | "concurrency" | "perMinute" | "cacheSize">>;
  private readonly call: JudgeCall;
  private readonly limits: JudgeLimits;
  private readonly cache = new Map<string, JudgeOpinion>();
  /** Opinions being asked now, by text: a second reply with the same text waits for the first's. */
  private readonly asking = new Map<string, Promise<JudgeResult>>();
  /** The outage under way: since when, and how many replies it missed. */
  private outage: { since: number; missed: number } | undefined;

  constructor(
    readonly config: JudgeSettings,
    private readonly clock: Clock,
    private readonly log: Logger,
    call?: JudgeCall,
  ) {
    this.name = judgeName(config);
    this.settings = limitsOf(config);
    this.call = call ?? judgeCall(config);
    this.limits = new JudgeLimits(clock, {
      concurrency: this.settings.concurrency,
      perMinute: this.settings.perMinute,
    });
  }

  /** Whether an outage is under way (the last request failed). */
  get out(): boolean {
    return this.outage !== undefined;
  }

  /** The cached opinion of a text, if the judge gave one. */
  cached(text: string): JudgeOpinion | undefined {
    return this.cache.get(text);
  }

  /** The judge's opinion of `text`, or why there is none; never throws. */
  opinion(text: string): Promise<JudgeResult> {
    const hit = this.cache.get(text);
    if (hit) {
      // Most recently used last: the oldest entry is the first to go.
      this.cache.delete(text);
      this.cache.set(text, hit);
      return Promise.resolve({ ok: true, opinion: hit, cached: true });
    }
    const pending = this.asking.get(text);
    if (pending) return pending;
    const asked = this.ask(text).finally(() => this.asking.delete(text));
    this.asking.set(text, asked);
    return asked;
  }

  private async ask(text: string): Promise<JudgeResult> {
    const started = this.clock.now();
    const deadline = started + this.settings.timeoutMs;
    const controller = new AbortController();
    const cancel = this.clock.setTimeout(
      () => controller.abort(new JudgeError("timeout", `no answer within ${this.settings.timeoutMs} ms`)),
      this.settings.timeoutMs,
    );
    let release: (() => void) | undefined;
    try {
      release = await this.limits.acquire(controller.signal, deadline);
      const opinion = await this.call(text, controller.signal, this.clock.now());
      this.answered();
      this.remember(text, opinion);
      return { ok: true, opinion, cached: false };
    } catch (err) {
      const error =
        err instanceof JudgeError
          ? controller.signal.aborted && err.reason !== "timeout"
            ? new JudgeError("timeout", `no answer within ${this.settings.timeoutMs} ms`)
            : err
          : new JudgeError("bad-answer", `failed: ${(err as Error)?.message ?? String(err)}`);
      if (error.reason === "rate-limited" && error.retryAfterMs !== undefined) this.limits.pause(error.retryAfterMs);
      this.failed(error);
      return { ok: false, error };
    } finally {
      cancel();
      release?.();
    }
  }

  private remember(text: string, opinion: JudgeOpinion): void {
    this.cache.set(text, opinion);
    if (this.cache.size > this.settings.cacheSize) this.cache.delete(this.cache.keys().next().value!);
  }

  private failed(error: JudgeError): void {
    moderationTallies.judgeFailures.inc({ judge: this.name, reason: error.reason });
    if (this.outage) {
      this.outage.missed++;
      return;
    }
    this.outage = { since: this.clock.now(), missed: 1 };
    this.log.warn(
      { judge: this.name, reason: error.reason, ...(error.status ? { status: error.status } : {}) },
      `moderation judge ${this.name} ${error.message}; the built-in classifier's verdicts stand until it answers again (logged once per outage)`,
    );
  }

  private answered(): void {
    if (!this.outage) return;
    const { since, missed } = this.outage;
    this.outage = undefined;
    const seconds = Math.round((this.clock.now() - since) / 1000);
    this.log.info(
      { judge: this.name, out_s: seconds, missed },
      `moderation judge ${this.name} answers again after ${seconds} s; it missed ${missed} ${missed === 1 ? "reply" : "replies"}, judged by the built-in classifier alone`,
    );
  }
}

/**
 * The process's judges, by clock (one in a process; a test's runtimes each have theirs) and
 * by what makes two the same (see {@link sharedJudge}).
 */
let judges = new WeakMap<Clock, Map<string, Judge>>();

/** What makes two bots' judges one: kind, address, model, prompt and key (by digest). */
function identity(config: JudgeConfig): string {
  const key = config.key ? createHash("sha256").update(config.key).digest("hex").slice(0, 16) : "";
  return [config.kind, config.url.replace(/\/+$/, ""), config.model ?? "", config.prompt ?? "", key].join(" ");
}

/**
 * The process's judge for these settings: the same object for every bot naming the same
 * server, model and key, so they share its limits, cache and outage report. The first bot's
 * timeout and limits are the judge's; a later bot asking for others is told so in the log.
 * The judge waits on `clock` and logs with `log` (the first bot's: it names the judge).
 */
export function sharedJudge(settings: JudgeSettings, clock: Clock, log: Logger): Judge {
  const id = identity(settings);
  let mine = judges.get(clock);
  if (!mine) judges.set(clock, (mine = new Map()));
  const found = mine.get(id);
  if (found) {
    const asked = limitsOf(settings);
    const differ = (Object.keys(asked) as Array<keyof typeof asked>).filter((k) => asked[k] !== found.settings[k]);
    if (differ.length > 0)
      log.warn(
        { judge: found.name },
        `moderation judge ${found.name} is shared with another bot, whose ${differ.join(", ")} it keeps (${differ.map((k) => `${k} ${found.settings[k]}`).join(", ")})`,
      );
    return found;
  }
  const judge = new Judge(settings, clock, log);
  mine.set(id, judge);
  return judge;
}

/**
 * Forgets every shared judge (their caches and outages). A process never needs it; a test
 * that restarts a runtime in the same process does, to show what the restart keeps.
 */
export function forgetSharedJudges(): void {
  judges = new WeakMap();
}
