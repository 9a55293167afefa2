/**
 * What the ledger step does with an action's rider, for fake senders that stand in for the
 * action layer: its values set in the store (unless its owner superseded it), and it marked
 * taken.
 */
import { setAll } from "../../src/actions/mechanics/idempotency-ledger.ts";
import type { LedgerRider } from "../../src/actions/pipeline.ts";
import type { Store } from "../../src/store/store.ts";

export function takeRider(store: Store, rider: LedgerRider | undefined): void {
  if (!rider || rider.superseded) return;
  setAll(store, rider.writes);
  rider.taken = true;
}
