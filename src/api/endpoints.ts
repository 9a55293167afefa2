/**
 * The service's endpoints (spec part 4.1) and how each may be called (spec part 5): the
 * authentication methods it accepts and the PKCE scopes it needs.
 *
 * This is the one place for those facts. The sandbox enforces them, the client refuses a
 * call with a method not listed here before sending anything, and the budget layer maps
 * actions to these keys to find their limits. `npm run check:spec` compares this file with
 * the spec.
 */

/** The three authentication methods of spec part 5. */
export type AuthMethod = "oauth1" | "app" | "pkce";

export const AUTH_METHOD_NAMES: Record<AuthMethod, string> = {
  oauth1: "OAuth 1.0a User Context",
  app: "OAuth 2.0 App Only",
  pkce: "OAuth 2.0 Authorization Code with PKCE",
};

/** The PKCE scopes the spec names (part 5). */
export const SPEC_SCOPES = [
  "post.read",
  "post.write",
  "post.moderate.write",
  "users.read",
  "follows.read",
  "follows.write",
  "block.read",
  "mute.read",
  "mute.write",
  "like.read",
  "like.write",
  "bookmark.read",
  "bookmark.write",
  "space.read",
  "list.read",
  "list.write",
] as const;

/**
 * Scopes the real service has that the spec does not list, and that postbot needs:
 * `offline.access` asks for a refresh token (wire-facts 4.4); `dm.read` and `dm.write`
 * guard direct messages, which the part 5 table leaves out.
 */
export const EXTRA_SCOPES = ["offline.access", "dm.read", "dm.write"] as const;

export type Scope = (typeof SPEC_SCOPES)[number] | (typeof EXTRA_SCOPES)[number];
export const ALL_SCOPES: readonly Scope[] = [...SPEC_SCOPES, ...EXTRA_SCOPES];

export interface AuthGroup {
  /** Methods accepted, in the order a client should prefer them. */
  methods: AuthMethod[];
  /** PKCE scopes required (all of them). */
  scopes: Scope[];
  /** The part 5 row this group is; absent for groups the spec's table does not list. */
  specRow?: string;
}

const USER: AuthMethod[] = ["oauth1", "pkce"];
const ALL: AuthMethod[] = ["oauth1", "app", "pkce"];
const APP: AuthMethod[] = ["app"];
const PKCE: AuthMethod[] = ["pkce"];
const READ: Scope[] = ["post.read", "users.read"];

/**
 * Authentication per group. The spec shows how many methods each row accepts but, for rows
 * with fewer than three, not which. The choices follow the real service (wire-facts part 2):
 *
 * - Two marks on a row that changes a user's data (manage posts, likes, follows, mutes,
 *   lists, hide replies) or reads private relations (blocks, mutes, pinned lists): OAuth 1.0a
 *   and PKCE, the two user contexts; an app-only bearer has no user to act for.
 * - Two marks on the spaces rows: app-only and PKCE (the real service never listed
 *   OAuth 1.0a for spaces).
 * - One mark with scopes (bookmarks, space buyers): PKCE, as the spec itself says that the
 *   mark carrying scopes is the PKCE one.
 * - One mark with no scopes (full archive, both streams, compliance): app-only.
 * - The home timeline ("partial"): user contexts only; `:id` must be the caller.
 * - `GET /2/users/me` is in the three-mark users row, but an app-only bearer has no "me":
 *   it is refused there as the real service does (403 unsupported-authentication).
 *
 * Groups with no `specRow` cover endpoints that part 5 leaves out; they follow the real
 * service too.
 */
