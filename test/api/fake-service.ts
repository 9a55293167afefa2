/**
 * A tiny HTTP server on 127.0.0.1:0 for the client's unit tests: each test says how to answer,
 * and the server records what it received, so tests can assert both sides of a call.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

export interface Received {
  method: string;
  /** Path and query, as sent. */
  url: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage["headers"];
  body: string;
  /** Resolves when this request's socket closes. */
  closed: Promise<void>;
  /** Order in which sockets closed (set when `closed` resolves). */
  closedSeq?: number;
  seq: number;
  /** How many earlier requests' sockets had closed when this one arrived. */
  closedBefore: number;
  /** The client's port: requests over one keep-alive connection share it. */
  remotePort: number;
}

export type Handler = (req: Received, res: ServerResponse, raw: IncomingMessage) => void | Promise<void>;

export interface FakeService {
  url: string;
  requests: Received[];
  /** Requests to one path. */
  to(path: string): Received[];
  /** Resolves when the server has received `n` requests in all. */
  waitForRequests(n: number): Promise<void>;
  handle(handler: Handler): void;
  close(): Promise<void>;
}

/** Starts a server that answers with `handler` (replaceable later with `handle`). */
export async function fakeService(handler: Handler = (_req, res) => void res.end()): Promise<FakeService> {
  let current = handler;
  const requests: Received[] = [];
  const waiters: Array<{ n: number; resolve: () => void }> = [];
  const sockets = new Set<Socket>();
  let seq = 0;
  let closeSeq = 0;
  const server = createServer(async (raw, res) => {
    const chunks: Buffer[] = [];
    for await (const c of raw) chunks.push(c as Buffer);
    const url = new URL(raw.url ?? "/", "http://x");
    const rec: Received = {
      method: raw.method ?? "",
      url: raw.url ?? "",
      path: url.pathname,
      query: url.searchParams,
      headers: raw.headers,
      body: Buffer.concat(chunks).toString("utf8"),
      closed: new Promise<void>((resolve) =>
        res.once("close", () => {
          rec.closedSeq = ++closeSeq;
          resolve();
        }),
      ),
      seq: ++seq,
      closedBefore: closeSeq,
      remotePort: raw.socket.remotePort ?? 0,
    };
    requests.push(rec);
    for (const w of waiters.filter((w) => requests.length >= w.n)) {
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve();
    }
    try {
      await current(rec, res, raw);
    } catch (err) {
      res.statusCode = 500;
      res.end(String(err));
    }
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    to: (path) => requests.filter((r) => r.path === path),
    waitForRequests: (n) =>
      requests.length >= n ? Promise.resolve() : new Promise((resolve) => waiters.push({ n, resolve })),
    handle(h) {
      current = h;
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Answers JSON with a status and headers. */
export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": String(Buffer.byteLength(text)),
    ...headers,
  });
  res.end(text);
}
