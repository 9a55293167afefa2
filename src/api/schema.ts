/**
 * The request and response types of every v2 endpoint, by endpoint key. `client.request(key,
 * ...)` is typed from this map, so a plugin author can call any endpoint of the spec with
 * checked parameters, and the grouped methods (`client.posts.create`...) are thin, typed
 * shortcuts over it. Shapes are wire-facts part 2 with the post/repost naming.
 */
import type { EndpointKey } from "./endpoints.ts";
import type {
  CommunityField,
  ComplianceJobField,
  CountsQuery,
  DmEventFieldsQuery,
  ExcludeQuery,
  ListFieldsQuery,
  PagingQuery,
  PersonalizedTrendField,
  PostFieldsQuery,
  SearchPagingQuery,
  SearchQuery,
  SpaceFieldsQuery,
  StreamQuery,
  TimelineQuery,
  TrendField,
  UsageField,
  UserFieldsQuery,
} from "./params.ts";
import type {
  Community,
  ComplianceJob,
  DmEvent,
  Envelope,
  List,
  PersonalizedTrend,
  Post,
  SearchCount,
  Space,
  StreamMessage,
  StreamRule,
  Trend,
  Usage,
  User,
} from "./types.ts";

// ---------------------------------------------------------------------------------------
// Request bodies (wire-facts 2.2, 2.4, 2.7, 2.10–2.16)

/** `POST /2/posts` (wire-facts 2.2). `media`, `poll` and `quote_post_id` exclude one another. */
export interface CreatePostBody {
  text?: string;
  reply?: { in_reply_to_post_id: string; exclude_reply_user_ids?: string[]; auto_populate_reply_metadata?: boolean };
  quote_post_id?: string;
  media?: { media_ids: string[]; tagged_user_ids?: string[] };
  poll?: { options: string[]; duration_minutes: number; reply_settings?: string };
  reply_settings?: "following" | "mentionedUsers" | "subscribers" | "verified";
  for_super_followers_only?: boolean;
  geo?: { place_id?: string };
  direct_message_deep_link?: string;
  card_uri?: string;
  nullcast?: boolean;
  community_id?: string;
  share_with_followers?: boolean;
  edit_options?: { previous_post_id: string };
}

/** `POST /2/posts/search/stream/rules`: add rules, or delete them by id or value. */
export type StreamRulesBody =
  | { add: Array<{ value: string; tag?: string }> }
  | { delete: { ids?: string[]; values?: string[] } }
  | Record<string, never>;

/** A direct message's content: text, media, or both. */
export interface DmMessage {
  text?: string;
  attachments?: Array<{ media_id: string }>;
}

/** `POST /2/dm_conversations`: a group conversation and its first message. */
export interface CreateDmConversationBody {
  conversation_type: "Group";
  participant_ids: string[];
  message: DmMessage;
}

/** `POST /2/lists` and `PUT /2/lists/:id`. */
export interface ListBody {
  name?: string;
  description?: string;
  private?: boolean;
}

/** `POST /2/compliance/jobs`. */
export interface CreateComplianceJobBody {
  type: "posts" | "users";
  name?: string;
  resumable?: boolean;
}

// ---------------------------------------------------------------------------------------
// Results of the writes

export type Created = { id: string; text: string; edit_history_post_ids?: string[] };
export type Deleted = { deleted: boolean };
export type Hidden = { hidden: boolean };
export type Liked = { liked: boolean };
export type Reposted = { reposted: boolean; id?: string };
export type Bookmarked = { bookmarked: boolean };
export type Following = { following: boolean; pending_follow?: boolean };
export type Muting = { muting: boolean };
export type Updated = { updated: boolean };
export type IsMember = { is_member: boolean };
export type Pinned = { pinned: boolean };
export type DmSent = { dm_conversation_id: string; dm_event_id: string };
/** A bookmark folder of a user. */
export type BookmarkFolder = { id: string; name: string };

// ---------------------------------------------------------------------------------------
// The map

type Ids = { ids: readonly string[] };
type E<Q, B, R> = { query: Q; body: B; response: R };
type Get<Q, R> = E<Q, undefined, R>;

