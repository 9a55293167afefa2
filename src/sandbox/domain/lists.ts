/**
 * Lists (wire-facts 2.13): a user's named sets of accounts, whose posts make the list's
 * timeline; other users follow them and pin up to five of them.
 *
 * Rules the sandbox applies, as the real service does:
 * - only the owner changes a list (name, description, privacy), its members, or deletes it;
 * - a private list is seen by its owner only: others get "not authorized" on lookups and
 *   never find it in anyone's listings;
 * - a name is 1–25 characters and a description at most 100;
 * - a user owns at most 1000 lists, a list has at most 5000 members, and a user pins at
 *   most 5 lists;
 * - a list whose owner is suspended or deactivated answers as missing.
 */
import type { List, Problem } from "../../api/types.ts";
import { nextId, type SandboxList, type SandboxUser, type WorldData } from "../model/index.ts";
import { forbidden, invalidRequest, notFound, problem, resourceNotFound } from "../problems.ts";
import type { SandboxContext } from "../route.ts";
import { iso } from "./params.ts";
import { blocks } from "./relations.ts";
import { userById } from "./users.ts";
import { codePointsUpTo } from "./code-points.ts";

/** The longest list name, in characters. */
export const MAX_LIST_NAME = 25;
/** The longest list description, in characters. */
export const MAX_LIST_DESCRIPTION = 100;
/** How many lists one user may own. */
export const MAX_OWNED_LISTS = 1000;
/** How many members one list may have. */
export const MAX_LIST_MEMBERS = 5000;
/** How many lists one user may pin (the real service's cap). */
export const MAX_PINNED_LISTS = 5;

/** The edge tables of lists: who is a member, who follows, who pinned. */
export type ListEdgeTable = "list_members" | "list_followers" | "pinned_lists";
type ListEdge = WorldData[ListEdgeTable][number];

/** A list edge table (created when a state saved before lists existed lacks it). */
export function listEdges(ctx: SandboxContext, table: ListEdgeTable): ListEdge[] {
  return (ctx.data.world[table] ??= []);
}

/** The lists table (created when a state saved before lists existed lacks it). */
export function listTable(ctx: SandboxContext): Record<string, SandboxList> {
  return (ctx.data.world.lists ??= {});
}

const hasListEdge = (ctx: SandboxContext, table: ListEdgeTable, listId: string, userId: string) =>
  listEdges(ctx, table).some((e) => e.list_id === listId && e.user_id === userId);

function addListEdge(ctx: SandboxContext, table: ListEdgeTable, listId: string, userId: string): void {
  if (!hasListEdge(ctx, table, listId, userId))
    listEdges(ctx, table).push({ list_id: listId, user_id: userId, created_at: ctx.clock.now() });
}

function removeListEdge(ctx: SandboxContext, table: ListEdgeTable, listId: string, userId: string): void {
  const all = listEdges(ctx, table);
  const i = all.findIndex((e) => e.list_id === listId && e.user_id === userId);
  if (i >= 0) all.splice(i, 1);
}

/** What a list is made or changed with. */
export interface ListChanges {
  name?: string;
  description?: string;
  private?: boolean;
}

function checkName(name: string): string {
  const n = codePointsUpTo(name, MAX_LIST_NAME);
  if (!name.trim() || n > MAX_LIST_NAME) {
    throw invalidRequest(
      `$.name: a list name must be 1 to ${MAX_LIST_NAME} characters; [${name}] has ${n > MAX_LIST_NAME ? `more than ${MAX_LIST_NAME}` : n}`,
      { name: [name] },
    );
  }
  return name;
}

function checkDescription(description: string): string {
  if (codePointsUpTo(description, MAX_LIST_DESCRIPTION) > MAX_LIST_DESCRIPTION) {
    throw invalidRequest(`$.description: a list description must be at most ${MAX_LIST_DESCRIPTION} characters`, {
      description: [description],
    });
  }
  return description;
}

/** A list that exists and whose owner is not gone, or undefined. */
export function liveList(ctx: SandboxContext, id: string): SandboxList | undefined {
  const list = listTable(ctx)[id];
  return list && userById(ctx, list.owner_id) ? list : undefined;
}

