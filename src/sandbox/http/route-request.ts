/**
 * The {@link RouteRequest} the platform hands to an endpoint handler. A class rather than an
 * object of closures, because it is made for every request and closures per request showed
 * in profiles; the abort signal, which few handlers use, is made only when asked for.
 */
import type { ServerResponse } from "node:http";
import type { Endpoint } from "../../api/endpoints.ts";
import { countPostsRead } from "../meter/cap.ts";
import type { Caller, RouteRequest, SandboxContext } from "../route.ts";

export class PlatformRequest implements RouteRequest {
  private controller: AbortController | undefined;
  private gone = false;

  constructor(
    readonly sandbox: SandboxContext,
    readonly endpoint: Endpoint,
    readonly params: Record<string, string>,
    readonly query: URLSearchParams,
    readonly body: unknown,
    readonly caller: Caller,
    private readonly res: ServerResponse,
  ) {}

  countPostsRead(n: number): void {
    countPostsRead(this.sandbox.data, this.caller.app, this.sandbox.clock.now(), n);
  }

  /** Aborted when the client goes away before the answer is written, or when a stream ends. */
  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      const res = this.res;
      if (this.gone || (res.destroyed && !res.writableFinished)) this.controller.abort();
      else res.once("close", () => res.writableFinished || this.leave());
    }
    return this.controller.signal;
  }

  /** The connection is over for this request: aborts the signal if anyone holds it. */
  leave(): void {
    this.gone = true;
    this.controller?.abort();
  }
}
