/**
 * The basic plan's monthly read cap (spec 8.1 rule 5): posts read through recent search and
 * the filtered stream, counted per app over the period the enrolment day starts (the
 * calendar is ./budget-month.ts). When it is spent, those reads wait until the next
 * enrolment day, and that is logged once.
 */
import type { WindowBook } from "./book.ts";
import { capPeriod } from "./budget-month.ts";
import { MONTHLY_POST_CAP } from "./plan-limits.ts";
import type { Plan } from "./types.ts";

/** The monthly read cap's state for one app. */
export interface MonthlyUsage {
  cap: number;
  used: number;
  periodStart: number;
  resetAt: number;
}

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** The monthly read cap of one app, read and counted through the book. */
export class MonthlyCap {
  constructor(
    private readonly book: WindowBook,
    private readonly appId: string,
    private readonly plan: Plan,
    private readonly enrolmentDay: number,
  ) {}

  /** The cap's state now, when the plan has one. */
  usage(): MonthlyUsage | undefined {
    const cap = MONTHLY_POST_CAP[this.plan];
    if (cap === undefined) return undefined;
    const { start, end } = capPeriod(this.book.clock.now(), this.enrolmentDay);
    return { cap, used: this.book.postsRead(this.appId, { start, end }), periodStart: start, resetAt: end };
  }

  /** Why a spent cap holds a read back. */
  reason(usage: MonthlyUsage): string {
    return `the ${this.plan} plan's monthly cap of ${usage.cap} posts read through recent search and the filtered stream is spent; these reads wait until the enrolment day, ${day(usage.resetAt)}`;
  }

  /** Counts posts delivered by a capped endpoint (recent search, the filtered stream). */
  count(n: number): void {
    const usage = this.usage();
    if (!usage || !(n > 0)) return;
    const spentBefore = usage.used >= usage.cap;
    this.book.countPostsRead(this.appId, { start: usage.periodStart, end: usage.resetAt }, n);
    if (!spentBefore && usage.used + n >= usage.cap) this.logSpent(usage);
  }

  /** The service answered `usage-capped`: the cap is spent whatever the local count says. */
  markSpent(): void {
    const usage = this.usage();
    if (!usage || usage.used >= usage.cap) return;
    this.book.countPostsRead(this.appId, { start: usage.periodStart, end: usage.resetAt }, usage.cap - usage.used);
    this.logSpent(usage);
  }

  private logSpent(usage: MonthlyUsage): void {
    this.book.log.warn(
      { app: this.appId, cap: usage.cap, reset_at: new Date(usage.resetAt).toISOString() },
      `the monthly cap of ${usage.cap} posts read through recent search and the filtered stream is spent; those reads wait until the enrolment day, ${day(usage.resetAt)}`,
    );
  }
}
