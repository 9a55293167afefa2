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
  dm_conversations: Record<string, { id: string; type: "OneToOne" | "Group"; participant_ids: string[]; created_at: number }>;
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
  /** Further tables (lists, spaces, communities, compliance jobs, ...) are added by their modules. */
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
});
