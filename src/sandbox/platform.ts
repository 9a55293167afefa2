/**
 * The sandbox's shared machinery, as the HTTP platform's parts see it: the context the
 * endpoint handlers get, plus what only the platform uses (the adjustable clock, the nonce
 * cache, injected faults, the logger, defaults). One value per sandbox, made by
 * `createSandbox`, passed to authentication, limits, the OAuth endpoints and the admin API.
 */
import type { IncomingMessage } from "node:http";
import type { AdjustableClock } from "../clock.ts";
import type { Logger } from "../log.ts";
import type { Plan } from "../limits/types.ts";
import type { NonceCache } from "./auth/nonces.ts";
import type { FaultRegistry } from "./faults.ts";
import type { WindowBook } from "./meter/windows.ts";
import type { Target } from "./http/request.ts";
import type { SandboxContext } from "./route.ts";

export interface Platform {
  context: SandboxContext;
  clock: AdjustableClock;
  logger: Logger;
  nonces: NonceCache;
  faults: FaultRegistry;
  /** The live rate-limit windows (written back to `data.meter.windows` on save). */
  windows: WindowBook;
  /** Plan of apps created without one. */
  defaultPlan: Plan;
  adminToken: string;
}

/** A request as the platform has read it: target split, body read (not yet interpreted). */
export interface Incoming {
  req: IncomingMessage;
  method: string;
  target: Target;
  body: Buffer;
  /** The fields of a form-encoded body (signed by OAuth 1.0a); empty for any other body. */
  form: URLSearchParams;
  /** The base string URI of this request as the client addressed it (Host header). */
  uri: string;
  /** The cookies the browser sent (the authorization pages' session). */
  cookies: ReadonlyMap<string, string>;
}
