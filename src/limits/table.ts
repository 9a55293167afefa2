// Generated from spec part 8.2 by `npm run gen:limits`: do not edit by hand.
// `npm run check:spec` proves that this file still matches the spec, row by row.
import type { LimitCell, Plan } from "./types.ts";

/** The part 8.2 tables: per endpoint, per plan, the limits that apply together. */
export const SPEC_LIMITS = {
  "DELETE /2/posts/:id": {
    pro: [{ max: 50, per: "15m", scope: "user" }],
    basic: [{ max: 5, per: "15m", scope: "user" }],
    free: [
      { max: 17, per: "24h", scope: "user" },
      { max: 17, per: "24h", scope: "app" },
    ],
  },
  "DELETE /2/users/:id/likes/:post_id": {
    pro: [{ max: 50, per: "15m", scope: "user" }],
    basic: [{ max: 100, per: "24h", scope: "user" }],
    free: [{ max: 1, per: "15m", scope: "user" }],
  },
  "DELETE /2/users/:id/reposts/:source_post_id": {
    pro: [{ max: 50, per: "15m", scope: "user" }],
    basic: [{ max: 5, per: "15m", scope: "user" }],
    free: [{ max: 1, per: "15m", scope: "user" }],
  },
  "GET /2/posts": {
    pro: [
      { max: 900, per: "15m", scope: "user" },
      { max: 450, per: "15m", scope: "app" },
    ],
    basic: [
      { max: 15, per: "15m", scope: "user" },
      { max: 15, per: "15m", scope: "app" },
    ],
    free: [
      { max: 1, per: "15m", scope: "user" },
      { max: 1, per: "15m", scope: "app" },
    ],
  },
  "GET /2/posts/:id": {
    pro: [
      { max: 900, per: "15m", scope: "user" },
      { max: 450, per: "15m", scope: "app" },
    ],
    basic: [
      { max: 15, per: "15m", scope: "user" },
      { max: 15, per: "15m", scope: "app" },
    ],
    free: [
      { max: 1, per: "15m", scope: "user" },
      { max: 1, per: "15m", scope: "app" },
    ],
  },
  "GET /2/posts/:id/liking_users": {
    pro: [
      { max: 75, per: "15m", scope: "user" },
      { max: 75, per: "15m", scope: "app" },
    ],
    basic: [
      { max: 5, per: "15m", scope: "user" },
      { max: 25, per: "15m", scope: "app" },
    ],
    free: [
      { max: 1, per: "15m", scope: "user" },
      { max: 1, per: "15m", scope: "app" },
    ],
  },
  "GET /2/posts/:id/quote_posts": {
    pro: [
      { max: 75, per: "15m", scope: "user" },
      { max: 75, per: "15m", scope: "app" },
    ],
    basic: [
      { max: 5, per: "15m", scope: "user" },
      { max: 5, per: "15m", scope: "app" },
    ],
    free: [
      { max: 1, per: "15m", scope: "user" },
      { max: 1, per: "15m", scope: "app" },
    ],
  },
  "GET /2/posts/:id/reposted_by": {
    pro: [
      { max: 75, per: "15m", scope: "user" },
      { max: 75, per: "15m", scope: "app" },
    ],
    basic: [
      { max: 5, per: "15m", scope: "user" },
      { max: 5, per: "15m", scope: "app" },
    ],
    free: [
      { max: 1, per: "15m", scope: "user" },
      { max: 1, per: "15m", scope: "app" },
    ],
  },
  "GET /2/posts/counts/all": {
    pro: [{ max: 300, per: "15m", scope: "app" }],
    basic: "unavailable",
    free: "unavailable",
  },
  "GET /2/posts/counts/recent": {
    pro: [{ max: 300, per: "15m", scope: "app" }],
    basic: [{ max: 5, per: "15m", scope: "app" }],
    free: [{ max: 1, per: "15m", scope: "app" }],
  },
  "GET /2/posts/search/all": {
    pro: [
      { max: 1, per: "1s", scope: "user" },
      { max: 1, per: "1s", scope: "app" },
    ],
    basic: "unavailable",
    free: "absent",
  },
  "GET /2/posts/search/recent": {
    pro: [
      { max: 300, per: "15m", scope: "user" },
      { max: 450, per: "15m", scope: "app" },
    ],
    basic: [
      { max: 60, per: "15m", scope: "user" },
      { max: 60, per: "15m", scope: "app" },
    ],
    free: [
      { max: 1, per: "15m", scope: "user" },
      { max: 1, per: "15m", scope: "app" },
    ],
  },
  "GET /2/posts/search/stream": {
    pro: [{ max: 50, per: "15m", scope: "app" }],
    basic: "unavailable",
    free: "unavailable",
  },
  "GET /2/posts/search/stream/rules": {
    pro: [{ max: 450, per: "15m", scope: "app" }],
    basic: "unavailable",
    free: "unavailable",
  },
  "GET /2/users/:id/liked_posts": {
    pro: [
      { max: 75, per: "15m", scope: "user" },
      { max: 75, per: "15m", scope: "app" },
    ],
    basic: [
      { max: 5, per: "15m", scope: "user" },
      { max: 5, per: "15m", scope: "app" },
    ],
    free: [
      { max: 1, per: "15m", scope: "user" },
      { max: 1, per: "15m", scope: "app" },
    ],
  },
  "GET /2/users/:id/mentions": {
    pro: [
      { max: 300, per: "15m", scope: "user" },
      { max: 450, per: "15m", scope: "app" },
    ],
    basic: [
      { max: 10, per: "15m", scope: "user" },
      { max: 15, per: "15m", scope: "app" },
    ],
    free: [
      { max: 1, per: "15m", scope: "user" },
      { max: 1, per: "15m", scope: "app" },
    ],
  },
  "GET /2/users/:id/timelines/reverse_chronological": {
    pro: [{ max: 180, per: "15m", scope: "user" }],
    basic: [{ max: 5, per: "15m", scope: "user" }],
    free: [{ max: 1, per: "15m", scope: "user" }],
  },
  "GET /2/users/:id/posts": {
    pro: [
      { max: 900, per: "15m", scope: "user" },
      { max: 1500, per: "15m", scope: "app" },
    ],
    basic: [
      { max: 5, per: "15m", scope: "user" },
      { max: 10, per: "15m", scope: "app" },
    ],
    free: [
      { max: 1, per: "15m", scope: "user" },
      { max: 1, per: "15m", scope: "app" },
    ],
  },
  "GET /2/users/reposts_of_me": {
    pro: [{ max: 75, per: "15m", scope: "user" }],
    basic: [{ max: 75, per: "15m", scope: "user" }],
    free: [{ max: 1, per: "15m", scope: "user" }],
  },
  "POST /2/posts": {
    pro: [
      { max: 100, per: "15m", scope: "user" },
      { max: 10000, per: "24h", scope: "app" },
    ],
    basic: [
      { max: 100, per: "24h", scope: "user" },
      { max: 1667, per: "24h", scope: "app" },
    ],
    free: [
      { max: 17, per: "24h", scope: "user" },
      { max: 17, per: "24h", scope: "app" },
    ],
  },
  "POST /2/posts/search/stream/rules": {
    pro: [{ max: 100, per: "15m", scope: "app" }],
    basic: "unavailable",
    free: "absent",
  },
  "POST /2/users/:id/likes": {
    pro: [{ max: 1000, per: "24h", scope: "user" }],
    basic: [{ max: 200, per: "24h", scope: "user" }],
    free: [{ max: 1, per: "15m", scope: "user" }],
  },
  "POST /2/users/:id/reposts": {
    pro: [{ max: 50, per: "15m", scope: "user" }],
    basic: [{ max: 5, per: "15m", scope: "user" }],
    free: [{ max: 1, per: "15m", scope: "user" }],
  },
  "PUT /2/posts/:id/hidden": {
    pro: [{ max: 50, per: "15m", scope: "user" }],
    basic: [{ max: 5, per: "15m", scope: "user" }],
    free: [{ max: 1, per: "15m", scope: "user" }],
  },
  "DELETE /2/users/:source_user_id/following/:target_user_id": {
    pro: [{ max: 50, per: "15m", scope: "user" }],
    basic: [{ max: 5, per: "15m", scope: "user" }],
    free: [{ max: 1, per: "15m", scope: "user" }],
  },
  "DELETE /2/users/:source_user_id/muting/:target_user_id": {
    pro: [{ max: 50, per: "15m", scope: "user" }],
    basic: [{ max: 5, per: "15m", scope: "user" }],
    free: [{ max: 1, per: "15m", scope: "user" }],
  },
  "GET /2/users": {
    pro: [
      { max: 900, per: "15m", scope: "user" },
      { max: 300, per: "15m", scope: "app" },
    ],
    basic: [
      { max: 100, per: "24h", scope: "user" },
      { max: 500, per: "24h", scope: "app" },
    ],
    free: [
      { max: 1, per: "24h", scope: "user" },
      { max: 1, per: "24h", scope: "app" },
    ],
  },
  "GET /2/users/:id": {
    pro: [
      { max: 900, per: "15m", scope: "user" },
      { max: 300, per: "15m", scope: "app" },
    ],
    basic: [
      { max: 100, per: "24h", scope: "user" },
      { max: 500, per: "24h", scope: "app" },
    ],
    free: [
      { max: 1, per: "24h", scope: "user" },
      { max: 1, per: "24h", scope: "app" },
    ],
  },
  "GET /2/users/:id/blocking": {
    pro: [{ max: 15, per: "15m", scope: "user" }],
    basic: [{ max: 5, per: "15m", scope: "user" }],
    free: [{ max: 1, per: "15m", scope: "user" }],
  },
  "GET /2/users/:id/muting": {
    pro: [{ max: 15, per: "15m", scope: "user" }],
    basic: [{ max: 100, per: "24h", scope: "user" }],
    free: [{ max: 1, per: "24h", scope: "user" }],
  },
  "GET /2/users/by": {
    pro: [
      { max: 900, per: "15m", scope: "user" },
      { max: 300, per: "15m", scope: "app" },
    ],
    basic: [
      { max: 100, per: "24h", scope: "user" },
      { max: 500, per: "24h", scope: "app" },
    ],
    free: [
      { max: 1, per: "24h", scope: "user" },
      { max: 1, per: "24h", scope: "app" },
    ],
  },
  "GET /2/users/by/username/:username": {
    pro: [
      { max: 900, per: "15m", scope: "user" },
      { max: 300, per: "15m", scope: "app" },
    ],
    basic: [
      { max: 100, per: "24h", scope: "user" },
      { max: 500, per: "24h", scope: "app" },
    ],
    free: [
      { max: 3, per: "15m", scope: "user" },
      { max: 3, per: "15m", scope: "app" },
    ],
  },
  "GET /2/users/me": {
    pro: [{ max: 75, per: "15m", scope: "user" }],
    basic: [{ max: 250, per: "24h", scope: "user" }],
    free: [{ max: 25, per: "24h", scope: "user" }],
  },
  "GET /2/users/search": {
    pro: [
      { max: 900, per: "15m", scope: "user" },
      { max: 300, per: "15m", scope: "app" },
    ],
    basic: "unavailable",
    free: "unavailable",
  },
  "POST /2/users/:id/following": {
    pro: [{ max: 50, per: "15m", scope: "user" }],
    basic: [{ max: 5, per: "15m", scope: "user" }],
    free: [{ max: 1, per: "15m", scope: "user" }],
  },
  "POST /2/users/:id/muting": {
    pro: [{ max: 50, per: "15m", scope: "user" }],
    basic: [{ max: 5, per: "15m", scope: "user" }],
    free: [{ max: 1, per: "15m", scope: "user" }],
  },
  "GET /2/spaces": {
    pro: [
      { max: 300, per: "15m", scope: "user" },
      { max: 300, per: "15m", scope: "app" },
    ],
    basic: [
      { max: 5, per: "15m", scope: "user" },
      { max: 25, per: "15m", scope: "app" },
    ],
    free: [
      { max: 1, per: "15m", scope: "user" },
      { max: 1, per: "15m", scope: "app" },
    ],
  },
  "GET /2/spaces/:id": {
    pro: [
      { max: 300, per: "15m", scope: "user" },
      { max: 300, per: "15m", scope: "app" },
    ],
    basic: [
      { max: 5, per: "15m", scope: "user" },
      { max: 25, per: "15m", scope: "app" },
    ],
    free: [
      { max: 1, per: "15m", scope: "user" },
      { max: 1, per: "15m", scope: "app" },
    ],
  },
  "GET /2/spaces/:id/buyers": {
    pro: [
      { max: 300, per: "15m", scope: "user" },
      { max: 300, per: "15m", scope: "app" },
    ],
    basic: [
      { max: 5, per: "15m", scope: "user" },
      { max: 25, per: "15m", scope: "app" },
    ],
    free: [
      { max: 1, per: "15m", scope: "user" },
      { max: 1, per: "15m", scope: "app" },
    ],
  },
  "GET /2/spaces/:id/posts": {
    pro: [
      { max: 300, per: "15m", scope: "user" },
      { max: 300, per: "15m", scope: "app" },
    ],
    basic: [
      { max: 5, per: "15m", scope: "user" },
      { max: 25, per: "15m", scope: "app" },
    ],
    free: [
      { max: 1, per: "15m", scope: "user" },
      { max: 1, per: "15m", scope: "app" },
    ],
  },
  "GET /2/spaces/by/creator_ids": {
    pro: [
      { max: 300, per: "15m", scope: "user" },
      { max: 1, per: "1s", scope: "app" },
    ],
    basic: [
      { max: 5, per: "15m", scope: "user" },
      { max: 25, per: "1s", scope: "app" },
    ],
    free: [
      { max: 1, per: "1s", scope: "user" },
      { max: 1, per: "15m", scope: "app" },
    ],
  },
  "GET /2/spaces/search": {
    pro: [
      { max: 300, per: "15m", scope: "user" },
      { max: 300, per: "15m", scope: "app" },
    ],
    basic: [
      { max: 5, per: "15m", scope: "user" },
      { max: 25, per: "15m", scope: "app" },
    ],
    free: [
      { max: 1, per: "15m", scope: "user" },
      { max: 1, per: "15m", scope: "app" },
    ],
  },
  "DELETE /2/dm_events/:id": {
    pro: [
      { max: 1500, per: "24h", scope: "user" },
      { max: 4000, per: "24h", scope: "app" },
    ],
    basic: [
      { max: 200, per: "15m", scope: "user" },
      { max: 2500, per: "24h", scope: "app" },
    ],
    free: "unavailable",
  },
  "GET /2/dm_conversations/:dm_conversation_id/dm_events": {
    pro: [{ max: 15, per: "15m", scope: "user" }],
    basic: [{ max: 1, per: "24h", scope: "user" }],
    free: "unavailable",
  },
  "GET /2/dm_conversations/with/:participant_id/dm_events": {
    pro: [{ max: 15, per: "15m", scope: "user" }],
    basic: [{ max: 1, per: "24h", scope: "user" }],
    free: "unavailable",
  },
  "GET /2/dm_events": {
    pro: [{ max: 15, per: "15m", scope: "user" }],
    basic: [{ max: 1, per: "24h", scope: "user" }],
    free: "unavailable",
  },
  "GET /2/dm_events/:id": {
    pro: [{ max: 15, per: "15m", scope: "user" }],
    basic: [{ max: 5, per: "24h", scope: "user" }],
    free: "unavailable",
  },
  "POST /2/dm_conversations": {
    pro: [
      { max: 15, per: "15m", scope: "user" },
      { max: 1440, per: "24h", scope: "app" },
    ],
    basic: [
      { max: 1, per: "24h", scope: "user" },
      { max: 1, per: "24h", scope: "app" },
    ],
    free: "unavailable",
  },
  "POST /2/dm_conversations/:dm_conversation_id/messages": {
    pro: [
      { max: 15, per: "15m", scope: "user" },
      { max: 1440, per: "24h", scope: "app" },
    ],
    basic: [
      { max: 1, per: "24h", scope: "user" },
      { max: 1, per: "24h", scope: "app" },
    ],
    free: "unavailable",
  },
  "POST /2/dm_conversations/with/:participant_id/messages": {
    pro: [
      { max: 1440, per: "24h", scope: "user" },
      { max: 1440, per: "24h", scope: "app" },
    ],
    basic: [
      { max: 1, per: "24h", scope: "user" },
      { max: 1, per: "24h", scope: "app" },
    ],
    free: "unavailable",
  },
  "DELETE /2/lists/:id": {
    pro: [{ max: 300, per: "15m", scope: "user" }],
    basic: [{ max: 5, per: "15m", scope: "user" }],
    free: [{ max: 1, per: "15m", scope: "user" }],
  },
  "DELETE /2/lists/:id/members/:user_id": {
    pro: [{ max: 300, per: "15m", scope: "user" }],
    basic: [{ max: 5, per: "15m", scope: "user" }],
    free: [{ max: 1, per: "15m", scope: "user" }],
  },
  "DELETE /2/users/:id/followed_lists/:list_id": {
    pro: [{ max: 50, per: "15m", scope: "user" }],
    basic: [{ max: 5, per: "15m", scope: "user" }],
    free: [{ max: 1, per: "15m", scope: "user" }],
  },
  "DELETE /2/users/:id/pinned_lists/:list_id": {
    pro: [{ max: 50, per: "15m", scope: "user" }],
    basic: [{ max: 5, per: "15m", scope: "user" }],
    free: [{ max: 1, per: "15m", scope: "user" }],
  },
  "GET /2/lists/:id": {
    pro: [
      { max: 75, per: "15m", scope: "user" },
      { max: 75, per: "15m", scope: "app" },
    ],
    basic: [
      { max: 5, per: "15m", scope: "user" },
      { max: 5, per: "15m", scope: "app" },
    ],
    free: [
      { max: 1, per: "15m", scope: "user" },
      { max: 1, per: "15m", scope: "app" },
    ],
  },
  "GET /2/lists/:id/members": {
    pro: [
      { max: 900, per: "15m", scope: "user" },
      { max: 900, per: "15m", scope: "app" },
    ],
    basic: [
      { max: 5, per: "15m", scope: "user" },
      { max: 25, per: "15m", scope: "app" },
    ],
    free: [
      { max: 1, per: "15m", scope: "user" },
      { max: 1, per: "15m", scope: "app" },
    ],
  },
  "GET /2/lists/:id/posts": {
    pro: [
      { max: 900, per: "15m", scope: "user" },
      { max: 900, per: "15m", scope: "app" },
    ],
    basic: [
      { max: 5, per: "15m", scope: "user" },
      { max: 25, per: "15m", scope: "app" },
    ],
    free: "absent",
  },
  "GET /2/users/:id/list_memberships": {
    pro: [
      { max: 75, per: "15m", scope: "user" },
      { max: 75, per: "15m", scope: "app" },
    ],
    basic: [
      { max: 5, per: "15m", scope: "user" },
      { max: 25, per: "15m", scope: "app" },
    ],
    free: [
      { max: 1, per: "15m", scope: "user" },
      { max: 1, per: "15m", scope: "app" },
    ],
  },
  "GET /2/users/:id/owned_lists": {
    pro: [
      { max: 15, per: "15m", scope: "user" },
      { max: 15, per: "15m", scope: "app" },
    ],
    basic: [
      { max: 100, per: "24h", scope: "user" },
      { max: 500, per: "24h", scope: "app" },
    ],
    free: [
      { max: 1, per: "24h", scope: "user" },
      { max: 1, per: "24h", scope: "app" },
    ],
  },
  "GET /2/users/:id/pinned_lists": {
    pro: [
      { max: 15, per: "15m", scope: "user" },
      { max: 15, per: "15m", scope: "app" },
    ],
    basic: [
      { max: 100, per: "24h", scope: "user" },
      { max: 500, per: "24h", scope: "app" },
    ],
    free: [
      { max: 1, per: "24h", scope: "user" },
      { max: 1, per: "24h", scope: "app" },
    ],
  },
  "POST /2/lists": {
    pro: [{ max: 300, per: "15m", scope: "user" }],
    basic: [{ max: 100, per: "24h", scope: "user" }],
    free: [{ max: 1, per: "24h", scope: "user" }],
  },
  "POST /2/lists/:id/members": {
    pro: [{ max: 300, per: "15m", scope: "user" }],
    basic: [{ max: 5, per: "15m", scope: "user" }],
    free: [{ max: 1, per: "15m", scope: "user" }],
  },
  "POST /2/users/:id/followed_lists": {
    pro: [{ max: 50, per: "15m", scope: "user" }],
    basic: [{ max: 5, per: "15m", scope: "user" }],
    free: [{ max: 1, per: "15m", scope: "user" }],
  },
  "POST /2/users/:id/pinned_lists": {
    pro: [{ max: 50, per: "15m", scope: "user" }],
    basic: [{ max: 5, per: "15m", scope: "user" }],
    free: [{ max: 1, per: "15m", scope: "user" }],
  },
  "PUT /2/lists/:id": {
    pro: [{ max: 300, per: "15m", scope: "user" }],
    basic: [{ max: 5, per: "15m", scope: "user" }],
    free: [{ max: 1, per: "15m", scope: "user" }],
  },
  "DELETE /2/users/:id/bookmarks/:post_id": {
    pro: [{ max: 50, per: "15m", scope: "user" }],
    basic: [{ max: 5, per: "15m", scope: "user" }],
    free: [{ max: 1, per: "15m", scope: "user" }],
  },
  "GET /2/users/:id/bookmarks": {
    pro: [{ max: 180, per: "15m", scope: "user" }],
    basic: [{ max: 10, per: "15m", scope: "user" }],
    free: [{ max: 1, per: "15m", scope: "user" }],
  },
  "GET /2/users/:id/bookmarks/folders": {
    pro: [
      { max: 50, per: "15m", scope: "user" },
      { max: 50, per: "15m", scope: "app" },
    ],
    basic: [
      { max: 5, per: "15m", scope: "user" },
      { max: 5, per: "15m", scope: "app" },
    ],
    free: [
      { max: 1, per: "15m", scope: "user" },
      { max: 1, per: "15m", scope: "app" },
    ],
  },
  "GET /2/users/:id/bookmarks/folders/:folder_id": {
    pro: [
      { max: 50, per: "15m", scope: "user" },
      { max: 50, per: "15m", scope: "app" },
    ],
    basic: [
      { max: 5, per: "15m", scope: "user" },
      { max: 5, per: "15m", scope: "app" },
    ],
    free: [
      { max: 1, per: "15m", scope: "user" },
      { max: 1, per: "15m", scope: "app" },
    ],
  },
  "POST /2/users/:id/bookmarks": {
    pro: [{ max: 50, per: "15m", scope: "user" }],
    basic: [{ max: 5, per: "15m", scope: "user" }],
    free: [{ max: 1, per: "15m", scope: "user" }],
  },
  "GET /2/compliance/jobs": {
    pro: [{ max: 150, per: "15m", scope: "app" }],
    basic: [{ max: 5, per: "15m", scope: "app" }],
    free: [{ max: 1, per: "15m", scope: "app" }],
  },
  "GET /2/compliance/jobs/:job_id": {
    pro: [{ max: 150, per: "15m", scope: "app" }],
    basic: [{ max: 5, per: "15m", scope: "app" }],
    free: [{ max: 1, per: "15m", scope: "app" }],
  },
  "POST /2/compliance/jobs": {
    pro: [{ max: 150, per: "15m", scope: "app" }],
    basic: [{ max: 15, per: "15m", scope: "app" }],
    free: [{ max: 1, per: "15m", scope: "app" }],
  },
  "GET /2/usage/posts": {
    pro: [{ max: 50, per: "15m", scope: "app" }],
    basic: [{ max: 50, per: "15m", scope: "app" }],
    free: [{ max: 1, per: "15m", scope: "app" }],
  },
  "GET /2/trends/by/woeid/:id": {
    pro: [{ max: 75, per: "15m", scope: "app" }],
    basic: [{ max: 15, per: "15m", scope: "app" }],
    free: "unavailable",
  },
  "GET /2/users/personalized_trends": {
    pro: [
      { max: 10, per: "15m", scope: "user" },
      { max: 200, per: "15m", scope: "app" },
    ],
    basic: [
      { max: 1, per: "15m", scope: "user" },
      { max: 20, per: "15m", scope: "app" },
    ],
    free: [
      { max: 1, per: "15m", scope: "user" },
      { max: 1, per: "24h", scope: "app" },
    ],
  },
  "GET /2/communities/:id": {
    pro: [
      { max: 300, per: "15m", scope: "user" },
      { max: 300, per: "15m", scope: "app" },
    ],
    basic: [
      { max: 1, per: "15m", scope: "user" },
      { max: 25, per: "15m", scope: "app" },
    ],
    free: [
      { max: 1, per: "15m", scope: "user" },
      { max: 1, per: "15m", scope: "app" },
    ],
  },
  "GET /2/communities/search": {
    pro: [
      { max: 300, per: "15m", scope: "user" },
      { max: 300, per: "15m", scope: "app" },
    ],
    basic: [
      { max: 1, per: "15m", scope: "user" },
      { max: 25, per: "15m", scope: "app" },
    ],
    free: [
      { max: 1, per: "15m", scope: "user" },
      { max: 1, per: "15m", scope: "app" },
    ],
  },
} as const satisfies Record<string, Record<Plan, LimitCell>>;
