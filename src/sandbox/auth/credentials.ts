/**
 * Issuing and finding the sandbox's credentials: apps (consumer key and secret, OAuth 2.0
 * client id and secret), OAuth 1.0a access tokens, and app-only bearer tokens. The admin API
 * and the OAuth flows both issue through here, so a token made by `POST /_sandbox/tokens` is
 * exactly what the 3-legged flow would have given.
 */
import { randomBytes, timingSafeEqual } from "node:crypto";
import type { Plan } from "../../limits/types.ts";
import {
  nextId,
  type SandboxAccessToken,
  type SandboxApp,
  type SandboxData,
  type SandboxUser,
} from "../model/index.ts";
import { findUsername } from "../domain/users.ts";
import { flows, grantKey } from "./state.ts";

const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/** A random string of `length` letters and digits (unbiased: bytes ≥ 248 are redrawn). */
export function randomToken(length: number, alphabet = ALNUM): string {
  let out = "";
  while (out.length < length) {
    for (const b of randomBytes(length * 2)) {
      if (b < 248) out += alphabet[b % alphabet.length];
      if (out.length === length) break;
    }
  }
  return out;
}

/**
 * Whether a secret a client sent equals the one held, in time that does not depend on where
 * they differ (so the comparison cannot be used to guess a secret byte by byte).
 */
export function sameSecret(given: string, held: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(held);
  return a.length === b.length && timingSafeEqual(a, b);
}

export interface NewApp {
  name?: string;
  plan: Plan;
  callback_urls?: string[];
  academic?: boolean;
  allow_sign_in?: boolean;
  owner_id?: string;
}

/** Registers an app with fresh credentials; shaped like the real service's keys. */
export function createApp(data: SandboxData, now: number, input: NewApp): SandboxApp {
  const id = nextId(data, now);
  const app: SandboxApp = {
    id,
    name: input.name ?? `app-${id.slice(-6)}`,
    plan: input.plan,
    consumer_key: randomToken(25),
    consumer_secret: randomToken(50),
    callback_urls: input.callback_urls ?? [],
    academic: input.academic ?? false,
    allow_sign_in: input.allow_sign_in ?? true,
    client_id: randomToken(34, ALNUM + "-_"),
    client_secret: randomToken(50, ALNUM + "-_"),
    created_at: now,
  };
  if (input.owner_id) app.owner_id = input.owner_id;
  data.auth.apps[id] = app;
  return app;
}

/** Whether `/oauth/authenticate` may skip asking a user who already granted the app. */
export const signInAllowed = (app: SandboxApp) => app.allow_sign_in !== false;

export function appByConsumerKey(data: SandboxData, key: string): SandboxApp | undefined {
  const apps = data.auth.apps;
  for (const id in apps) if (apps[id]!.consumer_key === key) return apps[id];
  return undefined;
}

export function appByClientId(data: SandboxData, clientId: string): SandboxApp | undefined {
  for (const app of Object.values(data.auth.apps)) if (app.client_id === clientId) return app;
  return undefined;
}

/** What the 3-legged flow and `POST /_sandbox/tokens` hand out. */
export interface IssuedAccessToken {
  token: string;
  token_secret: string;
  user_id: string;
  screen_name: string;
}

/** Per tokens table (the auth data's object): app, then user → the token issued last for them. */
const byGrant = new WeakMap<object, Map<string, Map<string, SandboxAccessToken>>>();

/**
 * The token index of a tokens table, built on first use and kept up to date by {@link issueAccessToken}.
 * Keyed by the app's and the user's own ids, not by an `app:user` string made for it: with
 * 100,000 accounts those were 100,000 strings more (each a concatenation of three) in the heap.
 */
function tokenIndex(tokens: Record<string, SandboxAccessToken>): Map<string, Map<string, SandboxAccessToken>> {
  let index = byGrant.get(tokens);
  if (!index) {
    index = new Map();
    for (const t of Object.values(tokens)) if (t.invalidated_at === undefined) indexToken(index, t);
    byGrant.set(tokens, index);
  }
  return index;
}

function indexToken(index: Map<string, Map<string, SandboxAccessToken>>, t: SandboxAccessToken): void {
  let users = index.get(t.app_id);
  if (!users) index.set(t.app_id, (users = new Map()));
  users.set(t.user_id, t);
}

/**
 * The user's outstanding (not invalidated) OAuth 1.0a token for the app, if any: from an index
 * rather than a scan of every token (provisioning 100,000 accounts scanned 100,000 tokens for
 * each). {@link issueAccessToken} is the only code that adds tokens (at most one outstanding
 * per app and user); a state loaded or reset is a new table, indexed anew.
 */
export function outstandingToken(data: SandboxData, appId: string, userId: string): SandboxAccessToken | undefined {
  const t = tokenIndex(data.auth.access_tokens).get(appId)?.get(userId);
  return t && data.auth.access_tokens[t.token] === t && t.invalidated_at === undefined ? t : undefined;
}

/**
 * The OAuth 1.0a access token of a user for an app. As on the real service, a user who
 * authorizes an app again gets the token already outstanding (with the access level just
 * asked for); only after `invalidate_token` is a different one made.
 */
export function issueAccessToken(
  data: SandboxData,
  now: number,
  app: SandboxApp,
  user: SandboxUser,
  access: "read" | "write" = "write",
): IssuedAccessToken {
  let record = outstandingToken(data, app.id, user.id);
  if (!record) {
    record = {
      token: `${user.id}-${randomToken(40)}`,
      secret: randomToken(45),
      app_id: app.id,
      user_id: user.id,
      access,
      created_at: now,
    };
    data.auth.access_tokens[record.token] = record;
    indexToken(tokenIndex(data.auth.access_tokens), record);
  }
  record.access = access;
  flows(data).grants[grantKey(app.id, user.id)] = { created_at: now, access };
  return { token: record.token, token_secret: record.secret, user_id: user.id, screen_name: user.username };
}

/**
 * The app's one outstanding bearer token (spec 4.3 rule 1): the same value on every call
 * until it is invalidated.
 */
export function issueBearer(data: SandboxData, now: number, app: SandboxApp): string {
  const held = data.auth.bearer_tokens[app.id];
  if (held) {
    held.last_requested_at = now;
    return held.token;
  }
  const token = "A".repeat(22) + randomToken(90);
  data.auth.bearer_tokens[app.id] = { token, issued_at: now, last_requested_at: now };
  return token;
}

/** The app whose outstanding bearer token this is. */
export function appByBearer(data: SandboxData, token: string): SandboxApp | undefined {
  for (const [appId, held] of Object.entries(data.auth.bearer_tokens)) {
    if (held.token === token) return data.auth.apps[appId];
  }
  return undefined;
}

/** A user by username, case-insensitively, as sign-in forms and `screen_name` match. */
export function userByUsername(data: SandboxData, username: string): SandboxUser | undefined {
  return findUsername(data.world.users, username.replace(/^@/, "").toLowerCase());
}
