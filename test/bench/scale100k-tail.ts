/**
 * What the flood's tail sat on (./scale100k.bench.ts's flood row), as ./hosting-child.ts
 * says it for one process, here over the deployment's parts: each mention's wait split at its
 * handoff (the mention's post → its hub's process wrote it to the bot's stream in Redis: the
 * bell's entry id; → the bot's process answered), per window of 5 s the answers' p50/p99/max
 * and each part's stalls: every process's event-loop stalls and garbage collections
 * (./loop-probe.mjs, preloaded into each; the bench's own for the sandbox) and Redis's slow
 * commands (SLOWLOG over the flood, second-resolution timestamps) and latency events. Then
 * each answer over the aim is put down to what overlapped its slow stage most.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Redis } from "../../src/redis/connect.ts";

/** A stop of a process's main thread: a stall of its loop, or a garbage collection. */
interface Stop {
  at: number;
  ms: number;
  gc?: "major" | "minor";
  /** A stall's share of CPU over it (the process's CPU time / the stall's length, at most 1): low, it waited for a core. */
  busy?: number;
}

/** Redis's slow command: when (epoch ms, to the second), how long, what. */
interface Slow {
  at: number;
  ms: number;
  what: string;
  /** Its arguments as the slowlog keeps them (each cut at 128 characters, saying how much more). */
  args: string[];
}

/** One mention answered: when made, handed off (undefined: no bell seen), answered; which processes had it. */
export interface Answered {
  made: number;
  handed?: number;
  answered: number;
  hub?: number;
  owner?: number;
}

const WINDOW_MS = 5_000;
/** Redis commands slower than this (µs) are kept by the slowlog over the flood. */
const SLOWLOG_US = 2_000;

/** Readies Redis's slowlog and latency monitor for the flood (one Redis: on a cluster, each master). */
export async function watchRedis(redis: Redis): Promise<void> {
  for (const node of nodes(redis)) {
    await node.config("SET", "slowlog-log-slower-than", String(SLOWLOG_US));
    await node.config("SET", "slowlog-max-len", "10000");
    await node.config("SET", "latency-monitor-threshold", "10");
    await node.slowlog("RESET");
    await node.call("LATENCY", "RESET");
  }
}

const nodes = (redis: Redis) =>
  redis.isCluster ? (redis as unknown as { nodes(r: string): Redis[] }).nodes("master") : [redis];

async function slowCommands(redis: Redis): Promise<{ slow: Slow[]; events: string }> {
  const slow: Slow[] = [];
  const events: string[] = [];
  for (const node of nodes(redis)) {
    const log = (await node.slowlog("GET", 10_000)) as Array<[number, number, number, string[]]>;
    for (const [, at, us, args] of log)
      slow.push({
        at: at * 1000,
        ms: us / 1000,
        what: `${args[0]} ${args[1] ?? ""} (${args.length} args)`,
        args: args.map(String),
      });
    const latest = (await node.call("LATENCY", "LATEST")) as Array<[string, number, number, number]>;
    for (const [event, , , max] of latest) events.push(`${event} max ${max} ms`);
  }
  return { slow, events: events.join(", ") || "none over 10 ms" };
}

/** Each process's stops from its probe file, by pid. */
function readStops(dir: string): Map<number, Stop[]> {
  const by = new Map<number, Stop[]>();
  if (!existsSync(dir)) return by;
  for (const file of readdirSync(dir).filter((f) => f.endsWith(".jsonl"))) {
    const stops: Stop[] = [];
    for (const line of readFileSync(join(dir, file), "utf8").split("\n")) {
      if (!line) continue;
      const e = JSON.parse(line) as { at: number; gc?: number; stall?: number; major?: boolean; cpu?: number };
      if (e.gc === undefined && e.stall === undefined) continue; // the clocks' line-up
      stops.push(
        e.gc !== undefined
          ? { at: e.at, ms: e.gc, gc: e.major ? "major" : "minor" }
          : { at: e.at, ms: e.stall!, busy: Math.min(1, (e.cpu ?? 0) / (e.stall! + 10)) },
      );
    }
    by.set(Number(file.split(".")[0]), stops);
  }
  return by;
}

const quantile = (xs: number[], q: number) => {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
};
const overlap = (x: { at: number; ms: number }, from: number, to: number) =>
  Math.max(0, Math.min(x.at + x.ms, to) - Math.max(x.at, from));
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
const r = (x: number) => (Number.isFinite(x) ? Math.round(x) : "-");

/** One window's line: the answers, then each process's stops, the sandbox's, Redis's slow commands. */
function windowLine(
  start: number,
  from: number,
  answers: Answered[],
  stops: Map<number, Stop[]>,
  sandbox: number,
  slow: Slow[],
): string {
  const xs = answers.map((a) => a.answered - a.made);
  const hub = answers.flatMap((a) => (a.handed ? [a.handed - a.made] : []));
  const bot = answers.flatMap((a) => (a.handed ? [a.answered - a.handed] : []));
  const within = <T extends { at: number }>(ys: T[]) => ys.filter((y) => y.at >= from && y.at < from + WINDOW_MS);
  const parts = [...stops].map(([pid, all]) => {
    const st = within(all.filter((s) => !s.gc));
    const gc = within(all.filter((s) => s.gc));
    const major = gc.filter((g) => g.gc === "major");
    const name = pid === sandbox ? "sandbox" : String(pid);
    const starved = sum(st.map((s) => s.ms * (1 - (s.busy ?? 1))));
    return `${name}: stalls ${st.length} max ${r(Math.max(0, ...st.map((s) => s.ms)))} (${r(starved)} ms of them without CPU), gc ${r(sum(gc.map((g) => g.ms)))} ms (major ${major.length} max ${r(Math.max(0, ...major.map((g) => g.ms)))})`;
  });
  const sl = within(slow);
  const worst = sl.reduce<Slow | undefined>((w, s) => (w && w.ms >= s.ms ? w : s), undefined);
  return (
    `+${((from - start) / 1000).toFixed(0)} s: n ${xs.length}, p50 ${r(quantile(xs, 0.5))} p99 ${r(quantile(xs, 0.99))} max ${r(Math.max(...xs))} ms ` +
    `(to the handoff p99 ${r(quantile(hub, 0.99))}, after it p99 ${r(quantile(bot, 0.99))}); ${parts.join("; ")}; ` +
    `Redis slow ${sl.length}, ${r(sum(sl.map((s) => s.ms)))} ms${worst ? `, worst ${worst.ms.toFixed(1)} ms ${worst.what}` : ""}`
  );
}

