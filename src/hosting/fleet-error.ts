/**
 * Why a change of the live fleet (a bot added, replaced, removed, paused or resumed while the
 * runtime runs) was refused: the message says what to do, and the kind lets the admin API
 * answer with the right status (404, 409, 503) without parsing it.
 */
import { UserError } from "../errors.ts";

/**
 * What kind of refusal: no such bot, a bot of that name exists already, a change that must be
 * made elsewhere (a bot file's bot is changed in its file), or the runtime is stopping.
 */
export type FleetErrorKind = "not-found" | "exists" | "conflict" | "stopping";

export class FleetError extends UserError {
  override name = "FleetError";

  constructor(
    readonly kind: FleetErrorKind,
    message: string,
  ) {
    super(message);
  }
}
