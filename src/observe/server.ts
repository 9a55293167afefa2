/**
 * The HTTP side of `bot start --http`: one small node:http server with
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
import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Clock } from "../clock.ts";
import { UserError } from "../errors.ts";
import { silentLogger, type Logger } from "../log.ts";
import { packageFile } from "../package-files.ts";
import { Activity } from "./activity.ts";
import { AdminApi, type AdminAccess, type FleetControl, type ReviewControl } from "./admin-api.ts";
import { readiness, type Phase } from "./health.ts";
import { formatHost, isLoopback, type HttpAddress } from "./http-address.ts";
import { LiveUpdates } from "./live.ts";
import { createMetrics, type Metrics } from "./metrics.ts";
import { fanOut, type RuntimeObserver } from "../hosting/observer.ts";
import type { StatusSource } from "./source.ts";
import { reviewWhy } from "./review-words.ts";
import { parseViewQuery, statusView } from "./status-view.ts";

export interface ObserveServerOptions extends HttpAddress {
  /** The runtime's clock: the page's ages and the poll lag are on it. */
  clock: Clock;
  logger?: Logger;
  /** The admin token (`POSTBOT_ADMIN_TOKEN`, {@link adminAccess}); without it the admin API is off. */
  admin?: AdminAccess;
}

/**
 * Pages served beside the status page by a layer above it (the connect pages, src/connect),
 * mounted once the bots run, and what the status page links to there.
 */
export interface MountedPages {
  handles(pathname: string): boolean;
  /** Answers one request (never throws). */
  handle(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void>;
  /** The page where accounts connect, when there is one to link to. */
  connectLink(): string | undefined;
  /** Of these bots (each paused because its account's token was refused), where each one's account connects again. */
  reconnectLinks(bots: readonly string[]): Promise<ReadonlyMap<string, string>>;
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

/** The page's files, read once: served from memory with their types. */
const PAGE_FILES: Record<string, { file: string; type: string }> = {
  "/": { file: "index.html", type: "text/html; charset=utf-8" },
  "/status.css": { file: "status.css", type: "text/css; charset=utf-8" },
  "/status.js": { file: "status.js", type: "text/javascript; charset=utf-8" },
  "/dom.js": { file: "dom.js", type: "text/javascript; charset=utf-8" },
  "/review": { file: "review.html", type: "text/html; charset=utf-8" },
  "/review.js": { file: "review.js", type: "text/javascript; charset=utf-8" },
};

/** Nothing but this server: no CDN, no inline script, no frame; user content can never run. */
const SECURITY_HEADERS = {
  "content-security-policy":
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
};

const json = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, {
    ...SECURITY_HEADERS,
    "content-type": "application/json; charset=utf-8",
    "cache-control": "no-store",
  });
  res.end(JSON.stringify(body));
};

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

/** Starts the server on `host:port` (port 0: any free port); see the module comment. */
export async function startObserveServer(options: ObserveServerOptions): Promise<ObserveServer> {
  const { clock } = options;
  const logger = options.logger ?? silentLogger;
  const pageDir = packageFile("src/observe/page/");
  const page = Object.fromEntries(
    Object.entries(PAGE_FILES).map(([path, f]) => [path, { ...f, body: readFileSync(new URL(f.file, pageDir)) }]),
  );

  let source: StatusSource | undefined;
  let phase: Phase = "starting";
  const activity = new Activity();
  const metrics = createMetrics({ source: () => source });
  const live = new LiveUpdates(activity, () => clock.now());
  const admin = new AdminApi(options.admin, logger);
  let mounted: MountedPages | undefined;

  /** The page's data, with the links to the mounted pages (connect an account; connect a revoked one again). */
  const status = async (url: URL) => {
    const view = statusView(source, activity, parseViewQuery(url.searchParams), phase, clock.now());
    if (!mounted) return { ...view, admin: admin.on };
    const refused = new Set([
      ...view.paused.filter((p) => p.accountRefused).map((p) => p.bot),
      ...view.bots.filter((b) => b.paused?.accountRefused).map((b) => b.bot),
    ]);
    const links = refused.size > 0 ? await mounted.reconnectLinks([...refused]) : new Map<string, string>();
    const withLink = <T extends { bot: string }>(row: T): T => {
      const reconnect = links.get(row.bot);
      return reconnect ? { ...row, reconnect } : row;
    };
    const connect = mounted.connectLink();
    return {
      ...view,
      paused: view.paused.map(withLink),
      bots: view.bots.map(withLink),
      admin: admin.on,
      ...(connect ? { connect } : {}),
    };
  };

  const route = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", "http://localhost");
    if (admin.handles(url.pathname)) return await admin.handle(req, res, url);
    if (mounted?.handles(url.pathname)) return await mounted.handle(req, res, url);
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.writeHead(405, { ...SECURITY_HEADERS, allow: "GET, HEAD", "content-type": "text/plain; charset=utf-8" });
      res.end("only GET and HEAD\n");
      return;
    }
    const file = page[url.pathname];
    if (file) {
      res.writeHead(200, { ...SECURITY_HEADERS, "content-type": file.type, "cache-control": "no-cache" });
      res.end(req.method === "HEAD" ? undefined : file.body);
      return;
    }
    switch (url.pathname) {
      case "/metrics": {
        const { contentType, body } = await metrics.scrape();
        res.writeHead(200, { "content-type": contentType, "cache-control": "no-store" });
        res.end(req.method === "HEAD" ? undefined : body);
        return;
      }
      case "/healthz":
        return json(res, 200, { live: true });
      case "/readyz": {
        const r = readiness(phase, source);
        return json(res, r.status, r.body);
      }
      case "/api/status":
        return json(res, 200, await status(url));
      case "/events":
        return live.handle(req, res);
      case "/api/review":
        // The replies moderation hid or was unsure of, as `bot review` lists them (read-only
        // here), each with why in `bot review`'s words, which the page shows.
        return json(res, 200, {
          now: clock.now(),
          items: (source?.review?.() ?? []).map((item) => ({ ...item, why: reviewWhy(item) })),
          admin: admin.on,
        });
      default:
        res.writeHead(404, { ...SECURITY_HEADERS, "content-type": "text/plain; charset=utf-8" });
        res.end("not found: the status page is at /, metrics at /metrics, health at /healthz and /readyz\n");
    }
  };

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
  const url = `http://${formatHost(options.host)}:${port}`;
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

  return {
    url,
    observer: fanOut(metrics.observer, activity),
    metrics,
    activity,
    attach(s) {
      source = s;
      phase = "running";
      activity.botsChanged();
    },
    review(desk) {
      admin.attachReview(desk);
    },
    manage(fleet) {
      admin.attach(fleet);
    },
    mount(pages) {
      mounted = pages;
      activity.botsChanged();
    },
    stopping() {
      phase = "stopping";
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