/** Request query, body and response of each endpoint key. */
export interface EndpointTypes {
  // Posts
  "GET /2/posts": Get<PostFieldsQuery & Ids, Envelope<Post[]>>;
  "GET /2/posts/:id": Get<PostFieldsQuery, Envelope<Post>>;
  "POST /2/posts": E<undefined, CreatePostBody, Envelope<Created>>;
  "DELETE /2/posts/:id": Get<undefined, Envelope<Deleted>>;
  "PUT /2/posts/:id/hidden": E<undefined, { hidden: boolean }, Envelope<Hidden>>;
  "GET /2/posts/:id/liking_users": Get<UserFieldsQuery & PagingQuery, Envelope<User[]>>;
  "GET /2/posts/:id/quote_posts": Get<PostFieldsQuery & PagingQuery & ExcludeQuery, Envelope<Post[]>>;
  "GET /2/posts/:id/reposted_by": Get<UserFieldsQuery & PagingQuery, Envelope<User[]>>;
  "GET /2/posts/:id/bookmarks": Get<PostFieldsQuery & PagingQuery, Envelope<Post[]>>;
  "GET /2/posts/counts/recent": Get<CountsQuery, Envelope<SearchCount[]>>;
  "GET /2/posts/counts/all": Get<CountsQuery, Envelope<SearchCount[]>>;
  "GET /2/users/:id/posts": Get<TimelineQuery & ExcludeQuery, Envelope<Post[]>>;
  "GET /2/users/:id/mentions": Get<TimelineQuery, Envelope<Post[]>>;
  "GET /2/users/:id/timelines/reverse_chronological": Get<TimelineQuery & ExcludeQuery, Envelope<Post[]>>;
  "GET /2/users/reposts_of_me": Get<PostFieldsQuery & PagingQuery, Envelope<Post[]>>;
  "GET /2/usage/posts": Get<{ days?: number; "usage.fields"?: readonly UsageField[] }, Envelope<Usage>>;
  // Search and streams
  "GET /2/posts/search/recent": Get<SearchQuery, Envelope<Post[]>>;
  "GET /2/posts/search/all": Get<SearchQuery, Envelope<Post[]>>;
  "POST /2/posts/search/stream/rules": E<
    { dry_run?: boolean; delete_all?: boolean },
    StreamRulesBody,
    Envelope<StreamRule[]>
  >;
  "GET /2/posts/search/stream/rules": Get<
    { ids?: readonly string[]; max_results?: number; pagination_token?: string },
    Envelope<StreamRule[]>
  >;
  "GET /2/posts/search/stream": Get<StreamQuery, StreamMessage>;
  "GET /2/posts/sample/stream": Get<StreamQuery, StreamMessage>;
  // Reposts, likes, bookmarks
  "POST /2/users/:id/reposts": E<undefined, { post_id: string }, Envelope<Reposted>>;
  "DELETE /2/users/:id/reposts/:source_post_id": Get<undefined, Envelope<Reposted>>;
  "POST /2/users/:id/likes": E<undefined, { post_id: string }, Envelope<Liked>>;
  "DELETE /2/users/:id/likes/:post_id": Get<undefined, Envelope<Liked>>;
  "GET /2/users/:id/liked_posts": Get<PostFieldsQuery & PagingQuery, Envelope<Post[]>>;
  "POST /2/users/:id/bookmarks": E<undefined, { post_id: string }, Envelope<Bookmarked>>;
  "POST /2/posts/:id/bookmarks": E<undefined, { post_id: string }, Envelope<Bookmarked>>;
  "DELETE /2/users/:id/bookmarks/:post_id": Get<undefined, Envelope<Bookmarked>>;
  "GET /2/users/:id/bookmarks": Get<PostFieldsQuery & PagingQuery, Envelope<Post[]>>;
  "GET /2/users/:id/bookmarks/folders": Get<PagingQuery, Envelope<BookmarkFolder[]>>;
  "GET /2/users/:id/bookmarks/folders/:folder_id": Get<PagingQuery, Envelope<Array<{ id: string }>>>;
  // Users
  "GET /2/users": Get<UserFieldsQuery & Ids, Envelope<User[]>>;
  "GET /2/users/:id": Get<UserFieldsQuery, Envelope<User>>;
  "GET /2/users/by": Get<UserFieldsQuery & { usernames: readonly string[] }, Envelope<User[]>>;
  "GET /2/users/by/username/:username": Get<UserFieldsQuery, Envelope<User>>;
  "GET /2/users/me": Get<UserFieldsQuery, Envelope<User>>;
  "GET /2/users/search": Get<UserFieldsQuery & { query: string } & SearchPagingQuery, Envelope<User[]>>;
  "POST /2/users/:id/following": E<undefined, { target_user_id: string }, Envelope<Following>>;
  "DELETE /2/users/:source_user_id/following/:target_user_id": Get<undefined, Envelope<Following>>;
  "GET /2/users/:id/following": Get<UserFieldsQuery & PagingQuery, Envelope<User[]>>;
  "GET /2/users/:id/followers": Get<UserFieldsQuery & PagingQuery, Envelope<User[]>>;
  "GET /2/users/:id/blocking": Get<UserFieldsQuery & PagingQuery, Envelope<User[]>>;
  "POST /2/users/:id/muting": E<undefined, { target_user_id: string }, Envelope<Muting>>;
  "DELETE /2/users/:source_user_id/muting/:target_user_id": Get<undefined, Envelope<Muting>>;
  "GET /2/users/:id/muting": Get<UserFieldsQuery & PagingQuery, Envelope<User[]>>;
  "GET /2/users/personalized_trends": Get<
    { "personalized_trend.fields"?: readonly PersonalizedTrendField[] },
    Envelope<PersonalizedTrend[]>
  >;
  // Spaces
  "GET /2/spaces/:id": Get<SpaceFieldsQuery, Envelope<Space>>;
  "GET /2/spaces": Get<SpaceFieldsQuery & Ids, Envelope<Space[]>>;
  "GET /2/spaces/by/creator_ids": Get<SpaceFieldsQuery & { user_ids: readonly string[] }, Envelope<Space[]>>;
  "GET /2/spaces/:id/buyers": Get<UserFieldsQuery & PagingQuery, Envelope<User[]>>;
  "GET /2/spaces/:id/posts": Get<PostFieldsQuery & { max_results?: number }, Envelope<Post[]>>;
  "GET /2/spaces/search": Get<
    SpaceFieldsQuery & { query: string; state?: "live" | "scheduled" | "all"; max_results?: number },
    Envelope<Space[]>
  >;
  // Lists
  "POST /2/lists": E<undefined, ListBody & { name: string }, Envelope<{ id: string; name: string }>>;
  "GET /2/lists/:id": Get<ListFieldsQuery, Envelope<List>>;
  "PUT /2/lists/:id": E<undefined, ListBody, Envelope<Updated>>;
  "DELETE /2/lists/:id": Get<undefined, Envelope<Deleted>>;
  "GET /2/users/:id/owned_lists": Get<ListFieldsQuery & PagingQuery, Envelope<List[]>>;
  "GET /2/lists/:id/posts": Get<PostFieldsQuery & PagingQuery, Envelope<Post[]>>;
  "GET /2/lists/:id/members": Get<UserFieldsQuery & PagingQuery, Envelope<User[]>>;
  "POST /2/lists/:id/members": E<undefined, { user_id: string }, Envelope<IsMember>>;
  "DELETE /2/lists/:id/members/:user_id": Get<undefined, Envelope<IsMember>>;
  "GET /2/users/:id/list_memberships": Get<ListFieldsQuery & PagingQuery, Envelope<List[]>>;
  "GET /2/lists/:id/followers": Get<UserFieldsQuery & PagingQuery, Envelope<User[]>>;
  "GET /2/users/:id/followed_lists": Get<ListFieldsQuery & PagingQuery, Envelope<List[]>>;
  "POST /2/users/:id/followed_lists": E<undefined, { list_id: string }, Envelope<Following>>;
  "DELETE /2/users/:id/followed_lists/:list_id": Get<undefined, Envelope<Following>>;
  "GET /2/users/:id/pinned_lists": Get<ListFieldsQuery, Envelope<List[]>>;
  "POST /2/users/:id/pinned_lists": E<undefined, { list_id: string }, Envelope<Pinned>>;
  "DELETE /2/users/:id/pinned_lists/:list_id": Get<undefined, Envelope<Pinned>>;
  // Direct messages
  "DELETE /2/dm_events/:id": Get<undefined, Envelope<Deleted>>;
  "GET /2/dm_events": Get<
    DmEventFieldsQuery & PagingQuery & { event_types?: readonly DmEvent["event_type"][] },
    Envelope<DmEvent[]>
  >;
  "GET /2/dm_events/:id": Get<DmEventFieldsQuery, Envelope<DmEvent>>;
  "GET /2/dm_conversations/:dm_conversation_id/dm_events": Get<
    DmEventFieldsQuery & PagingQuery & { event_types?: readonly DmEvent["event_type"][] },
    Envelope<DmEvent[]>
  >;
  "GET /2/dm_conversations/with/:participant_id/dm_events": Get<
    DmEventFieldsQuery & PagingQuery & { event_types?: readonly DmEvent["event_type"][] },
    Envelope<DmEvent[]>
  >;
  "POST /2/dm_conversations": E<undefined, CreateDmConversationBody, Envelope<DmSent>>;
  "POST /2/dm_conversations/:dm_conversation_id/messages": E<undefined, DmMessage, Envelope<DmSent>>;
  "POST /2/dm_conversations/with/:participant_id/messages": E<undefined, DmMessage, Envelope<DmSent>>;
  // Compliance, trends, communities
  "POST /2/compliance/jobs": E<undefined, CreateComplianceJobBody, Envelope<ComplianceJob>>;
  "GET /2/compliance/jobs/:job_id": Get<
    { "compliance_job.fields"?: readonly ComplianceJobField[] },
    Envelope<ComplianceJob>
  >;
  "GET /2/compliance/jobs": Get<
    {
      type: "posts" | "users";
      status?: ComplianceJob["status"];
      "compliance_job.fields"?: readonly ComplianceJobField[];
    },
    Envelope<ComplianceJob[]>
  >;
  "GET /2/trends/by/woeid/:id": Get<{ max_trends?: number; "trend.fields"?: readonly TrendField[] }, Envelope<Trend[]>>;
  "GET /2/communities/:id": Get<{ "community.fields"?: readonly CommunityField[] }, Envelope<Community>>;
  "GET /2/communities/search": Get<
    { query: string; "community.fields"?: readonly CommunityField[] } & SearchPagingQuery,
    Envelope<Community[]>
  >;
}

