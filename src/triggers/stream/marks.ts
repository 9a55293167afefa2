/**
 * Where an app's stream left off: the last post it delivered, kept in the state (and, with
 * the state in Redis, shared by the processes: ../../redis/stream-marks.ts), so that whoever
 * starts the app's stream next (a fresh process, a restart, a process taking the stream over
 * from one that died) first closes the gap since then with recent search, as the hub does
 * after a reconnect within one process (../stream-hub.ts).
 *
 * The mark only moves past a post once every post before it that matched the rules was
 * delivered: while a gap is being recovered it stays where the gap began, and a gap that
 * could not be recovered keeps it there for the next start to try again. Saving it lags
 * behind delivery at worst (a crash between the two): the next start then searches a little
 * more than needed, and what it finds again is handled once (the hub's seen-set within a run,
 * the ledger across runs).
 */
import { compareIds } from "../../api/ids.ts";
import type { Logger } from "../../log.ts";
import type { Store } from "../../store/store.ts";
import { messageOf } from "./failures.ts";

/** An app stream's mark; see the module comment. */
export interface StreamMark {
  /** The newest post up to which every matching post was delivered (recent search's `since_id`); none before the first. */
  id?: string;
  /** When that post was delivered, or without one when the stream first connected (clock ms): where a search without `since_id` starts. */
  at: number;
  /** Until when the stream was known to be connected (clock ms): where the gap of the next start begins. */
  until: number;
}

/** Where the apps' marks are kept. */
export interface StreamMarks {
  /** The app's mark as last saved, if its stream ever connected. */
  read(appId: string): Promise<StreamMark | undefined>;
  /** Saves the app's mark (made durable with the state's next write). */
  save(appId: string, mark: StreamMark): void;
}

/** The namespace of the marks in a {@link Store} (key: the app id). */
export const STREAM_MARKS_NAMESPACE = "stream.marks";

/**
 * The marks in the state store of a process that runs its apps alone: set with the events
 * the same post delivered (the bots' inboxes), so one flush makes both durable.
 */
export function storeMarks(store: Store): StreamMarks {
  return {
    read: async (appId) => store.get<StreamMark>(STREAM_MARKS_NAMESPACE, appId),
    save: (appId, mark) => store.set(STREAM_MARKS_NAMESPACE, appId, mark),
  };
}

/** How far back recent search reaches (the service: the last 7 days). */
export const RECENT_SEARCH_REACH_MS = 7 * 24 * 3_600_000;
/** Kept off the edge of recent search's reach, for the time a request takes and clocks that differ a little. */
export const REACH_MARGIN_MS = 60_000;

/**
 * A hub's mark as its stream goes (see the module comment): it moves with each post the
 * stream delivers, holds still while a gap is being recovered, and stays for good where a gap
 * began that could not be recovered. Every move is handed to `save`.
 */
export class MarkKeeper {
  private current: StreamMark | undefined;
  /** The newest post delivered in this run, from the stream or a gap's search. */
  private newest: string | undefined;
  /** Gaps being recovered now. */
  private holding = 0;
  /** A gap could not be recovered: the mark stays where it began, for the next start. */
  private stuck = false;

  constructor(private readonly save: (mark: StreamMark) => void) {}

  /** Where an earlier run left off: kept (and saved again as it is) until this run moves past it. */
  resume(mark: StreamMark): void {
    this.current = { ...mark };
  }

  /** The stream connected: a first mark if there is none (nothing delivered yet, ever). */
  connected(now: number): void {
    if (this.current) return;
    this.current = { at: now, until: now };
    this.save({ ...this.current });
  }

  /**
   * A post was delivered (from the stream: `streamed`, or a gap's search), its events taken
   * where they go. A gap's post taken once its gap ended moves the mark as the gap's end did.
   */
  delivered(id: string, now: number, streamed: boolean): void {
    if (this.newest === undefined || compareIds(id, this.newest) > 0) this.newest = id;
    if (streamed || this.holding === 0) this.advance(now);
  }

  /** A gap's recovery starts: the mark holds still until it ends. */
  holdForGap(): void {
    this.holding++;
  }

  /** A gap's recovery ended: recovered (`ok`), the mark moves to the newest post; not, it stays. */
  gapEnded(ok: boolean, now: number): void {
    this.holding--;
    if (!ok) this.stuck = true;
    this.advance(now);
  }

  /** The connection ended (or the hub closed while connected): the stream was there until now. */
  lostAt(now: number): void {
    if (!this.current || this.stuck) return;
    this.current.until = now;
    this.save({ ...this.current });
  }

  /** The mark now: its `until` is now while `connected` (and nothing held it back). */
  now(now: number, connected: boolean): StreamMark | undefined {
    if (!this.current) return undefined;
    return connected && !this.stuck && this.holding === 0 ? { ...this.current, until: now } : { ...this.current };
  }

  private advance(now: number): void {
    if (!this.current || this.stuck || this.holding > 0) return;
    const id = this.newest ?? this.current.id;
    const moved = id !== this.current.id;
    this.current = { ...(id !== undefined ? { id } : {}), at: moved ? now : this.current.at, until: now };
    this.save({ ...this.current });
  }
}

/**
 * The earlier run's mark, read once before the first connection: a failure to read it is
 * said, and the stream starts without (what matched while no process held it is then not
 * searched for, but nothing else is held up).
 */
export async function readEarlierMark(
  resume: (() => Promise<StreamMark | undefined>) | undefined,
  log: Logger,
): Promise<StreamMark | undefined> {
  try {
    return await resume?.();
  } catch (err) {
    log.error(
      { err },
      `could not read where the app's stream left off: ${messageOf(err)}; what matched the rules while no process held the stream is not searched for`,
    );
    return undefined;
  }
}
