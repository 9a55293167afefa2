/**
 * The author's history with this bot: whose replies it hid, and when; and whether the author
 * and the bot follow each other, as last looked up. An author the bot hid in the last
 * {@link HISTORY_WINDOW_MS} (30 days) needs less evidence before the next hide, a mutual
 * follow needs more (see `cut.ts`). Kept in the bot's state, one entry per author, so a
 * restart remembers, for the {@link HISTORY_AUTHORS} authors written most recently.
 */
import { RingRecord, type KeyValue } from "./kv.ts";

/** How long a hide counts against its author: 30 days. */
export const HISTORY_WINDOW_MS = 30 * 24 * 3_600_000;
/** Authors remembered per bot (the least recently added are forgotten first). */
export const HISTORY_AUTHORS = 5_000;
/** How long a looked-up mutual follow is trusted: a day. */
export const MUTUAL_TTL_MS = 24 * 3_600_000;

/** One author's record. */
export interface AuthorRecord {
  /** When each hide of the author's replies was (ms), oldest first; at most 20. */
  hid?: number[];
  /** Whether the author and the bot followed each other, and when that was looked up. */
  mutual?: { value: boolean; at: number };
}

/** What the history says of an author now. */
export interface AuthorHistoryFact {
  /** Hides of the author's replies within the window. */
  hides: number;
  /** The latest (ms). */
  last: number;
}

/** One bot's memory of its repliers; see the module comment. */
export class AuthorHistory {
  private readonly record: RingRecord<AuthorRecord>;

  constructor(
    kv: KeyValue,
    private readonly windowMs = HISTORY_WINDOW_MS,
  ) {
    this.record = new RingRecord(kv, "moderate:author", HISTORY_AUTHORS);
  }

  /** The author's hides within the window before `now`, or undefined when there are none. */
  of(authorId: string, now: number): AuthorHistoryFact | undefined {
    const at = (this.record.get(authorId)?.hid ?? []).filter((t) => t > now - this.windowMs && t <= now);
    return at.length === 0 ? undefined : { hides: at.length, last: at[at.length - 1]! };
  }

  /** Records a hide of the author's reply at `now`. */
  hid(authorId: string, now: number): void {
    const r = this.record.get(authorId) ?? {};
    const at = (r.hid ?? []).filter((t) => t > now - this.windowMs);
    this.record.set(authorId, { ...r, hid: [...at, now].slice(-20) });
  }

  /** Whether the author and the bot follow each other, as looked up within a day; undefined when not known. */
  mutual(authorId: string, now: number): boolean | undefined {
    const m = this.record.get(authorId)?.mutual;
    return m && now - m.at < MUTUAL_TTL_MS ? m.value : undefined;
  }

  /** Records a lookup of the follow between the author and the bot. */
  setMutual(authorId: string, value: boolean, now: number): void {
    this.record.set(authorId, { ...this.record.get(authorId), mutual: { value, at: now } });
  }
}