/** Fails to compile when an endpoint of endpoints.ts has no entry here (or an entry names no endpoint). */
type Missing = Exclude<EndpointKey, keyof EndpointTypes> | Exclude<keyof EndpointTypes, EndpointKey>;
const everyEndpointTyped: [Missing] extends [never] ? true : Missing = true;
void everyEndpointTyped;

// ---------------------------------------------------------------------------------------
// Deriving a call's arguments from a key

type PathOf<K extends string> = K extends `${string} ${infer P}` ? P : never;
type ParamNames<P extends string> = P extends `${string}:${infer Name}/${infer Rest}`
  ? Name | ParamNames<`/${Rest}`>
  : P extends `${string}:${infer Name}`
    ? Name
    : never;

/** The path parameters of an endpoint, by the template's names: `{ id: string; post_id: string }`. */
export type PathParams<K extends EndpointKey> = { [N in ParamNames<PathOf<K>>]: string };

type RequiredKeys<T> = { [P in keyof T]-?: undefined extends T[P] ? never : P }[keyof T];

type ParamsPart<K extends EndpointKey> = [ParamNames<PathOf<K>>] extends [never]
  ? { params?: undefined }
  : { params: PathParams<K> };
type QueryPart<Q> = [Q] extends [undefined]
  ? { query?: undefined }
  : [RequiredKeys<Q>] extends [never]
    ? { query?: Q }
    : { query: Q };
