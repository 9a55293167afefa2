/**
 * The hub's side of the app's rules: a full sync before each connection that may have lost
 * them, and while connected, each change of the bots' wants sent as the smallest update
 * (./rules.ts), retried until it goes through or the hub closes. Syncs and updates run one at
 * a time: an update waits for the sync or update under way, and the changes that come while
 * it waits join it: it reads what is wanted when its turn comes, so it covers them all. (Each
 * waiting its own turn, the rules of 10,000 mention bots were planned again for every change
 * that came during one rules request, back to back, holding up every bot's events.) An update
 * also waits for the pace of the app's rule writes (./write-pacer.ts), and the changes that
 * come meanwhile join it too: the bots that join a running hub by the thousand get their
 * rules in few writes, and the app's window of rule writes never runs dry. When whoever
 * started the hub says when the changes pause ({@link RuleSyncDeps.settles}), an update that
 * finds only the pacer's kept writes left waits for that pause (or the pace), and then goes at once
 * with every change that came meanwhile: the last bots of a long start get their rules a
 * reading after the last was published, not a refill's time later. The mention rules are
 * planned by what a change moved (../mention-plan.ts), not for every bot again.
 *
 * When the app's rule cap leaves bots without a mention rule, they are taken off the
 * stream's routing and told to poll their mentions instead.
 */
import type { ApiClient } from "../../api/client.ts";
import type { EndpointKey } from "../../api/endpoints.ts";
import { NetworkError } from "../../api/errors.ts";
import type { Clock } from "../../clock.ts";
import type { Logger } from "../../log.ts";
import { MentionPlan } from "../mention-plan.ts";
import type { RuleCaps } from "../mention-rules.ts";
import { apiErrorOf, messageOf } from "./failures.ts";
import type { Routes } from "./routing.ts";
import { checkAppRules, syncAppRules, updateAppRules, type SyncedRules, type WantedMentions } from "./rules.ts";
import type { Budgeted } from "./search.ts";
import type { HubStatus } from "./status.ts";
import { WritePacer, type RuleWriteWindow } from "./write-pacer.ts";

/** What the rules are kept with. */
export interface RuleSyncDeps {
  appId: string;
  clock: Clock;
  log: Logger;
  budgeted: Budgeted;
  caps: RuleCaps;
  /** The plan's window of rule writes: updates are paced within it (./write-pacer.ts). */
  ruleWrites?: RuleWriteWindow;
  /**
   * Whoever started the hub tells it when the bots' changes pause ({@link RuleSync.settled}):
   * an update may then wait for the pause while the changes keep coming (./write-pacer.ts).
   * Without, every update goes as soon as the window's pace lets it.
   */
  settles?: boolean;
  /** A client with the app's bearer token, for each attempt. */
  client(): Promise<ApiClient>;
  /** The service refused the bearer token: the next client fetches a new one. */
  forgetBearer(): void;
  /** Bots the mention rules could not cover: they must poll. */
  onOverflow?(bots: string[]): void;
  routes: Routes;
  status: HubStatus;
  /** Aborts when the hub closes. */
  closed: AbortSignal;
}

const RULE_WRITES = "POST /2/posts/search/stream/rules";

/** A rules request the hub no longer sends, having closed while it waited for the budget. */
const hubClosed = (endpoint: EndpointKey) => {
  const [method, path] = endpoint.split(" ") as [string, string];
  return new NetworkError({ method, path, endpoint }, "the stream hub closed before the request went", {
    aborted: true,
    code: "ABORT_ERR",
  });
};

/** The app's rules as the hub keeps them; see the module comment. */
export class RuleSync {
  /** The rules as last synced or updated; none before the first sync, or once they may be wrong. */
  private rules: SyncedRules | undefined;
  /** Syncs and updates, one at a time. */
  private work: Promise<unknown> = Promise.resolve();
  /** Updates sending their requests now (not waiting for the clock to retry). */
  private applying = 0;
  /** The update waiting for its turn, which the changes that come meanwhile join. */
  private waiting: Promise<void> | undefined;
  /** The mention rules' plan, kept between changes: a change plans what it moved (../mention-plan.ts). */
  private readonly plan: MentionPlan;
  /** The pace of rule writes, when the plan's window is known. */
  private readonly pacer: WritePacer | undefined;
  /** The requests of syncs and updates: each rule write spends the pacer's. */
  private readonly budgeted: Budgeted;
  /** Whether the bots' changes have paused since the last one ({@link settled}). */
  private paused: boolean;
  /** Wakes the update waiting for the pace when the changes pause. */
  private hurry: AbortController | undefined;