/** Whether a viewer (a user, or undefined for an app) may see a list: private lists are their owner's alone. */
export const canSeeList = (viewerId: string | undefined, list: SandboxList): boolean =>
  !list.private || viewerId === list.owner_id;

/** Why a viewer cannot see a list, or the list. */
export type ListAccess = { ok: true; list: SandboxList } | { ok: false; reason: "not-found" | "not-authorized" };

/** Whether `viewerId` may see the list `id`. */
export function listAccess(ctx: SandboxContext, viewerId: string | undefined, id: string): ListAccess {
  const list = liveList(ctx, id);
  if (!list) return { ok: false, reason: "not-found" };
  if (!canSeeList(viewerId, list)) return { ok: false, reason: "not-authorized" };
  return { ok: true, list };
}

/** The partial error of a list lookup that failed (wire-facts 1.1), in the service's wording. */
export function listProblem(reason: "not-found" | "not-authorized", parameter: string, value: string): Problem {
  if (reason === "not-found") return resourceNotFound("list", parameter, value);
  return problem(
    "not-authorized-for-resource",
    "Authorization Error",
    `Sorry, you are not authorized to see the List with ${parameter}: [${value}].`,
    {
      value,
      resource_type: "list",
      parameter,
      resource_id: value,
      section: "data",
    },
  );
}

/**
 * The list an action names (`POST /2/users/:id/followed_lists {list_id}`...): 404 when it
 * does not exist, 403 when it is someone else's private list.
 */
export function listForAction(ctx: SandboxContext, user: SandboxUser, id: string, parameter: string): SandboxList {
  const access = listAccess(ctx, user.id, id);
  if (!access.ok && access.reason === "not-found") throw notFound(`Could not find list with ${parameter}: [${id}].`);
  if (!access.ok) throw forbidden(`The List with ${parameter} [${id}] is private and not yours.`);
  return access.list;
}

/** The list `id` for a change only its owner may make: 404 when missing, 403 for anyone else. */
export function ownedList(ctx: SandboxContext, user: SandboxUser, id: string): SandboxList {
  const list = liveList(ctx, id);
  if (!list) throw notFound(`Could not find list with id: [${id}].`);
  if (list.owner_id !== user.id)
    throw forbidden(`You are not allowed to change the List with id [${id}]: only its owner may.`);
  return list;
}

/**
 * Creates a list owned by `owner`.
 *
 * @example
 * ```ts
 * const list = createList(ctx, alice, { name: "cat people", private: true });
 * ```
 */
export function createList(
  ctx: SandboxContext,
  owner: SandboxUser,
  input: ListChanges & { name: string },
): SandboxList {
  const name = checkName(input.name);
  const description = checkDescription(input.description ?? "");
  const owned = Object.values(listTable(ctx)).filter((l) => l.owner_id === owner.id).length;
  if (owned >= MAX_OWNED_LISTS) throw forbidden(`You cannot own more than ${MAX_OWNED_LISTS} Lists; delete one first.`);
  const now = ctx.clock.now();
  const list: SandboxList = {
    id: nextId(ctx.data, now),
    owner_id: owner.id,
    name,
    description,
    private: input.private ?? false,
    created_at: now,
  };
  listTable(ctx)[list.id] = list;
  return list;
}

/** Changes an owned list's name, description or privacy. */
export function updateList(ctx: SandboxContext, owner: SandboxUser, id: string, changes: ListChanges): void {
  const list = ownedList(ctx, owner, id);
  if (changes.name !== undefined) list.name = checkName(changes.name);
  if (changes.description !== undefined) list.description = checkDescription(changes.description);
  if (changes.private !== undefined) list.private = changes.private;
}

/** Deletes an owned list with its members, followers and pins. */
export function deleteList(ctx: SandboxContext, owner: SandboxUser, id: string): void {
  ownedList(ctx, owner, id);
  delete listTable(ctx)[id];
  for (const table of ["list_members", "list_followers", "pinned_lists"] as const) {
    ctx.data.world[table] = listEdges(ctx, table).filter((e) => e.list_id !== id);
  }
}

