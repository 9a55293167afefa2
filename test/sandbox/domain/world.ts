/** A bare sandbox context for domain tests: empty world, frozen clock, an event bus. */
import { EventEmitter } from "node:events";
import { createClock } from "../../../src/clock.ts";
import { createData } from "../../../src/sandbox/model/index.ts";
import type { SandboxContext, SandboxEventMap } from "../../../src/sandbox/route.ts";

export const T0 = Date.parse("2026-03-02T12:00:00.000Z");

export function context() {
  const clock = createClock({ frozen: true, start: T0 });
  const ctx: SandboxContext = { data: createData(), clock, events: new EventEmitter<SandboxEventMap>() };
  return { ctx, clock };
}

/** The message of the 400 invalid-request a call throws (what a client reads in `errors[0].message`). */
export function invalidMessage(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    const problem = (e as { problem?: { errors?: Array<{ message: string }> } }).problem;
    if (problem?.errors?.[0]) return problem.errors[0].message;
    throw e;
  }
  throw new Error("expected an invalid-request problem, but nothing was thrown");
}