/** What the slowest stage of one answer overlapped most: its process's GC or stall, the sandbox's, Redis's slow commands. */
function blame(a: Answered, stops: Map<number, Stop[]>, sandbox: number, slow: Slow[]): string {
  const hubStage = a.handed === undefined ? undefined : a.handed - a.made;
  const inHub = hubStage !== undefined && hubStage >= a.answered - a.handed!;
  const [from, to, pid, where] = inHub
    ? [a.made, a.handed!, a.hub, "hub's process"]
    : [a.handed ?? a.made, a.answered, a.owner, "bot's process"];
  // A stall's overlap, the part it ran (`busy`) or the part it waited for a core.
  const of = (p: number | undefined, f: (s: Stop) => boolean, part: (s: Stop) => number = () => 1) =>
    sum((stops.get(p ?? -1) ?? []).filter(f).map((s) => overlap(s, from, to) * part(s)));
  const ran = (s: Stop) => s.busy ?? 1;
  const waited = (s: Stop) => 1 - (s.busy ?? 1);
  const major = of(pid, (s) => s.gc === "major");
  const candidates: Array<[string, number]> = [
    [`${where}: major GC`, major],
    [`${where}: loop busy (not a major GC)`, Math.max(0, of(pid, (s) => !s.gc, ran) - major)],
    [`${where}: loop waiting for a core`, of(pid, (s) => !s.gc, waited)],
    ["sandbox: loop busy", of(sandbox, (s) => !s.gc, ran)],
    ["sandbox: loop waiting for a core", of(sandbox, (s) => !s.gc, waited)],
    // Slowlog's time is to the second: a slow command is counted when its second touches the wait.
    ["Redis: slow command", sum(slow.map((s) => (overlap({ at: s.at, ms: 1_000 + s.ms }, from, to) > 0 ? s.ms : 0)))],
  ];
  const [what, ms] = candidates.reduce((w, c) => (c[1] > w[1] ? c : w));
  return ms >= 10 ? what : `${where}: none seen`;
}

/**
 * Per window of 5 s from the flood's start, and the attribution of every answer slower than
 * `aimMs`: the lines to print, and a summary for the row.
 */
export async function tailReport(options: {
  redis: Redis;
  probeDir: string;
  sandboxPid: number;
  start: number;
  answers: Answered[];
  aimMs: number;
}): Promise<{ lines: string[]; summary: string; slow: string[] }> {
  const { redis, probeDir, sandboxPid, start, answers, aimMs } = options;
  const stops = readStops(probeDir);
  const { slow, events } = await slowCommands(redis);
  const lines: string[] = [];
  const end = Math.max(...answers.map((a) => a.answered));
  for (let from = start; from < end; from += WINDOW_MS) {
    const inWindow = answers.filter((a) => a.made >= from && a.made < from + WINDOW_MS);
    if (inWindow.length > 0) lines.push(windowLine(start, from, inWindow, stops, sandboxPid, slow));
  }
  const late = answers.filter((a) => a.answered - a.made > aimMs);
  const blamed = new Map<string, number>();
  for (const a of late) {
    const what = blame(a, stops, sandboxPid, slow);
    blamed.set(what, (blamed.get(what) ?? 0) + 1);
  }
  const inHub = late.filter((a) => a.handed !== undefined && a.handed - a.made >= a.answered - a.handed).length;
  const majors = [...stops]
    .filter(([pid]) => pid !== sandboxPid)
    .map(([, s]) => s.filter((g) => g.gc === "major" && g.at >= start && g.at < end));
  const worstSlow = Math.max(0, ...slow.map((s) => s.ms));
  const summary =
    `the ${late.length} answers over ${aimMs} ms: ${inHub} waited before the handoff, ${late.length - inHub} after it; ` +
    `put down to ${
      [...blamed]
        .sort((a, b) => b[1] - a[1])
        .map(([w, k]) => `${w} ${k}`)
        .join(", ") || "-"
    }; ` +
    `major GCs in the processes ${majors.map((m) => `${m.length} (max ${r(Math.max(0, ...m.map((g) => g.ms)))} ms)`).join(", ")}; ` +
    `Redis: ${slow.length} commands over ${SLOWLOG_US / 1000} ms (max ${worstSlow.toFixed(1)} ms), latency events ${events}`;
  const slowLines = slow.map(
    (s) =>
      `${new Date(s.at).toISOString()} ${s.ms.toFixed(1)} ms ${s.args.map((a) => a.replace(/\s+/g, " ")).join(" | ")}`,
  );
  return { lines, summary, slow: slowLines };
}
