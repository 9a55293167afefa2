/**
 * Turns of the event loop for the work around a model's request, so that a hundred requests
 * going out, or a hundred answers coming back at once, do not hold back the bot's other
 * actions while they are worked on: each takes the next free turn (one `setImmediate` after
 * the previous one's), so between any two of them the process reads what else came in (a
 * stream's line, another request's answer) and a like that arrived meanwhile goes out at once
 * instead of behind all of them. When nothing else waits a turn costs a few microseconds.
 *
 * Not a timer: no time passes on any clock, only the order of work changes.
 */

/** One after another, each in a turn of its own; see the module comment. */
export class Turns {
  private last: Promise<void> = Promise.resolve();

  /** Resolves in the first turn of the event loop after the previous caller's. */
  next(): Promise<void> {
    const turn = this.last.then(() => new Promise<void>((resolve) => setImmediate(resolve)));
    this.last = turn;
    return turn;
  }
}

/** The process's turns for the work around model requests (every bot's writer takes them). */
export const modelTurns = new Turns();
