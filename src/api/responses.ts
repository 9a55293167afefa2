/**
 * Reading what the service answered. The service speaks three error dialects (wire-facts 3):
 * v2 problems, v1.1 `errors` with numeric codes (OAuth endpoints, 401/89, 403/99) and RFC 6749
 * `error` objects (OAuth 2.0 token endpoint). Each becomes its error class here, and anything
 * else (not JSON, truncated, an unknown shape) becomes a {@link ResponseError}: the caller
 * always gets a typed error that names the request, never a `SyntaxError`.
 */
import {
  ApiError,
  BearerTooFrequentError,
  InvalidTokenError,
  OAuth2Error,
  OAuthError,
  ProblemError,
  RateLimitError,
  ResponseError,
  UsageCappedError,
  type RequestInfo,
} from "./errors.ts";
import { headerValue, type HttpResponse } from "./http.ts";
import { parseRateLimitHeaders } from "./rate-limit-headers.ts";
import { problemKind, type Problem } from "./types.ts";

/** The v1.1 code of a signature whose `oauth_timestamp` is too far from the service's clock. */
export const TIMESTAMP_REFUSED = 135;

/** Whether an error is the service refusing a request's OAuth timestamp (401, code 135): the clocks disagree. */
export const isTimestampRefused = (err: unknown): boolean =>
  err instanceof OAuthError && err.code === TIMESTAMP_REFUSED;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Parses a JSON body, or says (as a {@link ResponseError}) why it is not one. */
function parseJson(info: RequestInfo, res: HttpResponse): unknown {
  const type = headerValue(res.headers, "content-type") ?? "no content-type";
  if (res.text.trim() === "")
    throw new ResponseError(info, `HTTP ${res.status} with an empty body where JSON was expected`, {
      status: res.status,
    });
  try {
    return JSON.parse(res.text);
  } catch {
    throw new ResponseError(
      info,
      `HTTP ${res.status} body is not valid JSON (${type}, ${Buffer.byteLength(res.text)} bytes): the response was truncated or is not from the service`,
      { status: res.status },
    );
  }
}

/** Whether a value has the shape of a v2 problem. */
const isProblem = (v: unknown): v is Problem =>
  isObject(v) && typeof v.type === "string" && typeof v.title === "string";

/** A short, printable excerpt of a plain-text error body (the OAuth endpoints send some). */
const excerpt = (text: string) => {
  const clean = text.replace(/\s+/g, " ").trim();
  return clean.length > 200 ? `${clean.slice(0, 200)}…` : clean;
};

/**
 * The error for a response whose status is not a success. Never throws: whatever the body,
 * the result is an {@link ApiError}.
 */
export function errorFromResponse(info: RequestInfo, res: HttpResponse): ApiError {
  const status = res.status;
  let body: unknown;
  try {
    body = res.text.trim() === "" ? undefined : JSON.parse(res.text);
  } catch {
    body = undefined;
  }

  if (status === 429) {
    if (isProblem(body) && problemKind(body) === "usage-capped") return new UsageCappedError(info, body);
    const window = parseRateLimitHeaders(res.headers).window ?? {};
    return new RateLimitError(info, window, isProblem(body) ? body : undefined);
  }

  if (isObject(body)) {
    const errors = body.errors;
    if (Array.isArray(errors) && errors.length > 0 && isObject(errors[0]) && typeof errors[0].code === "number") {
      const { code, message } = errors[0] as { code: number; message?: unknown };
      const text = typeof message === "string" ? message : "";
      if (code === 89) return new InvalidTokenError(info, text || undefined);
      if (code === 99) return new BearerTooFrequentError(info, text || undefined);
      if (code === TIMESTAMP_REFUSED)
        return new OAuthError(
          info,
          status,
          code,
          text,
          "; the request's time is more than 5 minutes off the service's: set this host's clock right (NTP)",
        );
      return new OAuthError(info, status, code, text);
    }
    if (typeof body.error === "string") {
      return new OAuth2Error(
        info,
        status,
        body.error,
        typeof body.error_description === "string" ? body.error_description : undefined,
      );
    }
    if (isProblem(body)) {
      if (problemKind(body) === "usage-capped") return new UsageCappedError(info, body);
      return new ProblemError(info, status, body);
    }
  }

  const type = headerValue(res.headers, "content-type") ?? "";
  if (type.startsWith("text/plain") && res.text.trim())
    return new ResponseError(info, `HTTP ${status}: ${excerpt(res.text)}`, { status });
  const what =
    res.text.trim() === ""
      ? "an empty body"
      : body === undefined
        ? "a body that is not JSON"
        : "a body of no known error shape";
  return new ResponseError(info, `unexpected HTTP ${status} with ${what}`, { status });
}

/** Parses a successful v2 answer: a JSON object, or a {@link ResponseError}. */
export function parseEnvelope(info: RequestInfo, res: HttpResponse): Record<string, unknown> {
  const body = parseJson(info, res);
  if (!isObject(body))
    throw new ResponseError(info, `HTTP ${res.status} body is JSON but not an object`, { status: res.status });
  return body;
}

/** Parses a form-encoded answer (`a=1&b=2`, the OAuth 1.0a endpoints), requiring the named fields. */
export function parseForm(info: RequestInfo, res: HttpResponse, required: readonly string[]): Record<string, string> {
  const text = res.text.trim();
  const fields: Record<string, string> = {};
  if (text.startsWith("{")) {
    // Some deployments answer JSON although the spec shows a form; accept both.
    const body = parseJson(info, res);
    if (isObject(body))
      for (const [k, v] of Object.entries(body))
        if (typeof v === "string" || typeof v === "number" || typeof v === "boolean") fields[k] = String(v);
  } else {
    for (const [k, v] of new URLSearchParams(text)) fields[k] = v;
  }
  const missing = required.filter((k) => !fields[k]);
  if (missing.length > 0) {
    throw new ResponseError(
      info,
      `HTTP ${res.status} answer lacks ${missing.join(", ")} (got fields: ${Object.keys(fields).join(", ") || "none"})`,
      {
        status: res.status,
      },
    );
  }
  return fields;
}
