/**
 * Reading an HTTP request safely: the request target (strict percent-decoding, so bad
 * escapes and bad UTF-8 are refused instead of silently replaced), and the body (with a size
 * cap, JSON that must be an object, form bodies). Everything here throws an
 * {@link ApiProblem} that names what was wrong; nothing here throws anything else.
 */
import type { IncomingMessage } from "node:http";
import type { Clock } from "../../clock.ts";
import { httpProblem, invalidRequest, type ApiProblem } from "../problems.ts";

/** The request target, split and validated. */
export interface Target {
  /** The path as sent, still percent-encoded: OAuth 1.0a signs it this way. */
  pathname: string;
  /** The query, strictly decoded (`+` is a space, as in form encoding). */
  query: URLSearchParams;
}

/** The body of a request that has none. */
export const NO_BODY = Buffer.alloc(0);

/** Whether a request has a body to read: most (GET, DELETE) have neither a length nor chunked encoding. */
export const hasBody = (req: IncomingMessage) =>
  req.headers["transfer-encoding"] !== undefined ||
  (req.headers["content-length"] !== undefined && req.headers["content-length"] !== "0");

const fatalUtf8 = new TextDecoder("utf-8", { fatal: true });

/** Decodes one form-encoded component; throws URIError on a bad escape or bad UTF-8. */
const decodeComponent = (s: string) => decodeURIComponent(s.replace(/\+/g, " "));

/**
 * Parses `application/x-www-form-urlencoded` text (a query string or a form body), refusing
 * what `URLSearchParams` would silently turn into U+FFFD. `where` names the part in errors.
 */
export function parseForm(text: string, where: "query" | "body"): URLSearchParams {
  const params = new URLSearchParams();
  if (text === "") return params;
  for (const pair of text.split("&")) {
    if (pair === "") continue;
    const eq = pair.indexOf("=");
    const rawKey = eq < 0 ? pair : pair.slice(0, eq);
    const rawValue = eq < 0 ? "" : pair.slice(eq + 1);
    let key: string;
    let value: string;
    try {
      key = decodeComponent(rawKey);
      value = decodeComponent(rawValue);
    } catch {
      const name = safeName(rawKey);
      throw invalidRequest(
        `The ${where} parameter ${name} is not valid percent-encoded UTF-8; encode every byte outside A-Z a-z 0-9 - . _ ~ as %XX of its UTF-8 form.`,
        { [name]: [] },
      );
    }
    params.append(key, value);
  }
  return params;
}

const safeName = (raw: string) => {
  try {
    return decodeComponent(raw);
  } catch {
    return raw.replace(/[^\w.-]/g, "?");
  }
};

/** Splits and validates `req.url`. */
export function parseTarget(url: string): Target {
  // Node hands over the request line as latin1; a byte outside printable ASCII was not encoded.
  if (/[^\x21-\x7e]/.test(url)) {
    throw invalidRequest("The request URL contains raw non-ASCII or control characters; percent-encode them as UTF-8.");
  }
  const q = url.indexOf("?");
  const pathname = q < 0 ? url : url.slice(0, q);
  const rawQuery = q < 0 ? "" : url.slice(q + 1).split("#")[0]!;
  try {
    decodeURIComponent(pathname);
  } catch {
    throw invalidRequest("The request path is not valid percent-encoded UTF-8.");
  }
  return { pathname, query: parseForm(rawQuery, "query") };
}

/**
 * The client went away before its body was complete (closed the connection mid-body). Not
 * the sandbox's failure: nobody is left to answer, and it is not counted as a server error.
 */
export class ClientGone extends Error {
  constructor(cause?: unknown) {
    super("the client closed the connection before its request body was complete", { cause });
  }
}

/** How a body is read: its size cap and, optionally, how long it may take to arrive. */
export interface BodyLimits {
  maxBytes: number;
  /** Time (on `clock`) the whole body may take; past it the answer is 408. */
  timeoutMs?: number;
  clock?: Clock;
}

/**
 * Reads the whole body. Too large (by its declared length, or once more than `maxBytes` has
 * arrived): 413 at once, while the rest is read and dropped so the client sees the answer
 * instead of a reset. Not complete within `timeoutMs`: 408, and the connection is closed.
 * A client that hangs up mid-body: {@link ClientGone}.
 */
