/**
 * The author's history with this bot: whose replies it hid, and when. An author the bot hid
 * in the last {@link HISTORY_WINDOW_MS} (30 days) needs less evidence before the next hide
 * (see `cut.ts`). Kept in the bot's state, so a restart remembers, for the
 * {@link HISTORY_AUTHORS} authors hidden most recently.
 */
import { BoundedRecord, type KeyValue } from "./kv.ts";

/** How long a hide counts against its author: 30 days. */
export const HISTORY_WINDOW_MS = 30 * 24 * 3_600_000;
/** Authors remembered per bot (the least recently hidden are forgotten first). */
export const HISTORY_AUTHORS = 2_000;

/** One author's hides within the window. */
export interface AuthorRecord {
  /** When each hide was (ms), oldest first; at most 20. */
  at: number[];
}

/** What the history says of an author now. */
export interface AuthorHistoryFact {
  /** Hides of the author's replies within the window. */
  hides: number;
  /** The latest (ms). */
  last: number;
}

/** One bot's memory of the authors it hid; see the module comment. */
export class AuthorHistory {
  private readonly record: BoundedRecord<AuthorRecord>;

  constructor(
    kv: KeyValue,
    private readonly windowMs = HISTORY_WINDOW_MS,
  ) {
    this.record = new BoundedRecord(kv, "moderate:hidden-authors", HISTORY_AUTHORS);
  }

  /** The author's hides within the window before `now`, or undefined when there are none. */
  of(authorId: string, now: number): AuthorHistoryFact | undefined {
    const at = (this.record.get(authorId)?.at ?? []).filter((t) => t > now - this.windowMs && t <= now);
    return at.length === 0 ? undefined : { hides: at.length, last: at[at.length - 1]! };
  }

  /** Records a hide of the author's reply at `now`. */
  hid(authorId: string, now: number): void {
    const at = (this.record.get(authorId)?.at ?? []).filter((t) => t > now - this.windowMs);
    this.record.set(authorId, { at: [...at, now].slice(-20) });
  }
}
