/**
 * The admin API of `bot start --http`: the fleet changed from outside the process.
 *
 * | call | does |
 * |---|---|
 * | `GET /api/admin/bots` | every bot: where it comes from (a file, or the state), running, paused or run elsewhere |
 * | `GET /api/admin/bots/NAME` | one bot |
 * | `POST /api/admin/bots` (a bot file as the body) | adds a bot kept in the state: 201 |
 * | `PUT /api/admin/bots/NAME` (a bot file) | restarts it with the new configuration |
 * | `DELETE /api/admin/bots/NAME` | stops and removes it: 204 |
 * | `POST /api/admin/bots/NAME/pause` (`{"reason": "..."}` optional) | pauses any bot, until resumed |
 * | `POST /api/admin/bots/NAME/resume` | resumes it |
 * | `POST /api/admin/review/BOT/POST_ID` (`{"decision": "hide" \| "unhide" \| "keep"}`) | a person's decision about a reply moderation listed for review, sent once through the bot's action pipeline (`/review` on the status page sends it) |
 *
 * Only with `Authorization: Bearer <POSTBOT_ADMIN_TOKEN>`, compared in constant time
 * (`timingSafeEqual` over the SHA-256 digests, so neither the token's content nor its length
 * shows in the time an answer takes). Without a token configured the API is off: every call
 * answers 404 with how to turn it on. The token has a name (`POSTBOT_ADMIN_TOKEN_NAME`,
 * default `admin`) that every change is logged with; its value is never logged.
 *
 * A bot file that does not validate is refused with a problem JSON (RFC 9457) listing each
 * problem with its line and column, exactly as `bot validate` finds them. Bots from files are
 * changed by editing their files (the bots directory is watched): replacing or deleting one
 * here is refused (409); pausing and resuming work for every bot.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { BotFileProblem } from "../config/index.ts";
import { BOT_FILE_MAX_BYTES, formatProblem } from "../config/index.ts";
import { UserError } from "../errors.ts";
import type { Checked, Fleet } from "../hosting/fleet.ts";
import { FleetError } from "../hosting/fleet-error.ts";
import type { ReviewDesk } from "../hosting/review-desk.ts";
import { REVIEW_DECISIONS, type ReviewDecision } from "../plugins/review-queue.ts";
import type { Logger } from "../log.ts";

/** The admin token and the name changes are logged with. */
export interface AdminAccess {
  token: string;
  name: string;
}

/** The shortest token accepted: a guessable one would hand the fleet to anyone who reaches the port. */
export const MIN_ADMIN_TOKEN_LENGTH = 16;

/**
 * The admin access of the environment: `POSTBOT_ADMIN_TOKEN` (the whole value is the bearer
 * token) and `POSTBOT_ADMIN_TOKEN_NAME` (who holds it, default `admin`). `undefined`: the API is off.
 *
 * @throws UserError for a token too short to be safe, or a name that cannot go in a log line.
 */
export function adminAccess(env: Readonly<Record<string, string | undefined>>): AdminAccess | undefined {
  const token = env.POSTBOT_ADMIN_TOKEN?.trim();
  if (!token) return undefined;
  if (token.length < MIN_ADMIN_TOKEN_LENGTH)
    throw new UserError(
      `POSTBOT_ADMIN_TOKEN has ${token.length} characters: give at least ${MIN_ADMIN_TOKEN_LENGTH} random ones (openssl rand -hex 24 makes one), or leave it unset to keep the admin API off`,
      { exitCode: 2 },
    );
  const name = env.POSTBOT_ADMIN_TOKEN_NAME?.trim() || "admin";
  if (!/^[\w.@-]{1,64}$/.test(name))
    throw new UserError(
      `POSTBOT_ADMIN_TOKEN_NAME is "${name}": name the token's holder with letters, digits and . _ - @ (at most 64), e.g. ops-team`,
      { exitCode: 2 },
    );
  return { token, name };
}

/** What the API changes the fleet with (the running process's {@link Fleet}). */
export type FleetControl = Pick<Fleet, "list" | "add" | "replace" | "remove" | "pause" | "resume">;

/** What the API decides reviews with (the running process's review desk). */
export type ReviewControl = Pick<ReviewDesk, "decide">;

/** The largest bot file accepted as a body: the size any bot file may have. */
const MAX_BODY = BOT_FILE_MAX_BYTES;

const PROBLEM = "tag:postbot,2026:admin";

/** An RFC 9457 problem: `type`, `title`, `status`, `detail`, and extensions. */
interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  [extension: string]: unknown;
}

const problem = (status: number, kind: string, title: string, detail: string, more: object = {}): Problem => ({
  type: `${PROBLEM}/${kind}`,
  title,
  status,
  detail,
  ...more,
});

const HOW_TO_TURN_ON =
  "set POSTBOT_ADMIN_TOKEN (at least 16 random characters: openssl rand -hex 24) and optionally POSTBOT_ADMIN_TOKEN_NAME (who holds it, for the log) in the environment of bot start, restart it, and send Authorization: Bearer <the token>";

