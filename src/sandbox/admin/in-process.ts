/**
 * `sandbox.admin`: the admin API as typed in-process calls. Each call runs the same handler,
 * with the same validation, as the HTTP call would; only the transport is skipped. Tests and
 * the embedded sandbox of `bot start` use it to set up apps, users, tokens and posts.
 */
import type { DmEvent } from "../../api/types.ts";
import type { Plan } from "../../limits/types.ts";
import type { IssuedAccessToken } from "../auth/credentials.ts";
import type { Fault, FaultSpec } from "../faults.ts";
import type { Stats } from "../meter/stats.ts";
import { ApiProblem } from "../problems.ts";
import type { AdminRouteTable, SandboxContext } from "../route.ts";
import { adminHandler, type AppView } from "./routes.ts";

/** An admin call that the sandbox refused: the status and the problem it answered. */
export class SandboxAdminError extends Error {
  override name = "SandboxAdminError";
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {
    const b = body as { detail?: string; title?: string; errors?: Array<{ message?: string }> } | undefined;
    const specific = b?.errors
      ?.map((e) => e.message)
      .filter(Boolean)
      .join("; ");
    super(`sandbox admin call refused (${status}): ${specific || b?.detail || b?.title || JSON.stringify(body)}`);
  }
}

export interface NewAppInput {
  name?: string;
  plan?: Plan;
  callback_urls?: string[];
  academic?: boolean;
  /** The sign-in setting: `/oauth/authenticate` skips asking a user who already granted the app (default true). */
  allow_sign_in?: boolean;
  /** The user whose token must sign `POST /oauth2/invalidate_token`. */
  owner_id?: string;
}

/** What `PATCH /_sandbox/apps` changes; fields left out keep their value. */
export interface AppChangesInput {
  consumer_key: string;
  name?: string;
  /** Replaces the whole list. */
  callback_urls?: string[];
  allow_sign_in?: boolean;
}

export interface NewUserInput {
  username: string;
  name?: string;
  /** The password for the authorization pages (default `sandbox`). */
  password?: string;
  [field: string]: unknown;
}

export interface NewPostInput {
  author_id: string;
  text: string;
  in_reply_to_post_id?: string;
  [field: string]: unknown;
}

/** A one-to-one message sent as `sender_id`, outside every budget. */
export interface NewDmInput {
  sender_id: string;
  recipient_id: string;
  text: string;
}

export type FaultInput = FaultSpec & { route: string; count?: number };

export interface SandboxAdmin {
  createApp(input?: NewAppInput): Promise<AppView>;
  /** Changes an app's settings: its callback URLs, name or sign-in setting. */
  updateApp(input: AppChangesInput): Promise<AppView>;
  createUser(input: NewUserInput): Promise<{ id: string; username: string; name: string; [field: string]: unknown }>;
  createToken(input: { consumer_key: string; user_id: string; access?: "read" | "write" }): Promise<IssuedAccessToken>;
  createPost(input: NewPostInput): Promise<{ id: string; text: string; [field: string]: unknown }>;
  /** Sends a direct message as a user (`POST /_sandbox/dms`); answers the event with every field. */
  sendDm(input: NewDmInput): Promise<DmEvent>;
  /** Moves the sandbox clock forward (timers due in between fire in order). */
  advanceClock(ms: number): Promise<{ now: string; now_ms: number }>;
  stats(): Promise<Stats>;
  addFault(input: FaultInput): Promise<Fault>;
  clearFaults(): Promise<void>;
}

/** The `{data: ...}` envelope some world handlers answer with, unwrapped. */
const unwrap = (body: unknown) =>
  body && typeof body === "object" && "data" in body && !("id" in body) ? (body as { data: unknown }).data : body;

export function createAdminApi(table: AdminRouteTable, context: SandboxContext): SandboxAdmin {
  const call = async <T>(key: string, body?: unknown): Promise<T> => {
    const handler = adminHandler(table, key);
    if (!handler) throw new SandboxAdminError(404, { detail: `${key} has no handler in this sandbox yet.` });
    try {
      const result = await handler({
        sandbox: context,
        query: new URLSearchParams(),
        body: body === undefined ? undefined : structuredClone(body),
      });
      if (result.status >= 400) throw new SandboxAdminError(result.status, result.body);
      return structuredClone(result.body) as T;
    } catch (err) {
      if (err instanceof ApiProblem) throw new SandboxAdminError(err.status, err.problem);
      throw err;
    }
  };
  return {
    createApp: (input = {}) => call("POST /_sandbox/apps", input),
    updateApp: (input) => call("PATCH /_sandbox/apps", input),
    createUser: async (input) => unwrap(await call("POST /_sandbox/users", input)) as never,
    createToken: (input) => call("POST /_sandbox/tokens", input),
    createPost: async (input) => unwrap(await call("POST /_sandbox/posts", input)) as never,
    sendDm: (input) => call("POST /_sandbox/dms", input),
    advanceClock: (ms) => call("POST /_sandbox/clock", { advance_ms: ms }),
    stats: () => call("GET /_sandbox/stats"),
    addFault: (input) => call("POST /_sandbox/faults", input),
    clearFaults: async () => void (await call("DELETE /_sandbox/faults")),
  };
}
