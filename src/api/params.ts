/**
 * The query parameters of v2 requests, typed (wire-facts 1.2, 1.3): which `*.fields` and
 * `expansions` a family accepts, its paging and time parameters. Names are the wire names
 * (`"post.fields"`, `max_results`), so what a plugin author writes is what the service reads
 * and the service's documentation applies as is.
 */
import type {
  COMMUNITY_FIELDS,
  COMPLIANCE_JOB_FIELDS,
  DM_EVENT_EXPANSIONS,
  DM_EVENT_FIELDS,
  LIST_EXPANSIONS,
  LIST_FIELDS,
  MEDIA_FIELDS,
  PERSONALIZED_TREND_FIELDS,
  PLACE_FIELDS,
  POLL_FIELDS,
  PostExpansion,
  PostField,
  SEARCH_COUNT_FIELDS,
  SPACE_EXPANSIONS,
  SPACE_FIELDS,
  TOPIC_FIELDS,
  TREND_FIELDS,
  USAGE_FIELDS,
  USER_EXPANSIONS,
  UserField,
} from "./types.ts";

type Of<T extends readonly string[]> = T[number];
type List<T> = readonly T[];

export type MediaField = Of<typeof MEDIA_FIELDS>;
export type PollField = Of<typeof POLL_FIELDS>;
export type PlaceField = Of<typeof PLACE_FIELDS>;
export type ListField = Of<typeof LIST_FIELDS>;
export type SpaceField = Of<typeof SPACE_FIELDS>;
export type TopicField = Of<typeof TOPIC_FIELDS>;
export type DmEventField = Of<typeof DM_EVENT_FIELDS>;
export type CommunityField = Of<typeof COMMUNITY_FIELDS>;
export type ComplianceJobField = Of<typeof COMPLIANCE_JOB_FIELDS>;
export type TrendField = Of<typeof TREND_FIELDS>;
export type PersonalizedTrendField = Of<typeof PERSONALIZED_TREND_FIELDS>;
export type UsageField = Of<typeof USAGE_FIELDS>;
export type SearchCountField = Of<typeof SEARCH_COUNT_FIELDS>;
export type UserExpansion = Of<typeof USER_EXPANSIONS>;
export type ListExpansion = Of<typeof LIST_EXPANSIONS>;
export type SpaceExpansion = Of<typeof SPACE_EXPANSIONS>;
export type DmEventExpansion = Of<typeof DM_EVENT_EXPANSIONS>;

/** A time parameter: a Date, or an ISO-8601 string (sent at second granularity). */
export type TimeValue = Date | string;

/** Fields and expansions of endpoints that return posts. */
export interface PostFieldsQuery {
  "post.fields"?: List<PostField>;
  "user.fields"?: List<UserField>;
  "media.fields"?: List<MediaField>;
  "poll.fields"?: List<PollField>;
  "place.fields"?: List<PlaceField>;
  expansions?: List<PostExpansion>;
}

/** Fields and expansions of endpoints that return users. */
export interface UserFieldsQuery {
  "user.fields"?: List<UserField>;
  "post.fields"?: List<PostField>;
  expansions?: List<UserExpansion>;
}

/** Fields and expansions of endpoints that return lists. */
export interface ListFieldsQuery {
  "list.fields"?: List<ListField>;
  "user.fields"?: List<UserField>;
  expansions?: List<ListExpansion>;
}

/** Fields and expansions of endpoints that return spaces. */
export interface SpaceFieldsQuery {
  "space.fields"?: List<SpaceField>;
  "user.fields"?: List<UserField>;
  "topic.fields"?: List<TopicField>;
  expansions?: List<SpaceExpansion>;
}

/** Fields and expansions of endpoints that return direct-message events. */
export interface DmEventFieldsQuery {
  "dm_event.fields"?: List<DmEventField>;
  "user.fields"?: List<UserField>;
  "media.fields"?: List<MediaField>;
  "post.fields"?: List<PostField>;
  expansions?: List<DmEventExpansion>;
}

/** Paging of list endpoints: send back `meta.next_token` as `pagination_token`. */
export interface PagingQuery {
  max_results?: number;
  pagination_token?: string;
}

/** Paging of search, counts and community search: the token goes back as `next_token`. */
export interface SearchPagingQuery {
  max_results?: number;
  next_token?: string;
}

/** Time window of timelines and search: ids take precedence over times (wire-facts 1.3). */
export interface TimeWindowQuery {
  since_id?: string;
  until_id?: string;
  start_time?: TimeValue;
  end_time?: TimeValue;
}

/** `GET /2/users/:id/posts` and the home timeline can leave out reposts and replies. */
export interface ExcludeQuery {
  exclude?: List<"reposts" | "replies">;
}

/** User post timeline, mentions and home timeline. */
export type TimelineQuery = PostFieldsQuery & PagingQuery & TimeWindowQuery;

/** Recent and full-archive search. */
export interface SearchQuery extends PostFieldsQuery, SearchPagingQuery, TimeWindowQuery {
  /** The search query (1–4096 characters). */
  query: string;
  sort_order?: "recency" | "relevancy";
}

/** Counts of posts matching a query over time. */
export interface CountsQuery extends TimeWindowQuery {
  query: string;
  granularity?: "minute" | "hour" | "day";
  next_token?: string;
  "search_count.fields"?: List<SearchCountField>;
}

/** Streams: fields and expansions of the delivered posts, and the backfill of missed minutes (1–5). */
export interface StreamQuery extends PostFieldsQuery {
  backfill_minutes?: number;
}
