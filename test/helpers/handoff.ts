/**
 * Takes a stream handoff's entries as hosting does (src/hosting/shared-apps.ts): each to
 * `handle`, said handled once it resolves (then the reader acknowledges it), failed when it
 * rejects. For tests of the handoff's readers and of the shared streams.
 */
import { PullQueue } from "../../src/pull-queue.ts";
import type { HandedEntry, HandoffEntry } from "../../src/redis/stream-handoff.ts";

/** Takes from `source` until it closes; a handling that never resolves leaves its entry unacknowledged. */
export function handEach(
  source: { take(): Promise<HandedEntry[] | undefined> },
  handle: (bot: string, entry: HandoffEntry) => Promise<void>,
): void {
  void (async () => {
    for (let batch = await source.take(); batch; batch = await source.take())
      for (const handed of batch) handle(handed.bot, handed.entry).then(handed.handled, handed.failed);
  })();
}

/** A reader's queue (its `handed` option), taken from by `handle`. */
export function handing(handle: (bot: string, entry: HandoffEntry) => Promise<void>): {
  handed: PullQueue<HandedEntry>;
} {
  const handed = new PullQueue<HandedEntry>();
  handEach(handed, handle);
  return { handed };
}
