/**
 * Requests counted by route template and status: what `GET /_sandbox/stats` answers, 429s
 * included, so a test or a demo can prove how many calls a bot made and how many were
 * refused. Admin requests are not counted; they are not part of the service.
 */
import type { SandboxData } from "../model/index.ts";

/** `GET /_sandbox/stats`: `{"routes": {"METHOD /path/template": {"STATUS": count}}}`. */
export interface Stats {
  routes: Record<string, Record<string, number>>;
}

export function countRequest(data: SandboxData, route: string, status: number): void {
  const byStatus = (data.meter.stats[route] ??= {});
  const s = String(status);
  byStatus[s] = (byStatus[s] ?? 0) + 1;
}

/** A copy of the counts (callers may keep it while the sandbox counts on). */
export const statsOf = (data: SandboxData): Stats => ({ routes: structuredClone(data.meter.stats) });
