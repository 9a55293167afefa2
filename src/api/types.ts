/**
 * The service's wire shapes, as the real service family sends them (wire-facts parts 1–3),
 * with the spec's naming applied: `tweet` is `post` and `retweet` is `repost` everywhere.
 *
 * The sandbox produces these shapes and the client returns them, so both import them from
 * here. Field lists are `as const` arrays because the sandbox validates `*.fields` and
 * `expansions` parameters against them.
 */

// ---------------------------------------------------------------------------------------
// Fields and expansions (wire-facts 1.2)

export const POST_FIELDS = [
  "article",
  "attachments",
  "author_id",
  "card_uri",
  "community_id",
  "context_annotations",
  "conversation_id",
  "created_at",
  "display_text_range",
  "edit_controls",
  "edit_history_post_ids",
  "entities",
  "geo",
  "id",
  "in_reply_to_user_id",
  "lang",
  "media_metadata",
  "non_public_metrics",
  "note_post",
  "organic_metrics",
  "possibly_sensitive",
  "promoted_metrics",
  "public_metrics",
  "referenced_posts",
  "reply_settings",
  "scopes",
  "source",
  "suggested_source_links",
  "suggested_source_links_with_counts",
  "text",
  "withheld",
] as const;
export type PostField = (typeof POST_FIELDS)[number];

export const USER_FIELDS = [
  "affiliation",
  "confirmed_email",
  "connection_status",
  "created_at",
  "description",
  "entities",
  "id",
  "is_identity_verified",
  "location",
  "most_recent_post_id",
  "name",
  "parody",
  "pinned_post_id",
  "profile_banner_url",
  "profile_image_url",
  "protected",
  "public_metrics",
  "receives_your_dm",
  "subscription",
  "subscription_type",
  "url",
  "username",
  "verified",
  "verified_followers_count",
  "verified_type",
  "withheld",
] as const;
export type UserField = (typeof USER_FIELDS)[number];

export const MEDIA_FIELDS = [
  "alt_text",
  "duration_ms",
  "height",
  "media_key",
  "non_public_metrics",
  "organic_metrics",
  "preview_image_url",
  "promoted_metrics",
  "public_metrics",
  "type",
  "url",
  "variants",
  "width",
] as const;
export const POLL_FIELDS = ["duration_minutes", "end_datetime", "id", "options", "voting_status"] as const;
export const PLACE_FIELDS = [
  "contained_within",
  "country",
  "country_code",
  "full_name",
  "geo",
  "id",
  "name",
  "place_type",
] as const;
export const LIST_FIELDS = [
  "created_at",
  "description",
  "follower_count",
  "id",
  "member_count",
  "name",
  "owner_id",
  "private",
] as const;
export const SPACE_FIELDS = [
  "created_at",
  "creator_id",
  "ended_at",
  "host_ids",
  "id",
  "invited_user_ids",
  "is_ticketed",
  "lang",
  "participant_count",
  "scheduled_start",
  "speaker_ids",
  "started_at",
  "state",
  "subscriber_count",
  "title",
  "topic_ids",
  "updated_at",
] as const;
export const TOPIC_FIELDS = ["description", "id", "name"] as const;
export const DM_EVENT_FIELDS = [
  "attachments",
  "created_at",
  "dm_conversation_id",
  "entities",
  "event_type",
  "id",
  "participant_ids",
  "referenced_posts",
  "sender_id",
  "text",
] as const;
export const COMMUNITY_FIELDS = [
  "access",
  "created_at",
  "description",
  "id",
  "join_policy",
  "member_count",
  "name",
] as const;
export const COMPLIANCE_JOB_FIELDS = [
  "created_at",
  "download_expires_at",
  "download_url",
  "id",
  "name",
  "resumable",
  "status",
  "type",
  "upload_expires_at",
  "upload_url",
] as const;
export const TREND_FIELDS = ["trend_name", "post_count"] as const;
export const PERSONALIZED_TREND_FIELDS = ["category", "post_count", "trend_name", "trending_since"] as const;
export const USAGE_FIELDS = [
  "cap_reset_day",
  "daily_client_app_usage",
  "daily_project_usage",
  "project_cap",
  "project_id",
  "project_usage",
] as const;
export const SEARCH_COUNT_FIELDS = ["end", "start", "post_count"] as const;

