/**
 * The spec requires HTTPS for every OAuth step (part 4, part 5 rule 1), and tokens travel in
 * every request's headers, so the client refuses plain HTTP to anything but this machine.
 * Loopback is allowed because the sandbox listens there and nothing leaves the host.
 */
import { isIP } from "node:net";
import { UserError } from "../errors.ts";

/** Whether a URL's host is this machine: `localhost`, 127.0.0.0/8 or ::1. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  if (host === "localhost" || host.endsWith(".localhost")) return true;
  if (isIP(host) === 4) return host.startsWith("127.");
  if (isIP(host) === 6) return host === "::1" || host === "0:0:0:0:0:0:0:1" || /^::ffff:127\./.test(host);
  return false;
}

/**
 * Parses a service base URL and refuses one the client must not use: not a URL, not HTTP(S),
 * or plain HTTP to a host other than loopback. `what` names where the URL came from
 * (`POSTBOT_BASE_URL`, `baseUrl`), so the message says what to fix.
 */
export function secureBaseUrl(raw: string | URL, what = "base URL"): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UserError(`${what} ${JSON.stringify(String(raw))} is not a URL; give one like https://api.example.com`);
  }
  if (url.protocol === "https:") return url;
  if (url.protocol === "http:") {
    if (isLoopbackHost(url.hostname)) return url;
    throw new UserError(
      `${what} ${url.origin} uses plain HTTP: the service needs HTTPS for every request and OAuth step ` +
        `(plain HTTP is allowed only to loopback: localhost, 127.0.0.0/8, ::1); use https://${url.host}${url.pathname === "/" ? "" : url.pathname}`,
    );
  }
  throw new UserError(`${what} ${JSON.stringify(url.href)} must start with https:// (or http:// for loopback)`);
}
