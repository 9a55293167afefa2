/**
 * `/healthz` and `/readyz`, as service managers and orchestrators expect them: live means
 * the process answers; ready means every bot is started, or paused with a reason a person can
 * act on (a paused bot is a known state, not a broken process). Not ready answers 503 with a
 * JSON body naming what is not ready, so whoever looks learns why without reading logs.
 */
import type { StatusSource } from "./source.ts";

/** Where the process is in its life: the page and readiness depend on it. */
export type Phase = "starting" | "running" | "stopping";

export interface Readiness {
  status: 200 | 503;
  body: {
    ready: boolean;
    phase: Phase;
    bots?: number;
    /** Paused bots and why (they count as ready: nothing a restart would fix). */
    paused?: Array<{ bot: string; reason: string }>;
    /** What is not ready and why. */
    notReady?: Array<{ bot?: string; why: string }>;
  };
}

/** Whether the process is ready, and what is not; see the module comment. */
export function readiness(phase: Phase, source: StatusSource | undefined): Readiness {
  if (phase === "starting" || !source) {
    return {
      status: 503,
      body: {
        ready: false,
        phase: "starting",
        notReady: [{ why: "the bots are starting (accounts checked, plugins set up, triggers started)" }],
      },
    };
  }
  if (phase === "stopping")
    return { status: 503, body: { ready: false, phase, notReady: [{ why: "postbot is stopping" }] } };
  const bots = source.bots();
  const notReady: Array<{ bot?: string; why: string }> = [];
  const paused: Array<{ bot: string; reason: string }> = [];
  for (const b of bots) {
    if (b.stoppedAt !== undefined) notReady.push({ bot: b.bot, why: "stopped" });
    else if (b.paused && !b.paused.reason.trim()) notReady.push({ bot: b.bot, why: "paused without a reason" });
    else if (b.paused) paused.push({ bot: b.bot, reason: b.paused.reason });
  }
  if (bots.length === 0) notReady.push({ why: "no bot is hosted" });
  const ready = notReady.length === 0;
  return {
    status: ready ? 200 : 503,
    body: { ready, phase, bots: bots.length, ...(paused.length ? { paused } : {}), ...(ready ? {} : { notReady }) },
  };
}