/** Fields returned when a request names none (wire-facts 1.2). */
export const DEFAULT_FIELDS = {
  post: ["id", "text", "edit_history_post_ids"],
  user: ["id", "name", "username"],
  list: ["id", "name"],
  space: ["id", "state"],
  dm_event: ["id", "event_type", "text"],
  media: ["media_key", "type"],
} as const;

export const POST_EXPANSIONS = [
  "attachments.media_keys",
  "attachments.media_source_post",
  "attachments.poll_ids",
  "author_id",
  "edit_history_post_ids",
  "entities.mentions.username",
  "entities.note.mentions.username",
  "geo.place_id",
  "in_reply_to_user_id",
  "referenced_posts.id",
  "referenced_posts.id.attachments.media_keys",
  "referenced_posts.id.author_id",
] as const;
export type PostExpansion = (typeof POST_EXPANSIONS)[number];
export const USER_EXPANSIONS = ["pinned_post_id", "most_recent_post_id", "affiliation.user_id"] as const;
export const LIST_EXPANSIONS = ["owner_id"] as const;
export const SPACE_EXPANSIONS = ["creator_id", "host_ids", "invited_user_ids", "speaker_ids", "topic_ids"] as const;
export const DM_EVENT_EXPANSIONS = [
  "attachments.media_keys",
  "participant_ids",
  "referenced_posts.id",
  "sender_id",
] as const;

// ---------------------------------------------------------------------------------------
// Objects (wire-facts 1.2, 2.x). Ids are decimal strings; times are ISO-8601 with ms.

export interface Post {
  id: string;
  text: string;
  edit_history_post_ids: string[];
  created_at?: string;
  author_id?: string;
  conversation_id?: string;
  in_reply_to_user_id?: string;
  referenced_posts?: Array<{ type: "reposted" | "quoted" | "replied_to"; id: string }>;
  attachments?: { media_keys?: string[]; poll_ids?: string[]; media_source_post_id?: string[] };
  geo?: { place_id?: string; coordinates?: { type: "Point"; coordinates: [number, number] } };
  context_annotations?: unknown[];
  entities?: PostEntities;
  public_metrics?: {
    repost_count: number;
    reply_count: number;
    like_count: number;
    quote_count: number;
    bookmark_count: number;
    impression_count: number;
  };
  possibly_sensitive?: boolean;
  lang?: string;
  source?: string;
  reply_settings?: "everyone" | "mentionedUsers" | "following" | "subscribers" | "verified" | "other";
  withheld?: { copyright: boolean; country_codes: string[]; scope?: "post" | "user" };
  edit_controls?: { editable_until: string; edits_remaining: number; is_edit_eligible: boolean };
  note_post?: { text: string; entities?: PostEntities };
  community_id?: string;
}

/** Entity indices are zero-based; `start` inclusive, `end` exclusive. */
export interface PostEntities {
  urls?: Array<{ start: number; end: number; url: string; expanded_url?: string; display_url?: string }>;
  hashtags?: Array<{ start: number; end: number; tag: string }>;
  cashtags?: Array<{ start: number; end: number; tag: string }>;
  mentions?: Array<{ start: number; end: number; username: string; id?: string }>;
  annotations?: Array<{ start: number; end: number; probability: number; type: string; normalized_text: string }>;
}