export function readBody(req: IncomingMessage, limits: number | BodyLimits): Promise<Buffer> {
  const { maxBytes, timeoutMs, clock } = typeof limits === "number" ? { maxBytes: limits } : limits;
  if (!hasBody(req)) return Promise.resolve(NO_BODY);
  const declared = Number(req.headers["content-length"] ?? NaN);
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    // The deadline's timer, cancelled when the body settles. Not an AbortController: aborting
    // one makes a DOMException with its stack, and a rejected promise, for every body read.
    let cancelDeadline: (() => void) | undefined;
    const finish = (settle: () => void) => {
      if (done) return;
      done = true;
      cancelDeadline?.();
      req.off("data", onData).off("end", onEnd).off("error", onGone).off("close", onClose);
      settle();
    };
    const refuse = (err: ApiProblem) =>
      finish(() => {
        // Read and drop the rest, so the client reads the 413 rather than a reset; a body
        // that never ends is cut at the deadline.
        req.on("data", () => {}).on("error", () => {});
        if (timeoutMs !== undefined && clock)
          void clock.sleep(timeoutMs).then(() => req.complete || req.socket.destroy());
        reject(err);
      });
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) refuse(tooLarge(size, maxBytes));
      else chunks.push(chunk);
    };
    const onEnd = () => finish(() => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
    const onGone = (err?: unknown) => finish(() => reject(new ClientGone(err)));
    const onClose = () => {
      if (!req.complete) onGone();
    };
    if (declared > maxBytes) return refuse(tooLarge(declared, maxBytes));
    req.on("data", onData).on("end", onEnd).on("error", onGone).on("close", onClose);
    if (timeoutMs !== undefined && clock)
      cancelDeadline = clock.setTimeout(() => finish(() => reject(bodyTimeout(timeoutMs))), timeoutMs);
  });
}

const tooLarge = (size: number, max: number): ApiProblem =>
  httpProblem(
    413,
    "Payload Too Large",
    `The request body is ${size} bytes; the limit is ${max} bytes. Send a smaller body.`,
  );

/** 408 for a body that stopped arriving; the connection is closed with the answer. */
const bodyTimeout = (ms: number): ApiProblem =>
  httpProblem(
    408,
    "Request Timeout",
    `The request body did not arrive within ${ms / 1000} s. Send the whole body promptly.`,
    { connection: "close" },
  );

/** The media type of a request, lowercased, without parameters. */
export const mediaType = (req: IncomingMessage) =>
  (req.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();

export const isForm = (req: IncomingMessage) => mediaType(req) === "application/x-www-form-urlencoded";

/** Decodes a body as UTF-8, refusing bad bytes with a 400 that says so. */
export function utf8(body: Buffer): string {
  try {
    return fatalUtf8.decode(body);
  } catch {
    throw invalidRequest("The request body is not valid UTF-8.");
  }
}

/**
 * The JSON body a v2 endpoint expects: undefined when there is none, an object otherwise.
 * A body of any other content-type (a form, JSON sent as `text/plain`, none), malformed JSON,
 * or JSON that is not an object is refused with a 400 invalid-request that says which (the
 * service's own answer to a wrong content-type is not recorded; this is its answer to a body
 * it cannot read).
 */
export function jsonBody(req: IncomingMessage, body: Buffer): Record<string, unknown> | undefined {
  if (body.length === 0) return undefined;
  const type = mediaType(req);
  if (type !== "application/json") {
    const sent = type === "application/x-www-form-urlencoded" ? "a form" : type ? type : "no content-type";
    throw invalidRequest(`This endpoint takes a JSON body; send it with content-type application/json, not ${sent}.`);
  }
  const text = utf8(body);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw invalidRequest(`The request body is not valid JSON: ${(err as Error).message}.`);
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    const kind = value === null ? "null" : Array.isArray(value) ? "an array" : `a ${typeof value}`;
    throw invalidRequest(`The request body must be a JSON object, not ${kind}.`);
  }
  return value as Record<string, unknown>;
}

/** The form body of a request (empty when it is not form-encoded). */
export const formBody = (req: IncomingMessage, body: Buffer): URLSearchParams =>
  body.length > 0 && isForm(req) ? parseForm(utf8(body), "body") : NO_FIELDS;

/** The (never modified) fields of a request without a form body. */
const NO_FIELDS = new URLSearchParams();

/**
 * The fields of an OAuth 2.0 token or revoke request: the form body the spec names, or a
 * flat JSON object of the same fields, which widely used clients send (twitter-api-v2's
 * `loginWithOAuth2` and `refreshOAuth2Token` post JSON there, and the service accepts it).
 */
export function tokenRequestFields(req: IncomingMessage, body: Buffer): URLSearchParams {
  if (body.length === 0 || mediaType(req) !== "application/json") return formBody(req, body);
  const fields = new URLSearchParams();
  for (const [k, v] of Object.entries(jsonBody(req, body) ?? {})) {
    if (typeof v === "string" || typeof v === "number" || typeof v === "boolean") fields.append(k, String(v));
  }
  return fields;
}
