/**
 * What the status server answers, path by path: the page's files, `/metrics`, health and
 * readiness, the page's data and live updates, the review list, and the pages mounted beside
 * them (the admin API, the connect pages). Apart from src/observe/server.ts, which only
 * listens and wires, so a new path is added here without reading the server's start-up.
 */
import { readFileSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Clock } from "../clock.ts";
import { packageFile } from "../package-files.ts";
import type { Activity } from "./activity.ts";
import type { AdminApi } from "./admin-api.ts";
import { readiness, type Phase } from "./health.ts";
import type { LiveUpdates } from "./live.ts";
import type { Metrics } from "./metrics.ts";
import { reviewWhy } from "./review-words.ts";
import type { StatusSource } from "./source.ts";
import { parseViewQuery, statusView } from "./status-view.ts";

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

/**
 * What the server learns as the process goes on (the runtime once it runs, its phase, the
 * mounted pages): the server's methods change it and every request reads it as it is then.
 */
export interface ObserveState {
  source: StatusSource | undefined;
  phase: Phase;
  mounted: MountedPages | undefined;
}

/** What the routes read from: the server's state and the parts it made at start. */
export interface ObserveParts {
  state: ObserveState;
  clock: Clock;
  activity: Activity;
  metrics: Metrics;
  live: LiveUpdates;
  admin: AdminApi;
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

/** Answers `body` as JSON, never cached, with the security headers. */
export const json = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, {
    ...SECURITY_HEADERS,
    "content-type": "application/json; charset=utf-8",
    "cache-control": "no-store",
  });
  res.end(JSON.stringify(body));
};

/** The page's files with their bodies, read from the package once, at start. */
function readPage(): Record<string, { file: string; type: string; body: Buffer }> {
  const pageDir = packageFile("src/observe/page/");
  return Object.fromEntries(
    Object.entries(PAGE_FILES).map(([path, f]) => [path, { ...f, body: readFileSync(new URL(f.file, pageDir)) }]),
  );
}

/** The page's data, with the links to the mounted pages (connect an account; connect a revoked one again). */
async function statusData(parts: ObserveParts, url: URL) {
  const { state, activity, clock, admin } = parts;
  const view = statusView(state.source, activity, parseViewQuery(url.searchParams), state.phase, clock.now());
  const mounted = state.mounted;
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
}

/** Answers a GET or HEAD of one of the server's own paths (not the page's files). */
async function answerGet(parts: ObserveParts, req: IncomingMessage, res: ServerResponse, url: URL) {
  const { state, metrics, live, clock, admin } = parts;
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
      const r = readiness(state.phase, state.source);
      return json(res, r.status, r.body);
    }
    case "/api/status":
      return json(res, 200, await statusData(parts, url));
    case "/events":
      return live.handle(req, res);
    case "/api/review":
      // The replies moderation hid or was unsure of, as `bot review` lists them (read-only
      // here), each with why in `bot review`'s words, which the page shows.
      return json(res, 200, {
        now: clock.now(),
        items: (state.source?.review?.() ?? []).map((item) => ({ ...item, why: reviewWhy(item) })),
        admin: admin.on,
      });
    default:
      res.writeHead(404, { ...SECURITY_HEADERS, "content-type": "text/plain; charset=utf-8" });
      res.end("not found: the status page is at /, metrics at /metrics, health at /healthz and /readyz\n");
  }
}

/**
 * The server's request handler: the admin API and mounted pages first (they take other
 * methods than GET), then the page's files from memory, then the server's own paths.
 */
export function observeRoutes(parts: ObserveParts): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const page = readPage();
  return async (req, res) => {
    const url = new URL(req.url ?? "/", "http://localhost");
    if (parts.admin.handles(url.pathname)) return await parts.admin.handle(req, res, url);
    if (parts.state.mounted?.handles(url.pathname)) return await parts.state.mounted.handle(req, res, url);
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
    await answerGet(parts, req, res, url);
  };
}