export const AUTH_GROUPS = {
  postLookup: { specRow: "Post lookup (GET /2/posts, GET /2/posts/:id)", methods: ALL, scopes: READ },
  managePosts: {
    specRow: "Manage posts (POST /2/posts, DELETE /2/posts/:id)",
    methods: USER,
    scopes: ["post.read", "post.write", "users.read"],
  },
  timelines: { specRow: "Timelines (user posts, mentions, home timeline)", methods: ALL, scopes: READ },
  homeTimeline: { specRow: "Timelines (user posts, mentions, home timeline)", methods: USER, scopes: READ },
  recentSearch: { specRow: "Recent search", methods: ALL, scopes: READ },
  fullArchiveSearch: { specRow: "Full-archive search (Academic Research access only)", methods: APP, scopes: [] },
  filteredStream: { specRow: "Filtered stream (rules add/delete, rules lookup, connect)", methods: APP, scopes: [] },
  volumeStream: { specRow: "Volume stream", methods: APP, scopes: [] },
  manageReposts: { specRow: "Manage reposts", methods: USER, scopes: ["post.read", "post.write", "users.read"] },
  repostedBy: { specRow: "Reposted-by lookup", methods: ALL, scopes: READ },
  bookmarksLookup: { specRow: "Bookmarks lookup", methods: PKCE, scopes: ["post.read", "users.read", "bookmark.read"] },
  manageBookmarks: {
    specRow: "Manage bookmarks (add, remove)",
    methods: PKCE,
    scopes: ["post.read", "users.read", "bookmark.write"],
  },
  manageLikes: { specRow: "Manage likes", methods: USER, scopes: ["post.read", "users.read", "like.write"] },
  likesLookup: {
    specRow: "Likes lookup (liking users, liked posts)",
    methods: ALL,
    scopes: ["post.read", "users.read", "like.read"],
  },
  hideReplies: {
    specRow: "Hide replies (PUT /2/posts/:id/hidden)",
    methods: USER,
    scopes: ["post.read", "users.read", "post.moderate.write"],
  },
  usersLookup: { specRow: "Users lookup (ids, id, usernames, username, me)", methods: ALL, scopes: READ },
  usersMe: { specRow: "Users lookup (ids, id, usernames, username, me)", methods: USER, scopes: READ },
  manageFollows: { specRow: "Manage follows", methods: USER, scopes: ["post.read", "users.read", "follows.write"] },
  followsLookup: {
    specRow: "Follows lookup (following, followers)",
    methods: ALL,
    scopes: ["post.read", "users.read", "follows.read"],
  },
  blocksLookup: { specRow: "Blocks lookup", methods: USER, scopes: ["post.read", "users.read", "block.read"] },
  manageMutes: { specRow: "Manage mutes", methods: USER, scopes: ["post.read", "users.read", "mute.write"] },
  mutesLookup: { specRow: "Mutes lookup", methods: USER, scopes: ["post.read", "users.read", "mute.read"] },
  spacesLookup: {
    specRow: "Spaces lookup (id, ids, creator ids)",
    methods: ["app", "pkce"],
    scopes: ["post.read", "users.read", "space.read"],
  },
  spaceBuyers: { specRow: "Space buyers", methods: PKCE, scopes: ["post.read", "users.read", "space.read"] },
  spacesSearch: {
    specRow: "Spaces search",
    methods: ["app", "pkce"],
    scopes: ["post.read", "users.read", "space.read"],
  },
  listLookup: {
    specRow: "List lookup (by id, owned lists)",
    methods: ALL,
    scopes: ["post.read", "users.read", "list.read"],
  },
  createList: { specRow: "Create list", methods: USER, scopes: ["post.read", "users.read", "list.read", "list.write"] },
  manageList: { specRow: "Delete and update list", methods: USER, scopes: ["post.read", "users.read", "list.write"] },
  listPosts: { specRow: "List posts lookup", methods: ALL, scopes: ["post.read", "users.read", "list.read"] },
  listMembers: {
    specRow: "List members lookup and memberships",
    methods: ALL,
    scopes: ["post.read", "users.read", "list.read"],
  },
  manageListMembers: {
    specRow: "Manage list members",
    methods: USER,
    scopes: ["post.read", "users.read", "list.write"],
  },
  listFollowers: {
    specRow: "List followers and followed lists lookup",
    methods: ALL,
    scopes: ["post.read", "users.read", "list.read"],
  },
  manageListFollows: {
    specRow: "Manage list follows",
    methods: USER,
    scopes: ["post.read", "users.read", "list.write"],
  },
  pinnedListsLookup: {
    specRow: "Pinned lists lookup",
    methods: USER,
    scopes: ["post.read", "users.read", "list.read"],
  },
  managePinnedLists: {
    specRow: "Manage pinned lists",
    methods: USER,
    scopes: ["post.read", "users.read", "list.write"],
  },
  compliance: { specRow: "Batch compliance (create job, get job, list jobs)", methods: APP, scopes: [] },
  // Not in the part 5 table; as the real service has them.
  quotePosts: { methods: ALL, scopes: READ },
  counts: { methods: APP, scopes: [] },
  repostsOfMe: { methods: USER, scopes: READ },
  usage: { methods: APP, scopes: [] },
  usersSearch: { methods: USER, scopes: READ },
  bookmarkFolders: { methods: PKCE, scopes: ["post.read", "users.read", "bookmark.read"] },
  dmRead: { methods: USER, scopes: ["post.read", "users.read", "dm.read"] },
  dmWrite: { methods: USER, scopes: ["post.read", "users.read", "dm.write"] },
  trendsByLocation: { methods: APP, scopes: [] },
  personalizedTrends: { methods: USER, scopes: READ },
  communityLookup: { methods: ALL, scopes: READ },
  communitySearch: { methods: USER, scopes: READ },
} satisfies Record<string, AuthGroup>;

