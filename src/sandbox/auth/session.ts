/**
 * Signing in on the authorization pages: sandbox users' passwords and the browser session
 * cookie that lets `GET /oauth/authenticate` recognise a returning user.
 *
 * Password rule: a user created with `POST /_sandbox/users {..., "password": "..."}` signs in
 * with that password; every other user signs in with {@link DEFAULT_PASSWORD} (`sandbox`).
 */
import type { SandboxUser } from "../model/index.ts";
import type { Incoming, Platform } from "../platform.ts";
import { randomToken, sameSecret, userByUsername } from "./credentials.ts";
import { DEFAULT_PASSWORD, flows } from "./state.ts";

export const SESSION_COOKIE = "sandbox_session";

/** How long a browser stays signed in on the sandbox clock (30 days, like a "remember me"). */
export const SESSION_MS = 30 * 24 * 3_600_000;

/** The user signed in in this browser, if the session is still valid. */
export function sessionUser(p: Platform, inc: Incoming): SandboxUser | undefined {
  const sid = inc.cookies.get(SESSION_COOKIE);
  if (!sid) return undefined;
  const session = flows(p.context.data).sessions[sid];
  if (!session) return undefined;
  if (session.created_at + SESSION_MS <= p.clock.now()) {
    delete flows(p.context.data).sessions[sid];
    return undefined;
  }
  const user = p.context.data.world.users[session.user_id];
  return user && !user.suspended && !user.deactivated ? user : undefined;
}

/** Checks a username and password; the user, or the message the form shows. */
export function checkCredentials(p: Platform, username: string, password: string): SandboxUser | string {
  if (!username || !password) return "Enter your username and password.";
  const user = userByUsername(p.context.data, username);
  if (!user || user.suspended || user.deactivated)
    return "The username and password you entered did not match our records.";
  const expected = flows(p.context.data).passwords[user.id] ?? DEFAULT_PASSWORD;
  if (!sameSecret(password, expected)) return "The username and password you entered did not match our records.";
  return user;
}

/** Starts a session for the user; returns the `Set-Cookie` header value. */
export function startSession(p: Platform, user: SandboxUser): string {
  const sid = randomToken(40);
  flows(p.context.data).sessions[sid] = { user_id: user.id, created_at: p.clock.now() };
  return `${SESSION_COOKIE}=${sid}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${SESSION_MS / 1000}`;
}

/** How many usernames the sign-in box suggests: enough to pick one, few enough to read. */
export const SUGGESTED_USERS = 12;

/**
 * Some active users a person may sign in as (the first created), so someone trying the
 * sandbox in a browser does not need to look usernames up first.
 */
export function suggestedUsernames(p: Platform, max = SUGGESTED_USERS): string[] {
  const out: string[] = [];
  for (const id in p.context.data.world.users) {
    const user = p.context.data.world.users[id]!;
    if (user.suspended || user.deactivated) continue;
    out.push(user.username);
    if (out.length >= max) break;
  }
  return out;
}