  constructor(private readonly deps: RuleSyncDeps) {
    this.plan = new MentionPlan(deps.caps);
    this.paused = !deps.settles;
    const pacer = deps.ruleWrites ? new WritePacer(deps.ruleWrites, deps.clock) : undefined;
    this.pacer = pacer;
    this.budgeted = (endpoint, run) => {
      if (endpoint === RULE_WRITES) pacer?.spent();
      return deps.budgeted(endpoint, async (signal) => {
        // The budget may let a request go long after it was asked for (a loaded process, a
        // shared budget that does not answer): a write of a hub that closed meanwhile would
        // land after the next hub, here or in another process, read the rules, and delete a
        // rule that hub keeps. So nothing goes once the hub closed.
        if (deps.closed.aborted) throw hubClosed(endpoint);
        return await run(AbortSignal.any([signal, deps.closed]));
      });
    };
  }

  /** Whether an update is sending its requests now. */
  busy(): boolean {
    return this.applying > 0;
  }

  /** The rule value of a rule id, as last synced. */
  valueOf(ruleId: string): string | undefined {
    return this.rules?.byId.get(ruleId)?.value;
  }

  /** The mention rules' values, as last synced. */
  mentionValues(): readonly string[] {
    return this.rules?.mentionValues ?? [];
  }

  /** The rules may be wrong or gone (the connection failed other than by a drop): sync them again before the next. */
  forget(): void {
    this.rules = undefined;
  }

  /** Syncs the rules with `client` before connecting, unless they are known to be right. */
  async syncIfNeeded(client: ApiClient): Promise<void> {
    if (this.rules) return;
    const { log } = this.deps;
    const { budgeted } = this;
    await this.exclusive(async () =>
      this.took(await syncAppRules({ client, log, budgeted }, this.deps.routes.merged, this.mentionsWanted())),
    );
  }

  /** The rules to what the bots want now, by the smallest change, once the sync or update before is done. */
  apply(): Promise<void> {
    // The update already waiting reads the wants when it starts: it covers this change too,
    // and so do the changes that come while it waits for the pace of rule writes.
    if (this.deps.settles) this.paused = false;
    this.waiting ??= this.exclusive(async () => {
      await this.paced();
      this.waiting = undefined;
      for (let attempt = 1; this.rules && !this.deps.closed.aborted; attempt++)
        if (await this.tryUpdate(attempt)) return;
    });
    return this.waiting;
  }

  /**
   * The bots' changes have paused (with {@link RuleSyncDeps.settles}: a reading of the app's
   * directory found nothing new): the update waiting for the pace goes as soon as the window
   * lets it, not when the pacer's kept writes are refilled (./write-pacer.ts).
   */
  settled(): void {
    this.paused = true;
    this.hurry?.abort();
    this.hurry = undefined;
  }

  /**
   * Reads the app's rules and, when they are not those this hub last synced or updated, makes
   * them right and says so once in the log. A write of a hub that ran the stream before may
   * land after this hub read the rules (sent just before that hub closed, or from a process
   * too loaded to stop it in time): it deletes a rule this hub keeps, and its bots had no rule
   * while the hub believed them covered. One read request (the rules' list), after the sync
   * or update under way; nothing per bot unless the rules differ. Only while the rules are
   * known (a hub about to sync them again needs no check).
   */
  check(): Promise<void> {
    return this.exclusive(async () => {
      const { deps } = this;
      const current = this.rules;
      if (!current || deps.closed.aborted) return;
      let client: ApiClient | undefined;
      this.applying++;
      try {
        client = await deps.client();
        const options = { client, log: deps.log, budgeted: this.budgeted, caps: deps.caps };
        const checked = await checkAppRules(options, current, deps.routes.merged, () => this.mentionsWanted());
        if (!checked || this.rules !== current) return;
        deps.log.warn(
          { gone: checked.gone, unknown: checked.unknown },
          `stream of app ${deps.appId}: its rules on the service were not those it had made (${checked.gone} gone, ${checked.unknown} it did not know of), as when a rules change of the process that ran the stream before lands late; made right`,
        );
        this.took(checked.rules);
        deps.status.changed();
      } catch (err) {
        if (deps.closed.aborted) return;
        deps.log.warn(
          { err: messageOf(err) },
          `stream of app ${deps.appId}: could not check its rules (${messageOf(err)}); checked again later`,
        );
      } finally {
        this.applying--;
        void client?.close();
      }
    });
  }

