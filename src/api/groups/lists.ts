/** Lists (spec 4.1 "Lists"): owned lists, members, followers, follows and pins. */
import type { CallOptions, Caller } from "../caller.ts";
import { paged } from "../paginate.ts";
import type { ListFieldsQuery, PagingQuery, PostFieldsQuery, UserFieldsQuery } from "../params.ts";
import type { ListBody } from "../schema.ts";

export function listsGroup(c: Caller) {
  return {
    /** `POST /2/lists`: a list owned by the caller (name 1–25 characters). */
    create: (body: ListBody & { name: string }, options?: CallOptions) => c.request("POST /2/lists", { body }, options),
    /** `GET /2/lists/:id`. */
    lookup: (id: string, query?: ListFieldsQuery, options?: CallOptions) =>
      c.request("GET /2/lists/:id", { params: { id }, query }, options),
    /** `PUT /2/lists/:id` (owner only). */
    update: (id: string, body: ListBody, options?: CallOptions) =>
      c.request("PUT /2/lists/:id", { params: { id }, body }, options),
    /** `DELETE /2/lists/:id` (owner only). */
    delete: (id: string, options?: CallOptions) => c.request("DELETE /2/lists/:id", { params: { id } }, options),
    /** `GET /2/users/:id/owned_lists`. */
    owned: paged(
      "GET /2/users/:id/owned_lists",
      1,
      (userId: string, query?: ListFieldsQuery & PagingQuery, options?: CallOptions) =>
        c.request("GET /2/users/:id/owned_lists", { params: { id: userId }, query }, options),
    ),
    /** `GET /2/lists/:id/posts`: posts of the list's members. */
    posts: paged(
      "GET /2/lists/:id/posts",
      1,
      (id: string, query?: PostFieldsQuery & PagingQuery, options?: CallOptions) =>
        c.request("GET /2/lists/:id/posts", { params: { id }, query }, options),
    ),
    /** `GET /2/lists/:id/members`. */
    members: paged(
      "GET /2/lists/:id/members",
      1,
      (id: string, query?: UserFieldsQuery & PagingQuery, options?: CallOptions) =>
        c.request("GET /2/lists/:id/members", { params: { id }, query }, options),
    ),
    /** `POST /2/lists/:id/members`. */
    addMember: (id: string, userId: string, options?: CallOptions) =>
      c.request("POST /2/lists/:id/members", { params: { id }, body: { user_id: userId } }, options),
    /** `DELETE /2/lists/:id/members/:user_id`. */
    removeMember: (id: string, userId: string, options?: CallOptions) =>
      c.request("DELETE /2/lists/:id/members/:user_id", { params: { id, user_id: userId } }, options),
    /** `GET /2/users/:id/list_memberships`: lists the user is a member of. */
    memberships: paged(
      "GET /2/users/:id/list_memberships",
      1,
      (userId: string, query?: ListFieldsQuery & PagingQuery, options?: CallOptions) =>
        c.request("GET /2/users/:id/list_memberships", { params: { id: userId }, query }, options),
    ),
    /** `GET /2/lists/:id/followers`. */
    followers: paged(
      "GET /2/lists/:id/followers",
      1,
      (id: string, query?: UserFieldsQuery & PagingQuery, options?: CallOptions) =>
        c.request("GET /2/lists/:id/followers", { params: { id }, query }, options),
    ),
    /** `GET /2/users/:id/followed_lists`. */
    followed: paged(
      "GET /2/users/:id/followed_lists",
      1,
      (userId: string, query?: ListFieldsQuery & PagingQuery, options?: CallOptions) =>
        c.request("GET /2/users/:id/followed_lists", { params: { id: userId }, query }, options),
    ),
    /** `POST /2/users/:id/followed_lists`. */
    follow: (userId: string, listId: string, options?: CallOptions) =>
      c.request("POST /2/users/:id/followed_lists", { params: { id: userId }, body: { list_id: listId } }, options),
    /** `DELETE /2/users/:id/followed_lists/:list_id`. */
    unfollow: (userId: string, listId: string, options?: CallOptions) =>
      c.request("DELETE /2/users/:id/followed_lists/:list_id", { params: { id: userId, list_id: listId } }, options),
    /** `GET /2/users/:id/pinned_lists` (user context only). */
    pinned: (userId: string, query?: ListFieldsQuery, options?: CallOptions) =>
      c.request("GET /2/users/:id/pinned_lists", { params: { id: userId }, query }, options),
    /** `POST /2/users/:id/pinned_lists`. */
    pin: (userId: string, listId: string, options?: CallOptions) =>
      c.request("POST /2/users/:id/pinned_lists", { params: { id: userId }, body: { list_id: listId } }, options),
    /** `DELETE /2/users/:id/pinned_lists/:list_id`. */
    unpin: (userId: string, listId: string, options?: CallOptions) =>
      c.request("DELETE /2/users/:id/pinned_lists/:list_id", { params: { id: userId, list_id: listId } }, options),
  };
}
