/**
 * The `/connect/...` pages on the `bot start --http` server (./flow.ts does the work):
 *
 * | request | page |
 * |---|---|
 * | `GET /connect` | the templates, each with its connect and disconnect links |
 * | `GET /connect/NAME` | off to the service to connect an account with the template NAME |
 * | `GET /connect/NAME/disconnect` | off to the service to sign in, then the disconnect form |
 * | `GET /connect/callback` | where the service sends the browser back |
 * | `POST /connect/disconnect` | the disconnect form's answer |
 *
 * Every page is sent with `Cache-Control: no-store` and `Referrer-Policy: no-referrer` (the
 * callback's address holds the flow's token and verifier; no link may carry it elsewhere), and
 * a Content-Security-Policy allowing this server's stylesheet and nothing else.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { parseCookies } from "../cookies.ts";
import type { Logger } from "../log.ts";
import type { DynamicBots } from "../store/dynamic-bots.ts";
import { templateOf, type Connect, type ConnectReply } from "./flow.ts";
import { CONNECT_CSS, CONNECT_CSS_PATH, messagePage } from "./pages.ts";

const HEADERS = {
  "content-security-policy":
    "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cache-control": "no-store",
};

/** The largest form accepted (the disconnect form holds one field). */
const MAX_FORM = 8 * 1024;

/** Reads a small form body; `undefined` when it is larger than {@link MAX_FORM}. */
async function readForm(req: IncomingMessage): Promise<URLSearchParams | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_FORM) return undefined;
    chunks.push(chunk);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString("utf8"));
}

/**
 * The connect pages of one process: {@link ConnectPages.handles} says which paths are theirs;
 * the status server mounts them (src/observe/routes.ts `MountedPages`) and links to them.
 */
export class ConnectPages {
  constructor(
    private readonly connect: Connect,
    private readonly dynamic: DynamicBots,
    private readonly logger: Logger,
  ) {}

  /** `/connect` while there are templates to connect with. */
  connectLink(): string | undefined {
    return this.connect.hasTemplates() ? "/connect" : undefined;
  }

  /** Where each of these bots' accounts connects again: the page of the template it was made from. */
  async reconnectLinks(bots: readonly string[]): Promise<ReadonlyMap<string, string>> {
    const links = new Map<string, string>();
    for (const bot of bots) {
      const template = templateOf((await this.dynamic.get(bot))?.origin);
      if (template) links.set(bot, `/connect/${encodeURIComponent(template)}`);
    }
    return links;
  }

  /** Whether a path is one of the connect pages'. */
  handles(pathname: string): boolean {
    return pathname === "/connect" || pathname.startsWith("/connect/");
  }

  /** Answers a request to one of the connect pages (never throws). */
  async handle(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    let reply: ConnectReply;
    try {
      reply = await this.route(req, url);
    } catch (err) {
      this.logger.error(
        { err: (err as Error)?.message, path: url.pathname },
        `connect: ${req.method} ${url.pathname} failed: ${(err as Error)?.message ?? String(err)}`,
      );
      reply = {
        status: 500,
        html: messagePage(
          "Something went wrong",
          "This page failed on postbot's side; its log says why. Try again in a moment.",
          { error: true, links: [{ href: "/connect", text: "Start again" }] },
        ),
      };
    }
    if (reply.location) {
      res.writeHead(reply.status, { ...HEADERS, location: reply.location });
      res.end();
      return;
    }
    res.writeHead(reply.status, {
      ...HEADERS,
      "content-type": reply.type ?? "text/html; charset=utf-8",
      ...(reply.cookie ? { "set-cookie": reply.cookie } : {}),
    });
    res.end(req.method === "HEAD" ? undefined : reply.html);
  }

  private async route(req: IncomingMessage, url: URL): Promise<ConnectReply> {
    const path = url.pathname.replace(/\/+$/, "") || "/";
    const method = req.method ?? "GET";
    if (path === "/connect/disconnect") {
      if (method !== "POST") return notAllowed("the disconnect form posts here");
      const form = await readForm(req);
      if (!form)
        return {
          status: 413,
          html: messagePage("Too large", "That form is larger than this page takes.", { error: true }),
        };
      return await this.connect.disconnect(form, parseCookies(req.headers.cookie));
    }
    if (method !== "GET" && method !== "HEAD") return notAllowed("these pages are read with GET");
    if (path === CONNECT_CSS_PATH) return { status: 200, html: CONNECT_CSS, type: "text/css; charset=utf-8" };
    if (path === "/connect") return await this.connect.index();
    if (path === "/connect/callback") return await this.connect.callbackPage(url.searchParams);
    const parts = path.slice("/connect/".length).split("/");
    const name = decodeURIComponentSafe(parts[0] ?? "");
    if (parts.length === 1 && name) return await this.connect.start(name, "connect");
    if (parts.length === 2 && name && parts[1] === "disconnect") return await this.connect.start(name, "sign-in");
    return {
      status: 404,
      html: messagePage("Not found", "There is no such connect page.", {
        error: true,
        links: [{ href: "/connect", text: "See the templates" }],
      }),
    };
  }
}

const notAllowed = (why: string): ConnectReply => ({
  status: 405,
  html: messagePage("Not allowed", `That request is not allowed here: ${why}.`, { error: true }),
});

const decodeURIComponentSafe = (s: string) => {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
};