  /** Waits until the pace of rule writes lets an update go (./write-pacer.ts), unless the hub closes. */
  private async paced(): Promise<void> {
    const { clock, closed, log, appId, ruleWrites } = this.deps;
    let wait = this.pacer?.delay(this.paused) ?? 0;
    if (wait > 0 && this.rules && ruleWrites)
      log.info(
        { wait_ms: wait },
        `stream of app ${appId}: the bots' change waits ${this.paused ? "" : "for the bots' changes to pause, or "}${Math.ceil(wait / 1000)} s for the pace of the app's rule writes (${ruleWrites.max} per ${ruleWrites.windowMs / 60_000} minutes); the changes that come meanwhile go with it`,
      );
    for (; wait > 0 && this.rules && !closed.aborted; wait = this.pacer!.delay(this.paused)) {
      const hurry = new AbortController();
      this.hurry = hurry;
      await clock.sleep(wait, AbortSignal.any([closed, hurry.signal])).catch(() => undefined);
      if (this.hurry === hurry) this.hurry = undefined;
    }
  }

  /** One attempt of {@link apply}: whether it is done (sent, or the hub closed); a failure waits before the next. */
  private async tryUpdate(attempt: number): Promise<boolean> {
    const { deps } = this;
    let client: ApiClient | undefined;
    this.applying++;
    try {
      client = await deps.client();
      const options = { client, log: deps.log, budgeted: this.budgeted, caps: deps.caps };
      const current = this.rules!;
      const next = await updateAppRules(options, current, deps.routes.merged, this.mentionsWanted());
      // Forgotten meanwhile (the connection failed): the next sync reads the service's rules,
      // which an update made from the old ones must not stand in for.
      if (this.rules !== current) return true;
      this.took(next);
      deps.status.changed();
      return true;
    } catch (err) {
      if (deps.closed.aborted) return true;
      if (apiErrorOf(err)?.status === 401) deps.forgetBearer();
      const delay = Math.min(60_000, 1_000 * 2 ** (attempt - 1));
      deps.log.warn(
        { err: messageOf(err), delay_ms: delay },
        `stream of app ${deps.appId}: could not change its rules for the bots' change (${messageOf(err)}); trying again in ${delay / 1000} s (the stream stays connected)`,
      );
      this.applying--;
      await deps.clock.sleep(delay, deps.closed).catch(() => undefined);
      this.applying++;
      return false;
    } finally {
      this.applying--;
      void client?.close();
    }
  }

  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    const next = this.work.then(work);
    this.work = next.catch(() => undefined);
    return next;
  }

  /** The mention rules wanted now, if any bot takes its mentions through the stream. */
  private mentionsWanted(): WantedMentions | undefined {
    const { mentionBots } = this.deps.routes;
    this.plan.want(mentionBots);
    return mentionBots.length > 0 ? { plan: this.plan, caps: this.deps.caps } : undefined;
  }

  /** The rules just synced: the status follows, and bots the cap leaves out poll instead. */
  private took(next: SyncedRules): void {
    const { routes, status, log } = this.deps;
    this.rules = next;
    status.current.rules = { own: routes.merged.size, mentions: next.mentionValues.length };
    if (next.overflow.length === 0) return;
    const bots = routes.capOut(next.overflow);
    log.error(
      { bots: bots.length },
      `the app's rule cap (${this.deps.caps.maxRules} rules) leaves ${bots.length} bots without a mention rule; they poll their mentions instead`,
    );
    this.deps.onOverflow?.(bots);
  }
}