type BodyPart<B> = [B] extends [undefined] ? { body?: undefined } : { body: B };

/** What `client.request(key, args)` takes for an endpoint: its path parameters, query and body. */
export type RequestArgs<K extends EndpointKey> = ParamsPart<K> &
  QueryPart<EndpointTypes[K]["query"]> &
  BodyPart<EndpointTypes[K]["body"]>;

/** What an endpoint answers. */
export type ResponseOf<K extends EndpointKey> = EndpointTypes[K]["response"];

/** The element type of an endpoint's `data` list (for paging). */
export type ItemOf<K extends EndpointKey> = ResponseOf<K> extends Envelope<Array<infer T>> ? T : never;

/** Endpoints whose answer is a page of a list (`data` is an array): what `paginate` accepts. */
export type ListEndpointKey = {
  [K in EndpointKey]: ResponseOf<K> extends Envelope<unknown[]> ? K : never;
}[EndpointKey];

/** Whether an endpoint's arguments may be left out entirely. */
export type ArgsOptional<K extends EndpointKey> = {} extends RequestArgs<K> ? true : false;

/** The search and counts families send their page token back as `next_token`; all others as `pagination_token` (wire-facts 1.3). */
export const NEXT_TOKEN_ENDPOINTS: ReadonlySet<EndpointKey> = new Set<EndpointKey>([
  "GET /2/posts/search/recent",
  "GET /2/posts/search/all",
  "GET /2/posts/counts/recent",
  "GET /2/posts/counts/all",
  "GET /2/communities/search",
  "GET /2/users/search",
]);
