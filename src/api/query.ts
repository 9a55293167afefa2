/**
 * Turning typed request parameters into a URL: path templates filled, query values encoded
 * the one way both the service and the OAuth 1.0a signature agree on (RFC 3986, a space is
 * `%20`, never `+`), lists comma-joined, times at the second as the service wants them.
 */
import { ClientInputError } from "./errors.ts";

/** RFC 3986 percent-encoding, as OAuth 1.0a signing requires (RFC 5849 3.6). */
export function percentEncode(value: string): string {
  return encodeURIComponent(value).replace(/[!*'()]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** A value a query parameter may take in a typed request. */
type QueryValue = string | number | boolean | Date | readonly (string | number)[] | undefined | null;

/** `YYYY-MM-DDTHH:mm:ssZ`: the service's time parameter format (wire-facts 1.3; second granularity). */
export function formatTime(value: Date | string | number): string {
  const d = value instanceof Date ? value : new Date(value);
  if (Number.isNaN(d.getTime()))
    throw new ClientInputError(`${JSON.stringify(value)} is not a time; give a Date or an ISO-8601 string`);
  return d.toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** One query value as the service reads it, or undefined to leave the parameter out. */
function queryValue(name: string, value: QueryValue): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (value instanceof Date) return formatTime(value);
  if (Array.isArray(value)) {
    if (value.length === 0) return undefined;
    return value.map(String).join(",");
  }
  if (typeof value === "boolean" || typeof value === "number") {
    if (typeof value === "number" && !Number.isFinite(value))
      throw new ClientInputError(`query parameter ${name}: ${value} is not a finite number`);
    return String(value);
  }
  if (typeof value === "string") return value;
  throw new ClientInputError(
    `query parameter ${name}: a ${typeof value} cannot be sent; use a string, number, boolean, Date or array`,
  );
}

/** Time parameters: a Date is formatted; an ISO string is normalised to the second. */
const TIME_PARAMS = new Set(["start_time", "end_time"]);

/**
 * Encodes a query object (keys sorted, so a request is the same however it was built). A
 * `Date` given as a time parameter is a time of the local clock: `shiftMs` (the service's
 * clock minus the local one, ./service-time.ts) puts it in the service's time. An ISO string
 * is sent as it is (normalised to the second): it is taken to be the service's already.
 */
export function encodeQuery(query: Record<string, unknown> | undefined, shiftMs = 0): string {
  if (!query) return "";
  const parts: string[] = [];
  for (const name of Object.keys(query).sort()) {
    const raw = query[name] as QueryValue;
    const value = !TIME_PARAMS.has(name)
      ? queryValue(name, raw)
      : typeof raw === "string"
        ? formatTime(raw)
        : raw instanceof Date && shiftMs !== 0
          ? formatTime(raw.getTime() + shiftMs)
          : queryValue(name, raw);
    if (value !== undefined) parts.push(`${percentEncode(name)}=${percentEncode(value)}`);
  }
  return parts.join("&");
}

/** Encodes a form body (`application/x-www-form-urlencoded`) the way it is signed. */
export const encodeForm = (fields: Record<string, string>): string =>
  Object.entries(fields)
    .map(([k, v]) => `${percentEncode(k)}=${percentEncode(v)}`)
    .join("&");

/**
 * Fills a path template (`/2/users/:id/likes/:post_id`) with its parameters, each
 * percent-encoded; a missing or empty one is refused before any request, by name.
 */
export function fillPath(
  template: string,
  params: Record<string, string | number | undefined> | undefined,
  what: string,
): string {
  return template.replace(/:([a-z_]+)/g, (_, name: string) => {
    const v = params?.[name];
    if (v === undefined || v === null || String(v) === "") {
      throw new ClientInputError(`${what}: path parameter ${name} is missing; pass it in params.${name}`);
    }
    return percentEncode(String(v));
  });
}
