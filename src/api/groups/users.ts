/**
 * Users (spec 4.1 "Users") and their timelines: lookups, the authenticated user, search,
 * follows, mutes, blocks, and the post, mention and home timelines.
 */
import type { CallOptions, Caller } from "../caller.ts";
import { paged } from "../paginate.ts";
import type {
  ExcludeQuery,
  PagingQuery,
  PostFieldsQuery,
  SearchPagingQuery,
  TimelineQuery,
  UserFieldsQuery,
} from "../params.ts";

/** Finding users: by id, by username, the caller, and search. */
function userLookups(c: Caller) {
  return {
    /** `GET /2/users/:id`. */
    lookup: (id: string, query?: UserFieldsQuery, options?: CallOptions) =>
      c.request("GET /2/users/:id", { params: { id }, query }, options),
    /** `GET /2/users?ids=` (up to 100). */
    lookupMany: (ids: readonly string[], query?: UserFieldsQuery, options?: CallOptions) =>
      c.request("GET /2/users", { query: { ...query, ids } }, options),
    /** `GET /2/users/by/username/:username`. */
    byUsername: (username: string, query?: UserFieldsQuery, options?: CallOptions) =>
      c.request("GET /2/users/by/username/:username", { params: { username }, query }, options),
    /** `GET /2/users/by?usernames=` (up to 100). */
    byUsernames: (usernames: readonly string[], query?: UserFieldsQuery, options?: CallOptions) =>
      c.request("GET /2/users/by", { query: { ...query, usernames } }, options),
    /** `GET /2/users/me`: the account the user-context credential belongs to. */
    me: (query?: UserFieldsQuery, options?: CallOptions) => c.request("GET /2/users/me", { query }, options),
    /** `GET /2/users/search`. */
    search: paged(
      "GET /2/users/search",
      0,
      (query: UserFieldsQuery & SearchPagingQuery & { query: string }, options?: CallOptions) =>
        c.request("GET /2/users/search", { query }, options),
    ),
  };
}

/** A user's timelines: their posts, their mentions, the caller's home timeline, reposts of the caller. */
function userTimelines(c: Caller) {
  return {
    /** `GET /2/users/:id/posts`: the user's own posts, newest first. */
    posts: paged(
      "GET /2/users/:id/posts",
      1,
      (id: string, query?: TimelineQuery & ExcludeQuery, options?: CallOptions) =>
        c.request("GET /2/users/:id/posts", { params: { id }, query }, options),
    ),
    /** `GET /2/users/:id/mentions`: posts that mention the user (replies to the user included), newest first. */
    mentions: paged("GET /2/users/:id/mentions", 1, (id: string, query?: TimelineQuery, options?: CallOptions) =>
      c.request("GET /2/users/:id/mentions", { params: { id }, query }, options),
    ),
    /** `GET /2/users/:id/timelines/reverse_chronological`: the home timeline; `id` must be the caller. */
    homeTimeline: paged(
      "GET /2/users/:id/timelines/reverse_chronological",
      1,
      (id: string, query?: TimelineQuery & ExcludeQuery, options?: CallOptions) =>
        c.request("GET /2/users/:id/timelines/reverse_chronological", { params: { id }, query }, options),
    ),
    /** `GET /2/users/reposts_of_me`: reposts of the caller's posts. */
    repostsOfMe: paged(
      "GET /2/users/reposts_of_me",
      0,
      (query?: PostFieldsQuery & PagingQuery, options?: CallOptions) =>
        c.request("GET /2/users/reposts_of_me", { query }, options),
    ),
  };
}

/** Whom a user follows, mutes and blocks, and changing that. */
function userRelations(c: Caller) {
  return {
    /** `POST /2/users/:id/following`: `userId` (the caller) follows `targetUserId`. */
    follow: (userId: string, targetUserId: string, options?: CallOptions) =>
      c.request(
        "POST /2/users/:id/following",
        { params: { id: userId }, body: { target_user_id: targetUserId } },
        options,
      ),
    /** `DELETE /2/users/:source_user_id/following/:target_user_id`. */
    unfollow: (userId: string, targetUserId: string, options?: CallOptions) =>
      c.request(
        "DELETE /2/users/:source_user_id/following/:target_user_id",
        { params: { source_user_id: userId, target_user_id: targetUserId } },
        options,
      ),
    /** `GET /2/users/:id/following`. */
    following: paged(
      "GET /2/users/:id/following",
      1,
      (id: string, query?: UserFieldsQuery & PagingQuery, options?: CallOptions) =>
        c.request("GET /2/users/:id/following", { params: { id }, query }, options),
    ),
    /** `GET /2/users/:id/followers`. */
    followers: paged(
      "GET /2/users/:id/followers",
      1,
      (id: string, query?: UserFieldsQuery & PagingQuery, options?: CallOptions) =>
        c.request("GET /2/users/:id/followers", { params: { id }, query }, options),
    ),
    /** `GET /2/users/:id/blocking`: whom the caller blocks. */
    blocking: paged(
      "GET /2/users/:id/blocking",
      1,
      (id: string, query?: UserFieldsQuery & PagingQuery, options?: CallOptions) =>
        c.request("GET /2/users/:id/blocking", { params: { id }, query }, options),
    ),
    /** `POST /2/users/:id/muting`. */
    mute: (userId: string, targetUserId: string, options?: CallOptions) =>
      c.request(
        "POST /2/users/:id/muting",
        { params: { id: userId }, body: { target_user_id: targetUserId } },
        options,
      ),
    /** `DELETE /2/users/:source_user_id/muting/:target_user_id`. */
    unmute: (userId: string, targetUserId: string, options?: CallOptions) =>
      c.request(
        "DELETE /2/users/:source_user_id/muting/:target_user_id",
        { params: { source_user_id: userId, target_user_id: targetUserId } },
        options,
      ),
    /** `GET /2/users/:id/muting`. */
    muting: paged(
      "GET /2/users/:id/muting",
      1,
      (id: string, query?: UserFieldsQuery & PagingQuery, options?: CallOptions) =>
        c.request("GET /2/users/:id/muting", { params: { id }, query }, options),
    ),
  };
}

/**
 * `client.users`: the users endpoints, in three parts by what they are about (lookups,
 * timelines, relations) so each stays readable.
 */
export function usersGroup(c: Caller) {
  return { ...userLookups(c), ...userTimelines(c), ...userRelations(c) };
}
