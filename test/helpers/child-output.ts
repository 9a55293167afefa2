/**
 * Waiting for what a child process prints, without hanging when it dies first: a test that
 * waits for `bot start`'s "all bots started" used to sit out its whole timeout when the child
 * failed at once, and then said "timed out" instead of why. Every helper that waits for a
 * child's output races the wait against the child's end through {@link watchChild}, so the
 * failure is at once, with the exit code or signal and the last of what the child printed.
 */
import type { ChildProcess } from "node:child_process";
import type { Readable } from "node:stream";

/** Characters of a child's output kept for the message (the end of a stack trace, a refusal). */
const TAIL = 2_000;

/** A child watched from its start: how it ended, and the end of what it printed. */
export interface WatchedChild {
  /** The last characters it printed, stdout and stderr as they arrived. */
  tail(): string;
  /** Resolves once it has exited and its output is closed (every line it printed delivered first): how it ended. */
  ended: Promise<string>;
  /**
   * `wait`, or, when the child ends first, a rejection saying so: `NAME exited with code 3
   * before WHAT; its last output: ...`.
   */
  before<T>(what: string, wait: Promise<T>): Promise<T>;
}

/** The watch of each stream of a watched child, so that a reader given only the stream finds its child. */
const byStream = new WeakMap<Readable, WatchedChild>();

/** How a child ended, in words. */
export const describeEnd = (code: number | null, signal: NodeJS.Signals | null): string =>
  signal ? `was killed by ${signal}` : `exited with code ${code}`;

/**
 * Starts watching `child` (call it right after spawning it, before any other turn of the
 * event loop: it reads stdout and stderr from their first byte). `name` says which child in
 * messages (`bot start`, `the quiz process`).
 */
export function watchChild(child: ChildProcess, name: string): WatchedChild {
  let tail = "";
  const keep = (chunk: Buffer | string) => {
    tail = (tail + chunk.toString()).slice(-TAIL);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  const ended = new Promise<string>((resolve) => {
    child.once("close", (code, signal) => resolve(describeEnd(code, signal)));
  });
  const watched: WatchedChild = {
    tail: () => tail,
    ended,
    before: (what, wait) =>
      Promise.race([
        wait,
        ended.then((how) => {
          throw new Error(
            `${name} ${how} before ${what}; ${tail.trim() === "" ? "it printed nothing" : `its last output:\n${tail}`}`,
          );
        }),
      ]),
  };
  for (const stream of [child.stdout, child.stderr]) if (stream) byStream.set(stream, watched);
  return watched;
}

/** The watch of the child whose stdout or stderr `stream` is, if it is watched. */
export const watchOf = (stream: Readable): WatchedChild | undefined => byStream.get(stream);
