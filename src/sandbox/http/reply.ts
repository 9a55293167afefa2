/**
 * What the sandbox's non-v2 handlers (OAuth endpoints, HTML pages, the admin API) answer: a
 * status, headers and a finished body. The v2 handlers answer {@link JsonResult}s instead;
 * both end up here before they are written, so there is one place that knows content types.
 */
import { V1_ERRORS, type Problem } from "../../api/types.ts";
import type { ApiProblem } from "../problems.ts";

export interface Reply {
  status: number;
  headers: Record<string, string>;
  body: string;
}

const JSON_TYPE = "application/json; charset=utf-8";
const PROBLEM_TYPE = "application/problem+json";

/** A JSON reply. */
export function jsonReply(status: number, value: unknown, headers: Record<string, string> = {}): Reply {
  return { status, headers: { "content-type": JSON_TYPE, ...headers }, body: JSON.stringify(value) };
}

/** A v2 problem reply (`application/problem+json`, as the real service sends errors). */
export function problemReply(status: number, problem: Problem, headers: Record<string, string> = {}): Reply {
  return { status, headers: { "content-type": PROBLEM_TYPE, ...headers }, body: JSON.stringify(problem) };
}

/** The reply of a thrown {@link ApiProblem}. */
export const replyOf = (p: ApiProblem): Reply => problemReply(p.status, p.problem, p.headers);

/** A v1.1-style error reply: `{"errors":[{"code":32,"message":"Could not authenticate you."}]}`. */
export function v1ErrorReply(
  error: { code: number; message: string; status: number; label?: string },
  headers: Record<string, string> = {},
): Reply {
  const entry: Record<string, unknown> = { code: error.code, message: error.message };
  if (error.label) entry.label = error.label;
  return jsonReply(error.status, { errors: [entry] }, headers);
}

/** A form-encoded reply: what the OAuth 1.0a token endpoints answer. */
export function formReply(fields: Record<string, string>): Reply {
  return {
    status: 200,
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(fields).toString(),
  };
}

/** An HTML page (the authorization pages a person sees in a browser). */
export function htmlReply(status: number, html: string, headers: Record<string, string> = {}): Reply {
  return {
    status,
    headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store", ...headers },
    body: html,
  };
}

/** A plain-text reply (a few real OAuth 1.0a errors are plain text). */
export function textReply(status: number, text: string): Reply {
  return { status, headers: { "content-type": "text/plain; charset=utf-8" }, body: text };
}

/** A browser redirect (302) to a callback. */
export function redirectReply(location: string, headers: Record<string, string> = {}): Reply {
  return { status: 302, headers: { location, "cache-control": "no-store", ...headers }, body: "" };
}

/**
 * An error that carries its finished reply. Authentication and the OAuth endpoints throw it
 * from any depth; the server writes the reply as is.
 */
export class ReplyError extends Error {
  constructor(readonly reply: Reply) {
    super(`HTTP ${reply.status}: ${reply.body.slice(0, 200)}`);
  }
}

/** Throwable v1.1-style errors of the OAuth layer, by the names of {@link V1_ERRORS}. */
export const v1Error = (name: keyof typeof V1_ERRORS, headers: Record<string, string> = {}) =>
  new ReplyError(v1ErrorReply(V1_ERRORS[name], headers));

/** The plain `401 Unauthorized` problem v2 endpoints answer when no credentials are usable. */
export const unauthorized = (detail = "Unauthorized") =>
  new ReplyError(problemReply(401, { title: "Unauthorized", type: "about:blank", status: 401, detail }));
