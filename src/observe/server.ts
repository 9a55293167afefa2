/**
 * The HTTP side of `bot start --http`: one small node:http server (its paths answered in
 * ./routes.ts) with
 *
 * - `GET /metrics`: Prometheus text ({@link createMetrics});
 * - `GET /healthz` (live) and `GET /readyz` (ready; 503 with what is not);
 * - `GET /`: the status page (plain HTML, CSS and JS from `./page`, no build step, nothing
 *   loaded from elsewhere: its Content-Security-Policy allows this server only);
 * - `GET /api/status?q=&state=&page=&per=`: the page's data ({@link statusView});
 * - `GET /events`: its live updates ({@link LiveUpdates});
 * - `GET /review` and `GET /api/review`: the replies moderation hid or was unsure of, with
 *   why and any decision; deciding there goes through the admin API (its token), or
 *   `bot review` on the machine.
 * - `/api/admin/...`: the admin API ({@link AdminApi}: the fleet's changes and review
 *   decisions, behind `POSTBOT_ADMIN_TOKEN`; off without one).
 * - `/connect/...`: the pages where accounts connect themselves (src/connect), mounted with
 *   {@link ObserveServer.mount} once the bots run; the page links there.
 *
 * It starts before the bots (so `/healthz` answers and `/readyz` says "starting" while a
 * thousand bots start), is given the runtime with {@link ObserveServer.attach} once it runs,
 * and holds nothing of the runtime but that read-only {@link StatusSource}.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Clock } from "../clock.ts";
import { UserError } from "../errors.ts";
import { silentLogger, type Logger } from "../log.ts";
import { Activity } from "./activity.ts";
import { AdminApi, type AdminAccess, type FleetControl, type ReviewControl } from "./admin-api.ts";
import { formatHost, isLoopback, type HttpAddress } from "./http-address.ts";
import { LiveUpdates } from "./live.ts";
import { createMetrics, type Metrics } from "./metrics.ts";
import { fanOut, type RuntimeObserver } from "../hosting/observer.ts";
import { json, type MountedPages, type ObserveState, observeRoutes } from "./routes.ts";
import type { StatusSource } from "./source.ts";

export interface ObserveServerOptions extends HttpAddress {
  /** The runtime's clock: the page's ages and the poll lag are on it. */
  clock: Clock;
  logger?: Logger;
  /** The admin token (`POSTBOT_ADMIN_TOKEN`, {@link adminAccess}); without it the admin API is off. */
  admin?: AdminAccess;
}

export interface ObserveServer {
  /** `http://127.0.0.1:9464` (the port the system gave when 0 was asked). */
  readonly url: string;
  /** Give it to the runtime (`RuntimeOptions.observer`): it feeds the metrics and the page. */
  readonly observer: RuntimeObserver;
  readonly metrics: Metrics;
  readonly activity: Activity;
  /** The runtime runs: read its status from now on. */
  attach(source: StatusSource): void;
  /** The fleet the admin API changes (once the bots run). */
  manage(fleet: FleetControl): void;
  /** The desk the admin API sends review decisions through (`/review`'s buttons; once the bots run). */
  review(desk: ReviewControl): void;
  /** Serves these pages too (the connect pages, once the bots run), and links to them. */
  mount(pages: MountedPages): void;
  /** The runtime is stopping: not ready any more. */
  stopping(): void;
  /** Ends the live updates and closes every connection. */
  close(): Promise<void>;
}

/** Why the server could not listen, as a user can fix it. */
function listenError(err: NodeJS.ErrnoException, where: string): Error {
  const hint =
    err.code === "EADDRINUSE"
      ? "another program listens there; pick another port"
      : err.code === "EACCES"
        ? "this user may not listen there (ports below 1024 need privileges); pick a port above 1024"
        : err.code === "EADDRNOTAVAIL" || err.code === "ENOTFOUND"
          ? "this machine has no such address; use 127.0.0.1 or one of its own addresses"
          : `${err.message}`;
  return new UserError(`--http ${where}: cannot listen (${err.code ?? "error"}): ${hint}`, { exitCode: 2, cause: err });
}

/** Listens on `host:port` and answers with `route`; resolves to the server and its URL. */
async function listen(
  options: HttpAddress,
  route: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
  logger: Logger,
): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    route(req, res).catch((err: unknown) => {
      logger.error({ err, path: req.url }, "the status server could not answer");
      if (!res.headersSent) json(res, 500, { error: "internal error; see the log" });
      else res.end();
    });
  });
  const where = `${formatHost(options.host)}:${options.port}`;
  await new Promise<void>((resolve, reject) => {
    server.once("error", (err) => reject(listenError(err as NodeJS.ErrnoException, where)));
    server.listen(options.port, options.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return { server, url: `http://${formatHost(options.host)}:${port}` };
}

/** Says where the pages are, and warns when they are reachable from other machines. */
function announce(logger: Logger, url: string, options: ObserveServerOptions): void {
  if (!isLoopback(options.host)) {
    logger.warn(
      { http: url },
      `the status page and metrics listen on ${url}, not only on this machine; they have no authentication, so whoever reaches that address sees what the bots do (use 127.0.0.1 unless a firewall or proxy guards it)`,
    );
  }
  logger.info(
    { http: url },
    `status page at ${url}/, metrics at ${url}/metrics, health at ${url}/healthz and ${url}/readyz`,
  );
  if (options.admin)
    logger.info(
      { http: url, admin: options.admin.name },
      `admin API at ${url}/api/admin/bots, for the holder of POSTBOT_ADMIN_TOKEN (${options.admin.name})${isLoopback(options.host) ? "" : "; the token crosses the network in the clear unless a TLS proxy stands in front"}`,
    );
}

/** Starts the server on `host:port` (port 0: any free port); see the module comment. */
export async function startObserveServer(options: ObserveServerOptions): Promise<ObserveServer> {
  const { clock } = options;
  const logger = options.logger ?? silentLogger;
  const state: ObserveState = { source: undefined, phase: "starting", mounted: undefined };
  const activity = new Activity();
  const metrics = createMetrics({ source: () => state.source });
  const live = new LiveUpdates(activity, () => clock.now());
  const admin = new AdminApi(options.admin, logger);
  const route = observeRoutes({ state, clock, activity, metrics, live, admin });
  const { server, url } = await listen(options, route, logger);
  announce(logger, url, options);

  return {
    url,
    observer: fanOut(metrics.observer, activity),
    metrics,
    activity,
    attach(s) {
      state.source = s;
      state.phase = "running";
      activity.botsChanged();
    },
    review(desk) {
      admin.attachReview(desk);
    },
    manage(fleet) {
      admin.attach(fleet);
    },
    mount(pages) {
      state.mounted = pages;
      activity.botsChanged();
    },
    stopping() {
      state.phase = "stopping";
      activity.botsChanged();
    },
    async close() {
      live.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