export type AuthGroupName = keyof typeof AUTH_GROUPS;

export type HttpMethod = "GET" | "POST" | "PUT" | "DELETE";

/** One endpoint: its key (`"METHOD /path/template"`, as in spec 4.1) and its auth group. */
export interface Endpoint {
  key: EndpointKey;
  method: HttpMethod;
  path: string;
  group: AuthGroupName;
  auth: AuthGroup;
}

const E = {
  // Posts
  "GET /2/posts": "postLookup",
  "GET /2/posts/:id": "postLookup",
  "POST /2/posts": "managePosts",
  "DELETE /2/posts/:id": "managePosts",
  "PUT /2/posts/:id/hidden": "hideReplies",
  "GET /2/posts/:id/liking_users": "likesLookup",
  "GET /2/posts/:id/quote_posts": "quotePosts",
  "GET /2/posts/:id/reposted_by": "repostedBy",
  "GET /2/posts/:id/bookmarks": "bookmarksLookup",
  "GET /2/posts/counts/recent": "counts",
  "GET /2/posts/counts/all": "counts",
  "GET /2/users/:id/posts": "timelines",
  "GET /2/users/:id/mentions": "timelines",
  "GET /2/users/:id/timelines/reverse_chronological": "homeTimeline",
  "GET /2/users/reposts_of_me": "repostsOfMe",
  "GET /2/usage/posts": "usage",
  // Search and streams
  "GET /2/posts/search/recent": "recentSearch",
  "GET /2/posts/search/all": "fullArchiveSearch",
  "POST /2/posts/search/stream/rules": "filteredStream",
  "GET /2/posts/search/stream/rules": "filteredStream",
  "GET /2/posts/search/stream": "filteredStream",
  "GET /2/posts/sample/stream": "volumeStream",
  // Reposts, likes, bookmarks
  "POST /2/users/:id/reposts": "manageReposts",
  "DELETE /2/users/:id/reposts/:source_post_id": "manageReposts",
  "POST /2/users/:id/likes": "manageLikes",
  "DELETE /2/users/:id/likes/:post_id": "manageLikes",
  "GET /2/users/:id/liked_posts": "likesLookup",
  "POST /2/users/:id/bookmarks": "manageBookmarks",
  "POST /2/posts/:id/bookmarks": "manageBookmarks",
  "DELETE /2/users/:id/bookmarks/:post_id": "manageBookmarks",
  "GET /2/users/:id/bookmarks": "bookmarksLookup",
  "GET /2/users/:id/bookmarks/folders": "bookmarkFolders",
  "GET /2/users/:id/bookmarks/folders/:folder_id": "bookmarkFolders",
  // Users
  "GET /2/users": "usersLookup",
  "GET /2/users/:id": "usersLookup",
  "GET /2/users/by": "usersLookup",
  "GET /2/users/by/username/:username": "usersLookup",
  "GET /2/users/me": "usersMe",
  "GET /2/users/search": "usersSearch",
  "POST /2/users/:id/following": "manageFollows",
  "DELETE /2/users/:source_user_id/following/:target_user_id": "manageFollows",
  "GET /2/users/:id/following": "followsLookup",
  "GET /2/users/:id/followers": "followsLookup",
  "GET /2/users/:id/blocking": "blocksLookup",
  "POST /2/users/:id/muting": "manageMutes",
  "DELETE /2/users/:source_user_id/muting/:target_user_id": "manageMutes",
  "GET /2/users/:id/muting": "mutesLookup",
  "GET /2/users/personalized_trends": "personalizedTrends",
  // Spaces
  "GET /2/spaces/:id": "spacesLookup",
  "GET /2/spaces": "spacesLookup",
  "GET /2/spaces/by/creator_ids": "spacesLookup",
  "GET /2/spaces/:id/buyers": "spaceBuyers",
  "GET /2/spaces/:id/posts": "spacesLookup",
  "GET /2/spaces/search": "spacesSearch",
  // Lists
  "POST /2/lists": "createList",
  "GET /2/lists/:id": "listLookup",
  "PUT /2/lists/:id": "manageList",
  "DELETE /2/lists/:id": "manageList",
  "GET /2/users/:id/owned_lists": "listLookup",
  "GET /2/lists/:id/posts": "listPosts",
  "GET /2/lists/:id/members": "listMembers",
  "POST /2/lists/:id/members": "manageListMembers",
  "DELETE /2/lists/:id/members/:user_id": "manageListMembers",
  "GET /2/users/:id/list_memberships": "listMembers",
  "GET /2/lists/:id/followers": "listFollowers",
  "GET /2/users/:id/followed_lists": "listFollowers",
  "POST /2/users/:id/followed_lists": "manageListFollows",
  "DELETE /2/users/:id/followed_lists/:list_id": "manageListFollows",
  "GET /2/users/:id/pinned_lists": "pinnedListsLookup",
  "POST /2/users/:id/pinned_lists": "managePinnedLists",
  "DELETE /2/users/:id/pinned_lists/:list_id": "managePinnedLists",
  // Direct messages
  "DELETE /2/dm_events/:id": "dmWrite",
  "GET /2/dm_events": "dmRead",
  "GET /2/dm_events/:id": "dmRead",
  "GET /2/dm_conversations/:dm_conversation_id/dm_events": "dmRead",
  "GET /2/dm_conversations/with/:participant_id/dm_events": "dmRead",
  "POST /2/dm_conversations": "dmWrite",
  "POST /2/dm_conversations/:dm_conversation_id/messages": "dmWrite",
  "POST /2/dm_conversations/with/:participant_id/messages": "dmWrite",
  // Compliance, trends, communities
  "POST /2/compliance/jobs": "compliance",
  "GET /2/compliance/jobs/:job_id": "compliance",
  "GET /2/compliance/jobs": "compliance",
  "GET /2/trends/by/woeid/:id": "trendsByLocation",
  "GET /2/communities/:id": "communityLookup",
  "GET /2/communities/search": "communitySearch",
} as const satisfies Record<string, AuthGroupName>;