/** One bot file's problems, as the API returns them: each with its line and column, and as `bot validate` prints it. */
export function fileProblems(problems: readonly BotFileProblem[]): Problem {
  return problem(
    422,
    "invalid-bot-file",
    "The bot file does not validate",
    `${problems.length === 1 ? "1 problem" : `${problems.length} problems`} in the bot file; fix ${problems.length === 1 ? "it" : "them"} and send it again (bot validate checks a file the same way)`,
    {
      errors: problems.map((p) => ({
        ...(p.line !== undefined ? { line: p.line, column: p.col ?? 1 } : {}),
        ...(p.key ? { key: p.key } : {}),
        detail: p.message,
        text: formatProblem(p),
      })),
    },
  );
}

/** The admin API; {@link AdminApi.attach} gives it the fleet once the bots run. */
export class AdminApi {
  private fleet: FleetControl | undefined;
  private review: ReviewControl | undefined;
  private readonly digest: Buffer | undefined;

  constructor(
    private readonly access: AdminAccess | undefined,
    private readonly logger: Logger,
  ) {
    this.digest = access ? sha256(access.token) : undefined;
  }

  /** Whether the API is on (a token is configured). */
  get on(): boolean {
    return this.access !== undefined;
  }

  attach(fleet: FleetControl): void {
    this.fleet = fleet;
  }

  /** Gives the API the desk that sends review decisions (once the bots run). */
  attachReview(review: ReviewControl): void {
    this.review = review;
  }

  /** Whether `path` is the API's. */
  handles(path: string): boolean {
    return path === "/api/admin" || path.startsWith("/api/admin/");
  }

  /** Answers one call: refused without the right token, else a review decision or a change to the fleet. */
  async handle(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const send = sender(res);
    if (!this.access || !this.digest)
      return send(404, problem(404, "off", "The admin API is off", `the admin API is off: ${HOW_TO_TURN_ON}`));
    const who = this.authorize(req);
    if (who === "missing" || who === "wrong") return this.refuse(req, url, who, send);
    if (url.pathname.startsWith("/api/admin/review/")) return await this.decide(req, url, who, send);
    return await this.bots(req, url, who, send);
  }

  /** The 401 for a call without a token or with a wrong one (logged, without the token). */
  private refuse(req: IncomingMessage, url: URL, why: "missing" | "wrong", send: Send): void {
    if (why === "missing")
      return send(
        401,
        problem(401, "unauthorized", "Authorization needed", `send Authorization: Bearer <POSTBOT_ADMIN_TOKEN>`),
        { "www-authenticate": 'Bearer realm="postbot admin"' },
      );
    this.logger.warn(
      { path: url.pathname, from: req.socket.remoteAddress },
      `admin API: a request to ${req.method} ${url.pathname} with a wrong token was refused`,
    );
    return send(
      401,
      problem(401, "unauthorized", "Wrong token", "the bearer token is not this process's POSTBOT_ADMIN_TOKEN"),
      { "www-authenticate": 'Bearer realm="postbot admin", error="invalid_token"' },
    );
  }

  /** `/api/admin/bots...`: the fleet's calls once it runs, with the fleet's refusals as problems. */
  private async bots(req: IncomingMessage, url: URL, who: string, send: Send): Promise<void> {
    const fleet = this.fleet;
    if (!fleet)
      return send(
        503,
        problem(503, "starting", "Starting", "the bots are still starting; try again in a few seconds"),
        { "retry-after": "2" },
      );
    try {
      return await this.botCall(fleet, req, url, who, send);
    } catch (err) {
      if (err instanceof FleetError) {
        const status = err.kind === "not-found" ? 404 : err.kind === "stopping" ? 503 : 409;
        return send(
          status,
          problem(status, err.kind, err.kind === "not-found" ? "No such bot" : "Refused", err.message),
        );
      }
      if (err instanceof BodyError) return send(err.status, problem(err.status, "body", "Bad body", err.message));
      throw err;
    }
  }

  /** One call of the fleet's, by path and method (see the module comment's table). */
  private async botCall(fleet: FleetControl, req: IncomingMessage, url: URL, who: string, send: Send): Promise<void> {
    const parts = url.pathname.split("/").slice(3).map(decodeURIComponent); // ["bots", NAME?, ACTION?]
    const method = req.method ?? "GET";
    const route = (allow: string) =>
      send(405, problem(405, "method", "Method not allowed", `${url.pathname} answers ${allow}`), { allow });
    const notFound = (title: string, detail: string) => send(404, problem(404, "not-found", title, detail));
    if (parts[0] !== "bots" || parts.length > 3)
      return notFound("Not found", "no such call; the admin API is under /api/admin/bots (see docs/operations.md)");
    const [, name, action] = parts;
    if (name === undefined || name === "") {
      if (method === "GET") return send(200, { bots: fleet.list() });
      if (method !== "POST") return route("GET, POST");
      const text = await readBody(req);
      const done = await fleet.add(text, { by: who, origin: "api", label: "request body" });
      return this.checked(send, done, 201, (bot) => ({ location: `/api/admin/bots/${encodeURIComponent(bot)}` }));
    }
    if (action === undefined) {
      if (method === "GET") {
        const bot = fleet.list().find((b) => b.name === name);
        return bot
          ? send(200, { bot })
          : notFound("No such bot", `no bot ${name} in the fleet; GET /api/admin/bots lists them`);
      }
      if (method === "PUT") {
        const text = await readBody(req);
        return this.checked(send, await fleet.replace(name, text, { by: who, label: "request body" }), 200);
      }
      if (method === "DELETE") {
        await fleet.remove(name, { by: who });
        return send(204, undefined);
      }
      return route("GET, PUT, DELETE");
    }
    if (action !== "pause" && action !== "resume")
      return notFound("Not found", `bots can be paused or resumed: /api/admin/bots/${name}/pause or /resume`);
    if (method !== "POST") return route("POST");
    if (action === "pause") {
      const reason = reasonOf(await readBody(req));
      return send(200, { bot: await fleet.pause(name, { by: who, ...(reason ? { reason } : {}) }) });
    }
    return send(200, { bot: await fleet.resume(name, { by: who }) });
  }

