/**
 * The signals of `bot start`, caught from its very first moment rather than once the bots run:
 * a SIGINT or SIGTERM while the bots start ends the start as soon as they have started (or
 * while it waits for the service); once they run it begins the stop; a second one while
 * stopping exits at once, as a person pressing Ctrl-C twice means. SIGHUP reads the bots
 * directory again (by default it would end the process).
 */
import type { Logger } from "../log.ts";

/** What `bot start` learns from the signals it catches. */
export interface StartSignals {
  /** Aborted by the first SIGINT or SIGTERM: the start gives up waiting. */
  readonly starting: AbortSignal;
  /** The first SIGINT or SIGTERM received, if one came. */
  readonly received: string | undefined;
  /** The first SIGINT or SIGTERM: at once when it came already, else when it comes. */
  stopped(): Promise<string>;
  /** What SIGHUP does from now on (before: it says the directory is read once the bots run). */
  onReread(reread: () => void): void;
}

/** Catches SIGINT, SIGTERM and SIGHUP for the life of the process. */
export function catchSignals(logger: Logger): StartSignals {
  let received: string | undefined;
  let wake: ((signal: string) => void) | undefined;
  let reread: (() => void) | undefined;
  const starting = new AbortController();
  const onSignal = (signal: string) => {
    if (received) {
      logger.warn(`${signal} again: exiting without waiting for the stop to finish`);
      process.exit(1);
    }
    received = signal;
    starting.abort();
    wake?.(signal);
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  process.on("SIGHUP", () => {
    if (!reread) return logger.info("SIGHUP while the bots start: the bots directory is read once they run");
    reread();
  });
  return {
    starting: starting.signal,
    get received() {
      return received;
    },
    stopped: () =>
      received !== undefined ? Promise.resolve(received) : new Promise<string>((resolve) => (wake = resolve)),
    onReread(then) {
      reread = then;
    },
  };
}