/** Adds a member to an owned list (idempotent). The user must exist and not block the owner. */
export function addMember(ctx: SandboxContext, owner: SandboxUser, listId: string, userId: string): void {
  const list = ownedList(ctx, owner, listId);
  const member = userById(ctx, userId);
  if (!member) throw notFound(`Could not find user with user_id: [${userId}].`);
  if (blocks(ctx, member.id, owner.id)) throw forbidden("You cannot add this user to a List: they block you.");
  if (hasListEdge(ctx, "list_members", list.id, member.id)) return;
  if (membersOf(ctx, list.id).length >= MAX_LIST_MEMBERS)
    throw forbidden(`A List can have at most ${MAX_LIST_MEMBERS} members.`);
  addListEdge(ctx, "list_members", list.id, member.id);
}

/** Removes a member from an owned list; a no-op when they are not one. */
export function removeMember(ctx: SandboxContext, owner: SandboxUser, listId: string, userId: string): void {
  ownedList(ctx, owner, listId);
  removeListEdge(ctx, "list_members", listId, userId);
}

/** A user follows a list they can see (idempotent). */
export function followList(ctx: SandboxContext, user: SandboxUser, listId: string): void {
  const list = listForAction(ctx, user, listId, "list_id");
  addListEdge(ctx, "list_followers", list.id, user.id);
}

/** Stops following a list; a no-op when the user does not follow it. */
export const unfollowList = (ctx: SandboxContext, userId: string, listId: string): void =>
  removeListEdge(ctx, "list_followers", listId, userId);

/** Pins a list the user can see; a sixth pin is refused, as on the real service. */
export function pinList(ctx: SandboxContext, user: SandboxUser, listId: string): void {
  const list = listForAction(ctx, user, listId, "list_id");
  if (hasListEdge(ctx, "pinned_lists", list.id, user.id)) return;
  const pinned = listEdges(ctx, "pinned_lists").filter((e) => e.user_id === user.id && liveList(ctx, e.list_id));
  if (pinned.length >= MAX_PINNED_LISTS) {
    throw forbidden(
      `You cannot pin more than ${MAX_PINNED_LISTS} Lists. Unpin one (DELETE /2/users/:id/pinned_lists/:list_id) first.`,
    );
  }
  addListEdge(ctx, "pinned_lists", list.id, user.id);
}

/** Unpins a list; a no-op when it is not pinned. */
export const unpinList = (ctx: SandboxContext, userId: string, listId: string): void =>
  removeListEdge(ctx, "pinned_lists", listId, userId);

/** The member edges of a list (members that are gone included; callers drop them). */
export const membersOf = (ctx: SandboxContext, listId: string): ListEdge[] =>
  listEdges(ctx, "list_members").filter((e) => e.list_id === listId);

/** The follower edges of a list. */
export const followersOf = (ctx: SandboxContext, listId: string): ListEdge[] =>
  listEdges(ctx, "list_followers").filter((e) => e.list_id === listId);

/** The edges of a user in a table: the lists they are a member of, follow, or pinned. */
export const edgesOfUser = (ctx: SandboxContext, table: ListEdgeTable, userId: string): ListEdge[] =>
  listEdges(ctx, table).filter((e) => e.user_id === userId);

/** The lists a user owns, as edges (the list's creation is the edge's time). */
export const ownedBy = (ctx: SandboxContext, userId: string): SandboxList[] =>
  Object.values(listTable(ctx)).filter((l) => l.owner_id === userId);

/** The list as the service shows it, with the `list.fields` asked for (`id` and `name` always). */
export function listObject(ctx: SandboxContext, list: SandboxList, fields: ReadonlySet<string>): List {
  const out: List = { id: list.id, name: list.name };
  if (fields.has("created_at")) out.created_at = iso(list.created_at);
  if (fields.has("description")) out.description = list.description;
  if (fields.has("follower_count"))
    out.follower_count = followersOf(ctx, list.id).filter((e) => userById(ctx, e.user_id)).length;
  if (fields.has("member_count"))
    out.member_count = membersOf(ctx, list.id).filter((e) => userById(ctx, e.user_id)).length;
  if (fields.has("owner_id")) out.owner_id = list.owner_id;
  if (fields.has("private")) out.private = list.private;
  return out;
}