export interface User {
  id: string;
  name: string;
  username: string;
  created_at?: string;
  description?: string;
  location?: string;
  url?: string;
  protected?: boolean;
  verified?: boolean;
  verified_type?: "blue" | "business" | "government" | "none";
  profile_image_url?: string;
  profile_banner_url?: string;
  pinned_post_id?: string;
  most_recent_post_id?: string;
  public_metrics?: {
    followers_count: number;
    following_count: number;
    post_count: number;
    listed_count: number;
    like_count?: number;
  };
  entities?: { url?: { urls: PostEntities["urls"] }; description?: PostEntities };
  withheld?: { country_codes: string[] };
  connection_status?: Array<
    "follow_request_received" | "follow_request_sent" | "blocking" | "followed_by" | "following" | "muting"
  >;
}

export interface Media {
  media_key: string;
  type: "photo" | "video" | "animated_gif";
  url?: string;
  preview_image_url?: string;
  width?: number;
  height?: number;
  duration_ms?: number;
  alt_text?: string;
}

export interface Poll {
  id: string;
  options: Array<{ position: number; label: string; votes: number }>;
  duration_minutes?: number;
  end_datetime?: string;
  voting_status?: "open" | "closed";
}

export interface Place {
  id: string;
  full_name: string;
  name?: string;
  country?: string;
  country_code?: string;
  place_type?: "poi" | "neighborhood" | "city" | "admin" | "country" | "unknown";
}

export interface List {
  id: string;
  name: string;
  created_at?: string;
  description?: string;
  follower_count?: number;
  member_count?: number;
  owner_id?: string;
  private?: boolean;
}

export type SpaceState = "live" | "scheduled" | "ended";

export interface Space {
  id: string;
  state: SpaceState;
  created_at?: string;
  creator_id?: string;
  host_ids?: string[];
  speaker_ids?: string[];
  invited_user_ids?: string[];
  participant_count?: number;
  subscriber_count?: number;
  is_ticketed?: boolean;
  lang?: string;
  title?: string;
  scheduled_start?: string;
  started_at?: string;
  ended_at?: string;
  updated_at?: string;
  topic_ids?: string[];
}

export interface Topic {
  id: string;
  name: string;
  description?: string;
}

export type DmEventType = "MessageCreate" | "ParticipantsJoin" | "ParticipantsLeave";

export interface DmEvent {
  id: string;
  event_type: DmEventType;
  text?: string;
  sender_id?: string;
  dm_conversation_id?: string;
  created_at?: string;
  participant_ids?: string[];
  attachments?: { media_keys?: string[]; card_ids?: string[] };
  referenced_posts?: Array<{ id: string }>;
  entities?: PostEntities;
}

export interface Community {
  id: string;
  name: string;
  created_at?: string;
  description?: string;
  access?: "Public" | "Closed";
  join_policy?:
    | "Open"
    | "RestrictedJoinRequestsDisabled"
    | "RestrictedJoinRequestsRequireAdminApproval"
    | "RestrictedJoinRequestsRequireModeratorApproval"
    | "SuperFollowRequired";
  member_count?: number;
}

export type ComplianceJobStatus = "created" | "in_progress" | "failed" | "complete" | "expired";

export interface ComplianceJob {
  id: string;
  type: "posts" | "users";
  name?: string;
  resumable?: boolean;
  status: ComplianceJobStatus;
  created_at: string;
  upload_url: string;
  upload_expires_at: string;
  download_url: string;
  download_expires_at: string;
  error?: string;
}

/** One line of a compliance job's result (`GET <download_url>`, NDJSON). */
export interface ComplianceResult {
  id: string;
  action: "delete";
  created_at: string;
  redacted_at?: string;
  reason: "deleted" | "suspended" | "protected" | "scrub_geo" | "deactivated";
}

export interface Trend {
  trend_name: string;
  post_count?: number;
}

export interface PersonalizedTrend {
  trend_name: string;
  post_count?: number | string;
  category?: string;
  trending_since?: string;
}

