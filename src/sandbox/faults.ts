/**
 * Injected faults (`POST /_sandbox/faults`): for a route template and a count of requests,
 * answer with a chosen status and body, wait first (on the sandbox clock), reset the
 * connection, or, on a stream, end it after N messages (a drop) or go silent, keep-alives
 * included (a stall). Clients prove their retry, reconnect and stall handling against them.
 */
export type FaultSpec =
  | { kind: "error"; status: number; body?: unknown; headers?: Record<string, string> }
  | { kind: "delay"; delay_ms: number }
  | { kind: "reset" }
  | { kind: "drop"; after_messages: number }
  | { kind: "stall"; after_messages: number };

export type Fault = FaultSpec & {
  id: string;
  /** `"METHOD /path/template"`, as in stats. */
  route: string;
  /** How many more requests it applies to. */
  remaining: number;
};

/** Faults that act before the request is handled, and those that act on a started stream. */
const PHASE = { error: "request", delay: "request", reset: "request", drop: "stream", stall: "stream" } as const;

export class FaultRegistry {
  private faults: Fault[] = [];
  private seq = 0;

  add(route: string, count: number, spec: FaultSpec): Fault {
    const fault = { ...spec, id: String(++this.seq), route, remaining: count } as Fault;
    this.faults.push(fault);
    return { ...fault };
  }

  /**
   * Takes one use of the first fault registered for the route in the phase, if any.
   * Returns a copy describing what to do.
   */
  take(route: string, phase: "request" | "stream"): Fault | undefined {
    const f = this.faults.find((x) => x.route === route && PHASE[x.kind] === phase);
    if (!f) return undefined;
    f.remaining -= 1;
    if (f.remaining <= 0) this.faults = this.faults.filter((x) => x !== f);
    return { ...f };
  }

  /** Whether any fault waits for the route (cheap: checked on every request). */
  has(route: string): boolean {
    return this.faults.length > 0 && this.faults.some((f) => f.route === route);
  }

  list(): Fault[] {
    return this.faults.map((f) => ({ ...f }));
  }

  clear(): void {
    this.faults = [];
  }
}
