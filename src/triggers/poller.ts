/**
 * The loop shared by polling triggers: poll, wait the interval on the clock, poll again,
 * until stopped. A failed poll is reported and the loop goes on; `stop` ends the wait at
 * once and lets a poll in progress finish. The interval can change while the loop runs
 * (bots sharing an app's window joined or left it): the wait under way is shortened or
 * lengthened to the new interval, counted from the last poll.
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
  /** The interval now. */
  intervalMs(): number;
  /** Changes the interval; the wait under way ends at the last poll plus the new interval. */
  setInterval(ms: number): void;
  stop(): void;
}

export function startPollLoop(options: PollLoopOptions): PollLoop {
  const { clock } = options;
  const stopper = new AbortController();
  let current: Promise<void> | undefined;
  let interval = options.intervalMs;
  /** Ends the wait under way early, so that it starts again with the new interval. */
  let retimed: AbortController | undefined;
  /** Waits until `from + interval`, the interval as it is when the wait ends. */
  const wait = async (from: number) => {
    for (;;) {
      retimed = new AbortController();
      const left = from + interval - clock.now();
      if (left <= 0) return;
      try {
        await clock.sleep(left, AbortSignal.any([stopper.signal, retimed.signal]));
        return;
      } catch (err) {
        if (stopper.signal.aborted) throw err;
      }
    }
  };
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
        await wait(clock.now());
      } catch {
        break;
      }
    }
  })();
  return {
    done,
    current: () => current,
    intervalMs: () => interval,
    setInterval(ms) {
      if (ms === interval) return;
      interval = ms;
      retimed?.abort();
    },
    stop: () => stopper.abort(new Error("stopped")),
  };
}
