/**
 * The loop shared by polling triggers: poll, wait the interval on the clock, poll again,
 * until stopped. A failed poll is reported and the loop goes on; `stop` ends the wait at
 * once and lets a poll in progress finish.
 */
import type { Clock } from "../clock.ts";

export interface PollLoopOptions {
  clock: Clock;
  intervalMs: number;
  poll(signal: AbortSignal): Promise<void>;
  /** A poll that threw. Returning "stop" ends the loop (a revoked token, say). */
  onError(err: unknown): "stop" | void;
}

export interface PollLoop {
  /** Resolves when the loop has ended. */
  readonly done: Promise<void>;
  /** The poll in progress, if one is (tests and shutdown wait for it). */
  current(): Promise<void> | undefined;
  stop(): void;
}

export function startPollLoop(options: PollLoopOptions): PollLoop {
  const stopper = new AbortController();
  let current: Promise<void> | undefined;
  const done = (async () => {
    while (!stopper.signal.aborted) {
      try {
        current = options.poll(stopper.signal);
        await current;
      } catch (err) {
        if (stopper.signal.aborted) break;
        if (options.onError(err) === "stop") break;
      } finally {
        current = undefined;
      }
      try {
        await options.clock.sleep(options.intervalMs, stopper.signal);
      } catch {
        break;
      }
    }
  })();
  return { done, current: () => current, stop: () => stopper.abort(new Error("stopped")) };
}
