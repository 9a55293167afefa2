/**
 * OAuth 1.0a HMAC-SHA1 signatures, exactly as RFC 5849 section 3.4 defines them (wire-facts
 * 4.1). Pure functions, no state: {@link verifySignature} is what the sandbox runs on every
 * signed request, and the documented worked example is its unit test.
 *
 * The sandbox verifies independently of any client library, so a client that signs wrongly
 * (a `+` for a space, a JSON body in the base string, the wrong host) is refused here as the
 * real service would refuse it.
 */
import { createHmac } from "node:crypto";
import { sameSecret } from "./credentials.ts";

const UNRESERVED = /^[A-Za-z0-9._~-]*$/;

/**
 * RFC 3986 percent-encoding (RFC 5849 3.6): everything but `A-Z a-z 0-9 - . _ ~` as `%XX` of
 * its UTF-8 bytes, uppercase hex.
 */
export function percentEncode(value: string): string {
  if (UNRESERVED.test(value)) return value;
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** Parameters of an `Authorization: OAuth ...` header, decoded; `realm` is kept apart. */
export interface OAuthHeader {
  params: Map<string, string>;
  realm?: string;
}

/**
 * Parses an `Authorization: OAuth k="v", ...` header (RFC 5849 3.5.1): comma-separated
 * `key="value"` pairs, keys and values percent-encoded. Returns undefined for a header that
 * is not OAuth or not well formed, and for one that repeats a parameter (3.5.1 forbids it).
 */
export function parseOAuthHeader(header: string): OAuthHeader | undefined {
  // A hand-written scanner: this runs on every signed request, and regular expressions per
  // parameter showed in profiles.
  const h = header.trim();
  if (h.length < 5 || h.slice(0, 5).toLowerCase() !== "oauth") return undefined;
  if (h.length > 5 && !isSpace(h.charCodeAt(5))) return undefined;
  const params = new Map<string, string>();
  let realm: string | undefined;
  let i = 5;
  const n = h.length;
  let first = true;
  for (;;) {
    while (i < n && isSpace(h.charCodeAt(i))) i++;
    if (i >= n) break;
    if (!first) {
      if (h[i] !== ",") return undefined;
      i++;
      while (i < n && isSpace(h.charCodeAt(i))) i++;
    }
    first = false;
    const eq = h.indexOf("=", i);
    if (eq < 0) return undefined;
    const rawKey = h.slice(i, eq).trimEnd();
    if (rawKey === "" || /[\s,"]/.test(rawKey)) return undefined;
    i = eq + 1;
    while (i < n && isSpace(h.charCodeAt(i))) i++;
    if (h[i] !== '"') return undefined;
    const close = h.indexOf('"', i + 1);
    if (close < 0) return undefined;
    const rawValue = h.slice(i + 1, close);
    i = close + 1;
    let key = rawKey;
    let value = rawValue;
    try {
      if (rawKey.includes("%")) key = decodeURIComponent(rawKey);
      if (rawValue.includes("%")) value = decodeURIComponent(rawValue);
    } catch {
      return undefined;
    }
    if (key === "realm") {
      realm = value;
      continue;
    }
    if (params.has(key)) return undefined;
    params.set(key, value);
  }
  return { params, realm };
}

const isSpace = (c: number) => c === 32 || c === 9;

/**
 * The base string URI (RFC 5849 3.4.1.2): lowercase scheme and host, the port only when it
 * is not the scheme's default, the path as sent, no query.
 */
export function baseStringUri(scheme: string, host: string, path: string): string {
  const s = scheme.toLowerCase();
  let h = host.toLowerCase();
  if ((s === "http" && h.endsWith(":80")) || (s === "https" && h.endsWith(":443"))) h = h.slice(0, h.lastIndexOf(":"));
  return `${s}://${h}${path === "" ? "/" : path}`;
}

/**
 * The normalized parameter string (RFC 5849 3.4.1.3.2): every name and value
 * percent-encoded, sorted by name then value, joined as `k=v` with `&`. `oauth_signature`
 * is left out.
 */
export function normalizeParameters(params: Iterable<readonly [string, string]>): string {
  const pairs: Array<[string, string]> = [];
  for (const [k, v] of params) if (k !== "oauth_signature") pairs.push([percentEncode(k), percentEncode(v)]);
  pairs.sort(([ak, av], [bk, bv]) => (ak < bk ? -1 : ak > bk ? 1 : av < bv ? -1 : av > bv ? 1 : 0));
  return pairs.map(([k, v]) => `${k}=${v}`).join("&");
}

/** The signature base string (RFC 5849 3.4.1.1): `METHOD&pct(uri)&pct(params)`. */
export function signatureBaseString(method: string, uri: string, params: Iterable<readonly [string, string]>): string {
  return `${method.toUpperCase()}&${percentEncode(uri)}&${percentEncode(normalizeParameters(params))}`;
}

/** HMAC-SHA1 over the base string with `pct(consumer_secret)&pct(token_secret)`, base64. */
export function hmacSha1Signature(baseString: string, consumerSecret: string, tokenSecret = ""): string {
  // The key as a string, not a KeyObject kept per key: every account's token secret makes its
  // own key (100,000 with 100,000 accounts, so a cache of them missed nearly always and kept
  // thousands of native key objects), and a string key costs what a cached KeyObject did.
  const key = `${percentEncode(consumerSecret)}&${percentEncode(tokenSecret)}`;
  return createHmac("sha1", key).update(baseString).digest("base64");
}

/** A signed request, as the verifier needs it. */
export interface SignedRequest {
  method: string;
  /** The base string URI (see {@link baseStringUri}). */
  uri: string;
  /**
   * Every signed parameter: the query, a form body's fields, and the `oauth_*` parameters
   * of the header (with `oauth_signature`, which is skipped). Never a JSON body.
   */
  params: ReadonlyArray<readonly [string, string]>;
  signature: string;
}

/** Whether the request's signature is the HMAC-SHA1 of its base string (constant time). */
export function verifySignature(req: SignedRequest, consumerSecret: string, tokenSecret = ""): boolean {
  return sameSecret(
    req.signature,
    hmacSha1Signature(signatureBaseString(req.method, req.uri, req.params), consumerSecret, tokenSecret),
  );
}
