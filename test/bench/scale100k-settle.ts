/**
 * The 100,000 bench's wait between the start and the idle row: once a process's start stops
 * allocating, V8's memory reducer gives the start's heap back with full collections (seconds of
 * CPU each at 25,000 bots a process). That is a one-off of the start, not the deployment's idle;
 * measured inside the idle row's window it made the row (four windows of 29-86 % of a core among
 * steady ones of 2.4-4.6 %). So the idle row waits until every process has settled, up to a cap,
 * and what the wait held (each process's CPU, its full collections and when) is a row of its own:
 * nothing is hidden, only told apart.
 *
 * The reducer (V8's memory-reducer.cc, node 20) runs at most three collections, the first when a
 * process has had no full collection for 100 s (its watchdog) or sooner once the allocation rate
 * falls, the next ones from 0.5 s to 100 s after (measured at 20,000 accounts: 1-43 s, and 107 s);
 * each carries the callback flag ALL_EXTERNAL_MEMORY (32), which the start's own collections do
 * not. It runs again only after a later full collection finds the heap grown by 10 MB or more.
 * So a process is settled once its third such collection is `quietMs` behind it, or once it has
 * had no full collection for `noneMs` (over the watchdog's 100 s: a reducer that stopped after
 * fewer). Collections are read from the loop probes' files (./loop-probe.mjs).
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { cpuMs } from "./scale100k-deployment.ts";

export interface SettleOptions {
  /** The live processes. */
  pids: number[];
  /** The loop probes' directory. */
  probeDir: string;
  /** When the start ended (epoch ms): collections before it are the start's own. */
  since: number;
  /** How long after the reducer's last collection a process counts as settled. */
  quietMs: number;
  /** How long without any full collection a process counts as settled. */
  noneMs: number;
  /** The longest wait. */
  capMs: number;
}

export interface Settled {
  /** How long the wait took. */
  waitedMs: number;
  /** Whether every process settled before the cap. */
  settled: boolean;
  /** Per process: the CPU it used during the wait (ms) and its full collections (when, how long). */
  processes: Array<{ pid: number; cpuMs: number; majors: Major[] }>;
}

/** A full collection: when it began (epoch ms), how long, whether V8 said it was to reduce memory. */
export interface Major {
  at: number;
  ms: number;
  reduce?: boolean;
}

/** V8's callback flag of the memory reducer's collections (kGCCallbackFlagCollectAllExternalMemory). */
const ALL_EXTERNAL_MEMORY = 32;

/** The full collections of process `pid` since `since`, from its probe file (epoch ms, ms). */
export function majorsOf(probeDir: string, pid: number, since = 0): Major[] {
  const file = join(probeDir, `${pid}.jsonl`);
  if (!existsSync(file)) return [];
  const out: Major[] = [];
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (!line) continue;
    const e = JSON.parse(line) as { at: number; gc?: number; major?: boolean; flags?: number };
    if (e.gc !== undefined && e.major && e.at >= since)
      out.push({ at: e.at, ms: e.gc, reduce: ((e.flags ?? 0) & ALL_EXTERNAL_MEMORY) !== 0 });
  }
  return out;
}

/** The most collections one run of V8's memory reducer makes (kMaxNumberOfGCs). */
const REDUCER_RUN = 3;

/** Whether a process with these full collections (all of its life) is settled at `now` (see the module comment). */
export function isSettled(
  majors: readonly Major[],
  now: number,
  options: Pick<SettleOptions, "quietMs" | "noneMs">,
): boolean {
  const last = majors.at(-1);
  if (!last) return true; // nothing to give back
  const quiet = now - (last.at + last.ms);
  return quiet >= options.noneMs || (majors.filter((m) => m.reduce).length >= REDUCER_RUN && quiet >= options.quietMs);
}

/** Waits until every process settled (or the cap); what each used meanwhile. */
export async function settle(options: SettleOptions): Promise<Settled> {
  const { pids, probeDir, capMs } = options;
  const t0 = Date.now();
  const cpu0 = pids.map(cpuMs);
  let settled = false;
  while (Date.now() - t0 < capMs) {
    // The probes write once a second: a collection may be a second late in its file.
    await new Promise((r) => setTimeout(r, 1_000));
    const now = Date.now() - 1_000;
    settled = pids.every((pid) => isSettled(majorsOf(probeDir, pid), now, options));
    if (settled) break;
  }
  return {
    waitedMs: Date.now() - t0,
    settled,
    processes: pids.map((pid, i) => ({
      pid,
      cpuMs: cpuMs(pid) - cpu0[i]!,
      majors: majorsOf(probeDir, pid, options.since),
    })),
  };
}

/** The wait as a line: how long, each process's CPU and its full collections (seconds after `since`). */
export function settledLine(s: Settled, since: number): string {
  const all = s.processes.reduce((t, p) => t + p.cpuMs, 0) / 1000;
  const waited = s.waitedMs / 1000;
  const each = s.processes.map((p) => {
    const gcs = p.majors.map(
      (m) => `+${((m.at - since) / 1000).toFixed(0)} s ${m.ms.toFixed(0)} ms${m.reduce ? " (reduce)" : ""}`,
    );
    return `${(p.cpuMs / 1000).toFixed(1)} CPU-s, ${p.majors.length} full collections${gcs.length ? ` (${gcs.join(", ")})` : ""}`;
  });
  return `${s.settled ? "settled" : "not settled (the cap)"} after ${waited.toFixed(0)} s; the ${s.processes.length} processes used ${all.toFixed(1)} CPU-s meanwhile (${((all / waited) * 100).toFixed(1)} % of one core): ${each.join("; ")}`;
}
