/**
 * The sandbox's accounts: creating them (the admin API and the crowd do; the service has
 * no sign-up endpoint) and finding them by id or username, with the states the real service
 * distinguishes (suspended and deactivated accounts answer differently from missing ones).
 */
import { nextId, type SandboxUser } from "../model/index.ts";
import { invalidRequest } from "../problems.ts";
import type { SandboxContext } from "../route.ts";
import { USERNAME_PATTERN } from "./params.ts";
import { codePointsUpTo } from "./code-points.ts";

/** What an account can be created with; everything but `username` is optional. */
export interface NewUser {
  username: string;
  name?: string;
  description?: string;
  location?: string;
  url?: string;
  protected?: boolean;
  verified?: boolean;
}

/**
 * Creates an account. The username follows the service's rule (`^[A-Za-z0-9_]{1,15}$`)
 * and is unique ignoring case, as handles are; the display name defaults to the username
 * and, like the real service's, is at most 50 characters.
 *
 * @example
 * ```ts
 * const alice = createUser(ctx, { username: "alice", name: "Alice" });
 * ```
 */
export function createUser(ctx: SandboxContext, input: NewUser): SandboxUser {
  const { username } = input;
  if (typeof username !== "string" || !USERNAME_PATTERN.test(username)) {
    throw invalidRequest(
      `The username [${String(username)}] does not match ${USERNAME_PATTERN.source}: use 1 to 15 letters, digits or _`,
      {
        username: [String(username)],
      },
    );
  }
  if (userByUsername(ctx, username, { includeGone: true })) {
    throw invalidRequest(`The username [${username}] is taken (usernames are unique ignoring case)`, {
      username: [username],
    });
  }
  const name = input.name ?? username;
  if (typeof name !== "string" || !name.trim() || codePointsUpTo(name, 50) > 50) {
    throw invalidRequest(`The name [${String(name)}] must be 1 to 50 characters`, { name: [String(name)] });
  }
  if (input.description !== undefined && codePointsUpTo(input.description, 160) > 160) {
    throw invalidRequest("The description must be at most 160 characters", { description: [input.description] });
  }
  const now = ctx.clock.now();
  const user: SandboxUser = {
    id: nextId(ctx.data, now),
    username,
    name,
    created_at: now,
    description: input.description ?? "",
    protected: input.protected ?? false,
    verified: input.verified ?? false,
    ...(input.location !== undefined ? { location: input.location } : {}),
    ...(input.url !== undefined ? { url: input.url } : {}),
  };
  ctx.data.world.users[user.id] = user;
  const index = nameIndex(ctx.data.world.users);
  if (!index.has(user.username.toLowerCase())) index.set(user.username.toLowerCase(), user);
  return user;
}

/** Whether an account answers as absent (suspended or deactivated). */
export const isGone = (u: SandboxUser): boolean => Boolean(u.suspended || u.deactivated);

/** A user by id, or undefined; gone accounts only with `includeGone`. */
export function userById(
  ctx: SandboxContext,
  id: string,
  opts: { includeGone?: boolean } = {},
): SandboxUser | undefined {
  const u = ctx.data.world.users[id];
  return u && (opts.includeGone || !isGone(u)) ? u : undefined;
}

/** Per users table (the world's object): lower-cased username → user (the oldest, when two share one). */
const byName = new WeakMap<object, Map<string, SandboxUser>>();

/** The username index of a users table, built on first use and kept up to date by {@link createUser}. */
function nameIndex(users: Record<string, SandboxUser>): Map<string, SandboxUser> {
  let index = byName.get(users);
  if (!index) {
    index = new Map();
    for (const u of Object.values(users)) {
      const name = u.username.toLowerCase();
      if (!index.has(name)) index.set(name, u);
    }
    byName.set(users, index);
  }
  return index;
}

/**
 * The user with this lower-cased username, from an index instead of a scan: every request,
 * post and mention looks a name up, and with 10,000 users the scan each time was the
 * sandbox's main cost. {@link createUser} is the only code that adds users; a world loaded
 * or reset is a new table, indexed anew.
 */
export function findUsername(users: Record<string, SandboxUser>, lower: string): SandboxUser | undefined {
  const hit = nameIndex(users).get(lower);
  return hit && users[hit.id] === hit ? hit : undefined;
}

/** A user by username, ignoring case; gone accounts only with `includeGone`. */
export function userByUsername(
  ctx: SandboxContext,
  username: string,
  opts: { includeGone?: boolean } = {},
): SandboxUser | undefined {
  const u = findUsername(ctx.data.world.users, username.toLowerCase());
  return u && (opts.includeGone || !isGone(u)) ? u : undefined;
}

/** Every account that is not gone, oldest first. */
export const activeUsers = (ctx: SandboxContext): SandboxUser[] =>
  Object.values(ctx.data.world.users).filter((u) => !isGone(u));