  /** `POST /api/admin/review/BOT/POST_ID`: a decision about a listed reply (see the module comment). */
  private async decide(req: IncomingMessage, url: URL, who: string, send: Send): Promise<void> {
    const parts = url.pathname.split("/").slice(4).map(decodeURIComponent); // [BOT, POST_ID]
    if (parts.length !== 2 || !parts[0] || !parts[1])
      return send(
        404,
        problem(404, "not-found", "Not found", "a decision goes to /api/admin/review/BOT/POST_ID, as /review lists it"),
      );
    if (req.method !== "POST")
      return send(405, problem(405, "method", "Method not allowed", `${url.pathname} answers POST`), {
        allow: "POST",
      });
    const review = this.review;
    if (!review)
      return send(
        503,
        problem(503, "starting", "Starting", "the bots are still starting; try again in a few seconds"),
        { "retry-after": "2" },
      );
    const [bot, post] = parts as [string, string];
    try {
      const decision = decisionOf(await readBody(req));
      const outcome = await review.decide(bot, post, decision, `admin:${who}`);
      return send(200, outcome);
    } catch (err) {
      if (err instanceof BodyError) return send(err.status, problem(err.status, "body", "Bad body", err.message));
      if (err instanceof UserError) return send(404, problem(404, "not-found", "Not on the list", err.message));
      throw err;
    }
  }

  private checked(send: Send, done: Checked, status: number, headers?: (bot: string) => Record<string, string>): void {
    if (!done.ok) return send(422, fileProblems(done.problems));
    send(status, { bot: done.entry }, headers?.(done.entry.name));
  }

  /** Who the request's token names, or why it names nobody. Constant time in the token. */
  private authorize(req: IncomingMessage): string | "missing" | "wrong" {
    const header = req.headers.authorization;
    const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
    if (!match) return "missing";
    return timingSafeEqual(sha256(match[1]!), this.digest!) ? this.access!.name : "wrong";
  }
}

/** Writes one answer: a status, a JSON body (or a problem's, by its shape) and headers. */
type Send = (status: number, body: unknown, headers?: Record<string, string>) => void;

/** The {@link Send} of one response: never cached, as problem JSON when the body is a problem, empty on 204. */
function sender(res: ServerResponse): Send {
  return (status, body, headers = {}) => {
    const isProblem = typeof body === "object" && body !== null && "type" in body && "status" in body;
    res.writeHead(status, {
      "content-type": isProblem ? "application/problem+json; charset=utf-8" : "application/json; charset=utf-8",
      "cache-control": "no-store",
      ...headers,
    });
    res.end(status === 204 ? undefined : JSON.stringify(body));
  };
}

const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest();

/** A body the API cannot take (too large, not text). */
class BodyError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY)
      throw new BodyError(413, `the body is larger than ${MAX_BODY / 1024} KB; a bot file is much smaller`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** The decision of a review: `{"decision": "hide" | "unhide" | "keep"}`. */
function decisionOf(body: string): ReviewDecision {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    throw new BodyError(
      400,
      `the body of a review decision is JSON: {"decision": "${REVIEW_DECISIONS.join('" | "')}"}`,
    );
  }
  const decision = (parsed as { decision?: unknown })?.decision;
  if (!REVIEW_DECISIONS.includes(decision as ReviewDecision))
    throw new BodyError(400, `"decision" is ${JSON.stringify(decision)}: write one of ${REVIEW_DECISIONS.join(", ")}`);
  return decision as ReviewDecision;
}

/** The reason of a pause: `{"reason": "..."}`, or none. */
function reasonOf(body: string): string | undefined {
  if (!body.trim()) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    throw new BodyError(400, 'the body of a pause is JSON, {"reason": "..."}, or empty');
  }
  const reason = (parsed as { reason?: unknown })?.reason;
  if (reason !== undefined && (typeof reason !== "string" || reason.length > 500))
    throw new BodyError(400, '"reason" is a text of at most 500 characters');
  return reason?.trim() || undefined;
}
