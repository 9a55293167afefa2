/**
 * The parent's side of the kill -9 tests whose child performs keyed actions against a loopback
 * service (test/actions/kill9.test.ts with test/fixtures/action-child.ts, the sessions test with
 * test/fixtures/session-child.ts): the service, which counts each action's key as it arrives and
 * answers the ledger's check after a crash (`GET /has?key=`, test/fixtures/key-service.ts), and
 * a run of the child killed with SIGKILL on the n-th request's arrival (before its answer) or
 * some milliseconds after its first request.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { type FixtureChild, fixtureCommand } from "./built.ts";

export interface KeyService {
  url: string;
  /** How many times each key arrived. */
  received: Map<string, number>;
  /** Called as each request arrives; `true`: it is not answered (the child is being killed). */
  arrivals(fn: ((res: ServerResponse) => boolean) | undefined): void;
  close(): Promise<void>;
}

/** Starts the loopback service on a free port. */
export async function startKeyService(): Promise<KeyService> {
  const received = new Map<string, number>();
  let onArrival: ((res: ServerResponse) => boolean) | undefined;
  const http = createServer((req, res) => {
    const url = new URL(req.url!, "http://x");
    if (url.pathname === "/has") {
      res.end(JSON.stringify({ done: (received.get(url.searchParams.get("key")!) ?? 0) > 0 }));
      return;
    }
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      const { key } = JSON.parse(body) as { key: string };
      received.set(key, (received.get(key) ?? 0) + 1);
      if (onArrival?.(res)) return;
      setTimeout(() => res.end(JSON.stringify({ data: { id: key } })), 2);
    });
  });
  await new Promise<void>((r) => http.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}`,
    received,
    arrivals: (fn) => (onArrival = fn),
    close: () => new Promise<void>((r) => http.close(() => r())),
  };
}

/** How a run is cut: on the n-th request's arrival, or some ms after the first request; neither: it runs to its end. */
export interface Kill {
  onRequest?: number;
  msAfterFirst?: number;
}

/** Runs the fixture child (test/fixtures/CHILD.ts) with `args` once against `svc`, killed as `kill` says; its exit code and output. */
export function runKilled(
  child: FixtureChild,
  args: readonly string[],
  svc: KeyService,
  kill?: Kill,
): Promise<{ code: number | null; killed: boolean; out: string }> {
  return new Promise((resolve) => {
    const proc: ChildProcess = spawn(process.execPath, [...fixtureCommand(child), ...args], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let killed = false;
    let timer: NodeJS.Timeout | undefined;
    const doKill = () => {
      if (!killed && proc.exitCode === null) {
        killed = true;
        proc.kill("SIGKILL");
      }
    };
    proc.stdout!.on("data", (c) => (out += c));
    proc.stderr!.on("data", (c) => (out += c));
    let seen = 0;
    svc.arrivals((res) => {
      seen++;
      if (seen === 1 && kill?.msAfterFirst !== undefined) timer = setTimeout(doKill, kill.msAfterFirst);
      if (seen !== kill?.onRequest) return false;
      doKill(); // it arrived; the child dies before the answer
      res.destroy();
      return true;
    });
    proc.on("exit", (code) => {
      clearTimeout(timer);
      svc.arrivals(undefined);
      resolve({ code, killed, out });
    });
  });
}
