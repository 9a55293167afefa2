/**
 * The judge's opinion of each reply, recorded by the reply's id in the bot's state (a
 * ledger-like record beside the action ledger), so that a reply handled again, after a
 * restart or a takeover, is decided as before and the judge is not asked again. Bounded to
 * the {@link JUDGED_LIMIT} replies judged most recently.
 */
import { RingRecord, type KeyValue } from "../evidence/kv.ts";
import type { JudgeOpinion } from "./clients.ts";

export const JUDGED_LIMIT = 10_000;

/** One reply's recorded opinion: which judge gave it, and when. */
export interface JudgedRecord {
  judge: string;
  opinion: JudgeOpinion;
  at: number;
}

/** One bot's record of judged replies. */
export class JudgedReplies {
  private readonly record: RingRecord<JudgedRecord>;

  constructor(kv: KeyValue, max = JUDGED_LIMIT) {
    this.record = new RingRecord(kv, "moderate:judged", max);
  }

  get(postId: string): JudgedRecord | undefined {
    return this.record.get(postId);
  }

  set(postId: string, record: JudgedRecord): void {
    this.record.set(postId, record);
  }
}
