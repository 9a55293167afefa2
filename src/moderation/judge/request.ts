/**
 * One JSON request to a judge, over undici (the project's HTTP client), and every way it can
 * fail as a {@link JudgeError} with a short reason a metric can count and a message a log
 * can print: the server's own error message (OpenAI's `{error: {message}}`), never the key.
 * A 429 carries how long the server asked to wait (`retry-after`, or OpenAI's
 * `x-ratelimit-reset-requests`), so the judge can stop asking until then.
 */
import { lazyPackage } from "../../lazy-package.ts";

const undici = lazyPackage<typeof import("undici")>("undici");

/** Why a judge gave no opinion, as the metric `postbot_moderation_judge_failures_total` labels it. */
export type JudgeFailure =
  | "timeout"
  | "unreachable"
  | "rate-limited"
  | "busy"
  | "refused"
  | "server-error"
  | "bad-answer";

/** A judge that gave no opinion: why ({@link JudgeFailure}), in words, and for a 429 until when to wait. */
export class JudgeError extends Error {
  override name = "JudgeError";
  constructor(
    readonly reason: JudgeFailure,
    message: string,
    readonly status?: number,
    /** For `rate-limited`: how long the server asked to wait, in ms. */
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

/** When a 429 names no wait: a minute, OpenAI's shortest window. */
const DEFAULT_RETRY_AFTER_MS = 60_000;

/** OpenAI's duration format of `x-ratelimit-reset-*` (`250ms`, `2s`, `1m30s`) in ms. */
function resetMs(text: string): number | undefined {
  const parts = /^(?:(\d+(?:\.\d+)?)h)?(?:(\d+(?:\.\d+)?)m(?!s))?(?:(\d+(?:\.\d+)?)s)?(?:(\d+(?:\.\d+)?)ms)?$/.exec(
    text.trim(),
  );
  if (!parts || text.trim() === "") return undefined;
  const [, h, m, s, ms] = parts;
  return Math.ceil(Number(h ?? 0) * 3_600_000 + Number(m ?? 0) * 60_000 + Number(s ?? 0) * 1000 + Number(ms ?? 0));
}

/** How long a 429 asks to wait: `retry-after` (seconds or a date), else `x-ratelimit-reset-requests`. */
export function retryAfterMs(headers: Record<string, string | string[] | undefined>, now: number): number {
  const one = (name: string) => {
    const v = headers[name];
    return Array.isArray(v) ? v[0] : v;
  };
  const after = one("retry-after");
  if (after !== undefined) {
    if (/^\d+(?:\.\d+)?$/.test(after.trim())) return Math.ceil(Number(after) * 1000);
    const at = Date.parse(after);
    if (Number.isFinite(at)) return Math.max(0, at - now);
  }
  const reset = one("x-ratelimit-reset-requests");
  const ms = reset === undefined ? undefined : resetMs(reset);
  return ms ?? DEFAULT_RETRY_AFTER_MS;
}

/** The server's error message from OpenAI's body `{error: {message}}`, or the start of the body. */
function serverMessage(text: string): string {
  try {
    const body = JSON.parse(text) as { error?: { message?: unknown } | string };
    const message = typeof body.error === "string" ? body.error : body.error?.message;
    if (typeof message === "string" && message) return message;
  } catch {
    // not JSON: the text itself, shortened
  }
  const t = text.trim();
  return t ? (t.length > 120 ? `${t.slice(0, 117)}...` : t) : "no body";
}

/** What a status means for the failure's reason. */
function failureOf(status: number): JudgeFailure {
  if (status === 429) return "rate-limited";
  if (status >= 500) return "server-error";
  return "refused";
}

export interface JudgeRequest {
  url: string;
  /** The API key, sent as `Authorization: Bearer KEY` (absent: no header). */
  key?: string;
  body: unknown;
  signal: AbortSignal;
  /** The clock's now, to read an HTTP-date `retry-after`. */
  now: number;
}

/**
 * POSTs `body` as JSON and returns the parsed answer. Throws {@link JudgeError}: `timeout`
 * when `signal` aborts, `unreachable` for a network failure, `rate-limited` (with the wait),
 * `server-error` (5xx), `refused` (other 4xx: a bad key, an unknown model), `bad-answer`
 * for a body that is not JSON.
 */
export async function postJson(r: JudgeRequest): Promise<unknown> {
  let status: number;
  let text: string;
  let headers: Record<string, string | string[] | undefined>;
  try {
    const res = await undici().request(r.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json",
        ...(r.key ? { authorization: `Bearer ${r.key}` } : {}),
      },
      body: JSON.stringify(r.body),
      signal: r.signal,
    });
    status = res.statusCode;
    headers = res.headers;
    text = await res.body.text();
  } catch (err) {
    if (r.signal.aborted) throw new JudgeError("timeout", "no answer in time");
    const e = err as { code?: string; message?: string; cause?: { code?: string } };
    const code = e.code ?? e.cause?.code;
    throw new JudgeError("unreachable", `cannot reach it (${code ?? e.message ?? String(err)})`);
  }
  if (status < 200 || status >= 300) {
    const reason = failureOf(status);
    const wait = status === 429 ? retryAfterMs(headers, r.now) : undefined;
    throw new JudgeError(reason, `answered ${status}: ${serverMessage(text)}`, status, wait);
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new JudgeError("bad-answer", `answered ${status} with a body that is not JSON`, status);
  }
}
