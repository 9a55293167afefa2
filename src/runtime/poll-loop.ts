/**
 * How the runtime polls its triggers: the loop (poll, wait the interval on the clock, poll
 * again, until stopped), and one poll ({@link pollOnce}): the pages a {@link PolledTrigger}
 * asks for ({@link drive}), read through the bot's action layer by its {@link PageReads},
 * and what the trigger delivers put in the bot's inbox with its cursor's move, in one
 * commit. A polled event's way in goes through this module and its trigger only.
 *
 * A failed poll is reported and the loop goes on; `stop` ends the wait at once and lets a
 * poll in progress finish. The interval can change while the loop runs (bots sharing an
 * app's window joined or left it): the wait under way is shortened or lengthened to the new
 * interval, counted from the last poll.
 */
import type { ActionLayer } from "../actions/index.ts";
import type { EndpointKey } from "../api/endpoints.ts";
import type { ResponseOf } from "../api/schema.ts";
import type { Clock } from "../clock.ts";
import type { Logger } from "../log.ts";
import type { CursorDrop, PageRead, Poll, PolledTrigger } from "../triggers/events.ts";
import type { Inbox } from "./inbox.ts";
import type { Liveness } from "./liveness.ts";

/** One bot's poll of one trigger: the trigger, and the bot's reads, inbox and liveness it runs with. */
export interface PollOf<K extends EndpointKey, C, R> {
  trigger: PolledTrigger<K, C, R>;
  reads: PageReads;
  inbox: Pick<Inbox, "cursor" | "commit">;
  liveness: Pick<Liveness, "touch">;
  clock: Clock;
  log: Logger;
}

export interface PollLoopOptions<K extends EndpointKey, C, R> {
  clock: Clock;
  intervalMs: number;
  /** What each turn of the loop polls ({@link pollOnce}). */
  poll: PollOf<K, C, R>;
  /** A poll that threw. Returning "stop" ends the loop (a revoked token, say). */
  onError(err: unknown): "stop" | void;
}

export interface PollLoop {
  /** Resolves when the loop has ended. */
  readonly done: Promise<void>;
  /** The poll in progress, if one is (tests and shutdown wait for it). */
  current(): Promise<unknown> | undefined;
  /** The interval now. */
  intervalMs(): number;
  /** Changes the interval; the wait under way ends at the last poll plus the new interval. */
  setInterval(ms: number): void;
  stop(): void;
}

export function startPollLoop<K extends EndpointKey, C, R>(options: PollLoopOptions<K, C, R>): PollLoop {
  const { clock } = options;
  const stopper = new AbortController();
  let current: Promise<unknown> | undefined;
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
        current = pollOnce(options.poll, stopper.signal);
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

/**
 * The pages a bot's polls ask for, read through its action layer (budgeted; the answer's
 * headers correct the budget), and counted while under way, so the bot's triggers can tell a
 * poll waiting for the budget from one at work.
 */
export class PageReads {
  /** Reads under way (or waiting for the budget). */
  inFlight = 0;

  constructor(private readonly layer: ActionLayer) {}

  async read<K extends EndpointKey>(page: PageRead<K>, label: string, signal: AbortSignal): Promise<ResponseOf<K>> {
    this.inFlight++;
    try {
      return await this.layer.fetch(page.endpoint, page.args, { signal, label });
    } finally {
      this.inFlight--;
    }
  }
}

/**
 * Runs one poll: reads each page it asks for and resumes it with the answer (or throws the
 * read's error into it), drops a cursor it gives up (`drop`: durably, before it reads on;
 * only the mentions poll gives one up), and resolves with what it returns.
 */
export async function drive<K extends EndpointKey, R>(
  poll: Poll<K, R>,
  read: (page: PageRead<K>) => Promise<ResponseOf<K>>,
  drop?: (asked: CursorDrop) => Promise<void>,
): Promise<R> {
  let step = poll.next();
  while (!step.done) {
    const asked = step.value;
    if ("drop" in asked) {
      if (!drop) throw new Error(`this poll cannot drop its cursor: ${asked.warning}`);
      await drop(asked);
      step = poll.next();
      continue;
    }
    let page: ResponseOf<K>;
    try {
      page = await read(asked);
    } catch (err) {
      step = poll.throw(err);
      continue;
    }
    step = poll.next(page);
  }
  return step.value;
}

/**
 * One poll of a trigger: the pages it asks for from its cursor (as the inbox keeps it), read
 * through the action layer; what it delivers, settled against the cursor as it is then (the
 * stream may have delivered some mentions meanwhile), put in the inbox with the
 * cursor's move in one commit; the trigger's liveness touched. A cursor the trigger gives up
 * is dropped durably before it reads on, and said in the log. Resolves with the events
 * delivered, once they are durable.
 */
export async function pollOnce<K extends EndpointKey, C, R>(
  poll: PollOf<K, C, R>,
  signal: AbortSignal,
): Promise<number> {
  const { trigger, reads, inbox, log } = poll;
  const label = `${trigger.name} poll`;
  const found = await drive(
    trigger.pages(inbox.cursor<C>(trigger.cursorKey), poll.clock.now()),
    (page) => reads.read(page, label, signal),
    async ({ drop, warning }) => {
      await inbox.commit([], drop);
      log.warn({ trigger: trigger.name }, warning);
    },
  );
  const { events, move } = trigger.delivery(found, inbox.cursor<C>(trigger.cursorKey));
  await inbox.commit(events, move);
  poll.liveness.touch(trigger.name);
  return events.length;
}
