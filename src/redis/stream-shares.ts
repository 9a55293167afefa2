/**
 * How the apps' streams spread over the processes sharing one Redis (./shared-streams.ts):
 * each process claims free stream leases up to its share (`ceil(apps / live processes)`), and
 * here a process holding more than another that wants one hands one back.
 *
 * Why: claims alone never moved a stream. A process that started alone took every app's
 * stream (its share was all of them), and those of a dead process went to the survivors; a
 * process that joined later (a restart) then ran none, however long it lived, and a kill -9 of
 * the one running them all stopped every app's stream at once.
 *
 * How, without streams moving about:
 *
 * - A process below its share that runs bots of an app whose stream another holds says it
 *   wants it: `<prefix>stream-want:<app>` (in the app's slot) names it for two renewals, said
 *   again at each of its renewals while it still wants one. Only a process that runs bots of
 *   the app wants its stream, so a process counted among the members before it loads its bots
 *   (they announce themselves first) or one running no bot of the app draws none away.
 * - A holder of two streams or more reads the wants of its apps at each renewal; for one
 *   wanted, it counts the streams the wanting process holds now (every app's lease, read at
 *   once) and hands that app's stream back when it holds at least two more than that process:
 *   the two are then nearer (the holder keeps as many as the other gets, or one more), never
 *   swapped, so a stream handed back never comes back by this rule. (A holder above its share
 *   always holds two more than a process below it.)
 * - One at a time: the next only once the last one handed back is held again (by whoever
 *   wanted it, as a rule) or two renewals later.
 *
 * The hand-over itself is the stream handoff's (./shared-streams.ts): the holder stops its hub,
 * its last mark written, then gives the lease back; the next holder's hub starts from that
 * mark, closing the gap with a search, and each bot's mentions trigger hands each post out once.
 */
import type { Redis } from "./connect.ts";
import { getMany, type RedisKeys } from "./keys.ts";
import type { Leases } from "./leases.ts";

/** A stream to hand back: its app, the process that wants it, and how many streams that one holds. */
export interface HandBack {
  appId: string;
  to: string;
  theirs: number;
}

export interface StreamSharesOptions {
  /** The connection the stream leases are renewed on (the wants and the leases are read there too). */
  leases: Leases;
  keys: RedisKeys;
  /** This process's lease owner name. */
  owner: string;
  /** How long a want lasts unless said again (two renewals). */
  wantMs: number;
  /** How long after handing one back the next may go while the last is still free (two renewals). */
  settleMs: number;
}

/** One process's side of the streams' spread; see the module comment. */
export class StreamShares {
  private last: { appId: string; at: number } | undefined;

  constructor(private readonly options: StreamSharesOptions) {}

  private get redis(): Redis {
    return this.options.leases.redis;
  }

  /** The key naming a process that wants the app's stream. */
  wantKey(appId: string): string {
    return this.options.keys.app(appId, `stream-want:${appId}`);
  }

  /** This process wants one of these apps' streams: it runs bots of each, and holds fewer than its share. */
  async want(appIds: readonly string[]): Promise<void> {
    const { owner, wantMs } = this.options;
    await Promise.all(appIds.map((appId) => this.redis.set(this.wantKey(appId), owner, "PX", Math.ceil(wantMs))));
  }

  /**
   * Of the apps whose streams this process holds (`mine`, two or more), the one to hand back
   * now, if any (see the module comment); `all`: every app of the deployment, `now`: this
   * process's clock. Reads the wants of `mine`, and when one is there, every app's lease.
   */
  async toHandBack(mine: readonly string[], all: readonly string[], now: number): Promise<HandBack | undefined> {
    const { owner, leases, keys, settleMs } = this.options;
    if (mine.length < 2) return undefined;
    const wants = await getMany(
      this.redis,
      keys,
      mine.map((appId) => this.wantKey(appId)),
    );
    const wanted = mine.flatMap((appId, i) => (wants[i] && wants[i] !== owner ? [{ appId, to: wants[i] }] : []));
    if (wanted.length === 0) return undefined;
    const values = await getMany(
      this.redis,
      keys,
      all.map((appId) => leases.key(`stream:${appId}`)),
    );
    const holders = values.map((v) => (v ? v.slice(v.indexOf("|") + 1) : undefined));
    const last = this.last;
    if (last && now - last.at < settleMs && !holders[all.indexOf(last.appId)]) return undefined;
    this.last = undefined;
    const held = holders.filter((h) => h === owner).length;
    for (const { appId, to } of wanted) {
      const theirs = holders.filter((h) => h === to).length;
      if (held >= theirs + 2) return { appId, to, theirs };
    }
    return undefined;
  }

  /** The app's stream is being handed back now (the next waits for it: see the module comment). */
  handedBack(appId: string, now: number): void {
    this.last = { appId, at: now };
  }
}
