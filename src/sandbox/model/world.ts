/**
 * The sandbox's social network: users, posts and the relations between them. Plain JSON,
 * so the whole sandbox state can be saved to a file and loaded again. Times are ms on the
 * sandbox clock; ids are decimal strings that grow with time (see `nextId`).
 */

export interface SandboxUser {
  id: string;
  username: string;
  name: string;
  created_at: number;
  description: string;
  location?: string;
  url?: string;
  protected: boolean;
  verified: boolean;
  profile_image_url?: string;
  pinned_post_id?: string;
  /** Suspended or deactivated accounts answer like missing ones (and show in compliance). */
  suspended?: boolean;
  deactivated?: boolean;
}

export interface SandboxPost {
  id: string;
  author_id: string;
  text: string;
  created_at: number;
  conversation_id: string;
  in_reply_to_post_id?: string;
  in_reply_to_user_id?: string;
  quote_post_id?: string;
  /** Set on the post a repost creates: the id of the post reposted. */
  repost_of_id?: string;
  lang: string;
  source: string;
  reply_settings: "everyone" | "mentionedUsers" | "following";
  /** Hidden by the author of the conversation's root (PUT /2/posts/:id/hidden). */
  hidden: boolean;
  deleted_at?: number;
  /** A poll attached at creation (`poll` in the create body); votes stay at zero. */
  poll?: SandboxPoll;
}

/** A poll of a post: its id, options and when voting closes (ms on the sandbox clock). */
export interface SandboxPoll {
  id: string;
  options: string[];
  duration_minutes: number;
  end_at: number;
}

export interface Relation {
  created_at: number;
}

/** A list (wire-facts 2.13). Private lists are seen by their owner only. */
export interface SandboxList {
  id: string;
  owner_id: string;
  name: string;
  description: string;
  private: boolean;
  created_at: number;
}

/**
 * A space, the live audio room (wire-facts 2.15). Its state is never stored: it follows from
 * `starts_at`, `ends_at` and the sandbox clock, so moving the clock moves the space from
 * scheduled to live to ended.
 */
export interface SandboxSpace {
  /** Alphanumeric, as the service's space ids (`1DXxyRYNejbKM`). */
  id: string;
  creator_id: string;
  title: string;
  created_at: number;
  /** When it goes live: later than `created_at` for a scheduled space. */
  starts_at: number;
  /** Whether it was created as a scheduled space (then it shows `scheduled_start`). */
  scheduled: boolean;
  /** When it ends; a space without one stays live. */
  ends_at?: number;
  /** Hosts besides the creator, who always hosts. */
  host_ids: string[];
  speaker_ids: string[];
  invited_user_ids: string[];
  participant_count: number;
  subscriber_count: number;
  is_ticketed: boolean;
  lang: string;
  topic_ids: string[];
  /** Who bought a ticket (ticketed spaces only). */
  buyer_ids: string[];
}

/** A community (wire-facts 2.19); created through the admin API, the service has no endpoint for it. */
export interface SandboxCommunity {
  id: string;
  name: string;
  description: string;
  access: "Public" | "Closed";
  join_policy:
    | "Open"
    | "RestrictedJoinRequestsDisabled"
    | "RestrictedJoinRequestsRequireAdminApproval"
    | "RestrictedJoinRequestsRequireModeratorApproval"
    | "SuperFollowRequired";
  member_count: number;
  created_at: number;
}

/** A bookmark folder of a user; its posts are the bookmarks whose `folder_id` names it. */
export interface SandboxBookmarkFolder {
  id: string;
  user_id: string;
  name: string;
  created_at: number;
}

/** One line of a compliance job's result (wire-facts 2.16), computed when the ids arrive. */
export interface SandboxComplianceResult {
  id: string;
  created_at: number;
  redacted_at?: number;
  reason: "deleted" | "suspended" | "protected" | "deactivated";
}

/**
 * A batch compliance job of an app. Like a space, its status follows from its times and the
 * sandbox clock (created, in progress, complete, expired); only a failed upload is stored.
 */
export interface SandboxComplianceJob {
  id: string;
  app_id: string;
  type: "posts" | "users";
  name?: string;
  resumable: boolean;
  created_at: number;
  upload_expires_at: number;
  download_expires_at: number;
  /** The secret of the job's pre-signed URLs (the `signature` query parameter). */
  signature: string;
  /** Bytes received so far by a resumable upload that is not finished. */
  partial?: string;
  /** When the whole upload arrived; the job is in progress from then on. */
  uploaded_at?: number;
  /** Why the upload was refused; the job is failed from `uploaded_at` on. */
  error?: string;
  results?: SandboxComplianceResult[];
}

export interface WorldData {
  users: Record<string, SandboxUser>;
  posts: Record<string, SandboxPost>;
  follows: Array<Relation & { source_id: string; target_id: string }>;
  /** Follows of protected accounts that wait for the target's approval (`pending_follow`). */
  follow_requests: Array<Relation & { source_id: string; target_id: string }>;
  likes: Array<Relation & { user_id: string; post_id: string }>;
  bookmarks: Array<Relation & { user_id: string; post_id: string; folder_id?: string }>;
  mutes: Array<Relation & { source_id: string; target_id: string }>;
  blocks: Array<Relation & { source_id: string; target_id: string }>;
  dm_conversations: Record<
    string,
    { id: string; type: "OneToOne" | "Group"; participant_ids: string[]; created_at: number }
  >;
  dm_events: Record<
    string,
    {
      id: string;
      event_type: "MessageCreate" | "ParticipantsJoin" | "ParticipantsLeave";
      dm_conversation_id: string;
      sender_id: string;
      text?: string;
      participant_ids?: string[];
      created_at: number;
      deleted_at?: number;
    }
  >;
  /** Filtered-stream rules, per app. */
  stream_rules: Record<string, { id: string; app_id: string; value: string; tag?: string; created_at: number }>;
  lists: Record<string, SandboxList>;
  list_members: Array<Relation & { list_id: string; user_id: string }>;
  list_followers: Array<Relation & { list_id: string; user_id: string }>;
  pinned_lists: Array<Relation & { list_id: string; user_id: string }>;
  spaces: Record<string, SandboxSpace>;
  communities: Record<string, SandboxCommunity>;
  bookmark_folders: Record<string, SandboxBookmarkFolder>;
  compliance_jobs: Record<string, SandboxComplianceJob>;
  /** Further tables may be added by their modules. */
  [table: string]: unknown;
}

export const createWorldData = (): WorldData => ({
  users: {},
  posts: {},
  follows: [],
  follow_requests: [],
  likes: [],
  bookmarks: [],
  mutes: [],
  blocks: [],
  dm_conversations: {},
  dm_events: {},
  stream_rules: {},
  lists: {},
  list_members: [],
  list_followers: [],
  pinned_lists: [],
  spaces: {},
  communities: {},
  bookmark_folders: {},
  compliance_jobs: {},
});
