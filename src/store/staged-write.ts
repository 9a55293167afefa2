/**
 * A write handed to another atomic step instead of being sent on its own: with the state on
 * Redis, the ledger's "pending" mark of an action is written by the same script that takes
 * the action's budget slot (src/redis/shared-windows.ts), so the mark and the slot cost one
 * round trip, not two, and exist either both or neither.
 *
 * The store prepares it ({@link Store.stageFor}): the commands that make the value (and the
 * rest of its shard's changes) durable, and the lease whose fencing token they must carry. The
 * step that runs it calls `done()` once it knows: with nothing when the commands were applied,
 * with the error (or `"not run"`) when they were not, so the store writes them another time
 * or, refused by the fence, stops the bot as a refused flush does.
 */
import type { Lease } from "../fencing.ts";

/** One command: `["HSET", key, field, value]`. */
export type StagedOp = readonly [command: string, ...args: string[]];

export interface StagedWrite {
  ops: StagedOp[];
  /**
   * The lease the commands are fenced by: applied only while its key (`key`) holds `value`
   * and its holder's heartbeat (`heartbeat`, in the same slot) is there.
   */
  fence?: { lease: Lease; key: string; value: string; heartbeat: string };
  /** Applied (`undefined`), or not: why (an error, or `"not run"` when the step decided not to, as a budget with no room). */
  done(failure?: unknown): void;
}