export interface Usage {
  project_id?: string;
  project_cap?: number | string;
  project_usage?: number | string;
  cap_reset_day?: number;
  daily_project_usage?: { project_id: string; usage: Array<{ date: string; usage: number | string }> };
  daily_client_app_usage?: Array<{
    client_app_id: string;
    usage: Array<{ date: string; usage: number | string }>;
    usage_result_count: number;
  }>;
}

export interface SearchCount {
  start: string;
  end: string;
  post_count: number;
}

export interface StreamRule {
  id: string;
  value: string;
  tag?: string;
}

// ---------------------------------------------------------------------------------------
// Envelope (wire-facts 1.1, 1.3)

export interface Includes {
  posts?: Post[];
  users?: User[];
  media?: Media[];
  polls?: Poll[];
  places?: Place[];
  topics?: Topic[];
}

/** Paging metadata of list endpoints; which keys appear depends on the family. */
export interface Meta {
  result_count?: number;
  newest_id?: string;
  oldest_id?: string;
  next_token?: string;
  previous_token?: string;
  total_post_count?: number;
  sent?: string;
  summary?: RulesSummary;
}

export interface RulesSummary {
  created?: number;
  not_created?: number;
  valid?: number;
  invalid?: number;
  deleted?: number;
  not_deleted?: number;
}

/** Every v2 JSON response. `errors` holds partial errors next to HTTP 200. */
export interface Envelope<T> {
  data?: T;
  includes?: Includes;
  meta?: Meta;
  errors?: Problem[];
}

/** A filtered-stream message: a post and the rules it matched (wire-facts 2.8). */
export interface StreamMessage {
  data: Post;
  includes?: Includes;
  matching_rules?: Array<{ id: string; tag?: string }>;
}

// ---------------------------------------------------------------------------------------
// Errors (wire-facts 3)

/**
 * The v2 problem base. The service sends the real service family's type URIs; clients match
 * on the last path segment (`problemKind`).
 */
export const PROBLEM_TYPE_BASE = "https://api.twitter.com/2/problems/";

export type ProblemKind =
  | "invalid-request"
  | "resource-not-found"
  | "not-authorized-for-resource"
  | "not-authorized-for-field"
  | "resource-unavailable"
  | "disallowed-resource"
  | "client-forbidden"
  | "unsupported-authentication"
  | "usage-capped"
  | "streaming-connection"
  | "operational-disconnect"
  | "client-disconnected"
  | "rule-cap"
  | "invalid-rules"
  | "duplicate-rules"
  | "noncompliant-rules"
  | "conflict";

export interface Problem {
  type: string;
  title: string;
  detail?: string;
  status?: number;
  /** Type-specific members: parameter, resource_id, resource_type, value, section, period, ... */
  [member: string]: unknown;
}

/** The last segment of a problem's type URI (`about:blank` for plain HTTP problems). */
export function problemKind(problem: Pick<Problem, "type">): ProblemKind | "about:blank" | string {
  if (problem.type === "about:blank") return "about:blank";
  const tail = problem.type.split(/[/#]/).pop() ?? problem.type;
  return tail;
}

/** The v1.1-style error body of the OAuth endpoints: `{"errors":[{"code":89,"message":"..."}]}`. */
export interface V1Errors {
  errors: Array<{ code: number; message: string; label?: string }>;
}

/** The v1.1 codes the spec and wire-facts name. */
export const V1_ERRORS = {
  couldNotAuthenticate: { code: 32, message: "Could not authenticate you.", status: 401 },
  invalidOrExpiredToken: { code: 89, message: "Invalid or expired token.", status: 401 },
  bearerTooFrequent: { code: 99, message: "Unable to verify your credentials", status: 403 },
  timestampOutOfBounds: { code: 135, message: "Timestamp out of bounds.", status: 401 },
  badAuthenticationData: { code: 215, message: "Bad Authentication data.", status: 400 },
  callbackNotApproved: { code: 415, message: "Callback URL not approved for this client application.", status: 403 },
} as const;