/** `"METHOD /path/template"` of every v2 endpoint, e.g. `"PUT /2/posts/:id/hidden"`. */
export type EndpointKey = keyof typeof E;

/** Every v2 endpoint of spec part 4.1, in the spec's order. */
export const ENDPOINTS: readonly Endpoint[] = Object.entries(E).map(([key, group]) => {
  const [method, path] = key.split(" ") as [HttpMethod, string];
  return { key: key as EndpointKey, method, path, group, auth: AUTH_GROUPS[group] };
});

const byKey = new Map<string, Endpoint>(ENDPOINTS.map((e) => [e.key, e]));

/** The endpoint of a key; throws for a key that is not in the spec (a bug, not bad input). */
export function endpoint(key: EndpointKey): Endpoint {
  const found = byKey.get(key);
  if (!found) throw new Error(`unknown endpoint ${key}`);
  return found;
}

/** Whether a string names an endpoint of the spec. */
export const isEndpointKey = (key: string): key is EndpointKey => byKey.has(key);

/**
 * Templates split into segments once, grouped by method and segment count, and ordered by
 * how many literal segments they have (most first, catalog order among equals): a request is
 * compared only with templates it could match, and the first match is the best one. The
 * sandbox matches every request it serves; splitting every template each time showed in its
 * profiles.
 */
const BUCKETS = new Map<string, Array<{ e: Endpoint; tpl: string[] }>>();
for (const e of ENDPOINTS) {
  const tpl = e.path.split("/").slice(1);
  const key = `${e.method} ${tpl.length}`;
  BUCKETS.set(key, [...(BUCKETS.get(key) ?? []), { e, tpl }]);
}
const literalCount = (tpl: string[]) => tpl.filter((t) => !t.startsWith(":")).length;
for (const bucket of BUCKETS.values()) bucket.sort((a, b) => literalCount(b.tpl) - literalCount(a.tpl));

/**
 * Matches a concrete request (`GET`, `/2/posts/123`) to its endpoint, preferring literal
 * segments over parameters (`/2/users/me` is not `/2/users/:id`). Returns the path
 * parameters by name, percent-decoded; a malformed escape throws `URIError`, which a server
 * should answer with 400.
 */
export function matchEndpoint(
  method: string,
  pathname: string,
): { endpoint: Endpoint; params: Record<string, string> } | undefined {
  const parts = pathname.split("/").slice(1);
  const bucket = BUCKETS.get(`${method} ${parts.length}`);
  if (!bucket) return undefined;
  for (const { e, tpl } of bucket) {
    let ok = true;
    for (let i = 0; i < tpl.length && ok; i++) {
      const t = tpl[i]!;
      ok = t.startsWith(":") ? parts[i] !== "" : t === parts[i];
    }
    if (!ok) continue;
    const params: Record<string, string> = {};
    for (let i = 0; i < tpl.length; i++)
      if (tpl[i]!.startsWith(":")) params[tpl[i]!.slice(1)] = decodeURIComponent(parts[i]!);
    return { endpoint: e, params };
  }
  return undefined;
}
