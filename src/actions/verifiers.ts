/**
 * The verifiers that ask the service, through the API client, whether an action left
 * unfinished by a crash (or lost on the way) had arrived. (The action layer's executor is
 * the client's own {@link ApiClient.send}: an action needs no adapter to be sent.)
 *
 * Each kind's lookup is made once for the process and is given the bot (its client and user
 * id) when it runs: a process runs thousands of bots, a check is rare (after a crash, or a
 * failure that may have reached the service), and six verifier objects and their closures
 * made for every bot it runs were about a kilobyte of each bot's live memory.
 *
 * @example
 * ```ts
 * const layer = actions.bot({ bot, account, executor: client.send.bind(client), verifiers: clientVerifiers(client, account.userId) });
 * ```
 */
import type { ApiClient } from "../api/client.ts";
import type { EndpointKey } from "../api/endpoints.ts";
import type { Envelope, Post } from "../api/types.ts";
import type { Action, ActionKind, Executed, HeaderBag, Verification, Verifier } from "./action.ts";

/** How far before an action was asked for its trace is looked for (clock skew between us and the service). */
const SLACK_MS = 60_000;

/** Throws when the answer might be on a later page: the check cannot tell. */
function assertOnePage(page: Envelope<unknown[]>, what: string): void {
  if (page.meta?.next_token)
    throw new Error(`more ${what} than one page since the action was asked for; cannot tell whether it arrived`);
}

const textOf = (action: Action) => ((action.body as { text?: string } | undefined)?.text ?? "").trim();

const found = (result: unknown, headers: HeaderBag): Executed<Verification> => ({
  result: { done: true, result },
  headers,
});
const notFound = (headers: HeaderBag): Executed<Verification> => ({ result: { done: false }, headers });

/** The bot a check is made for: its client, and its account's user id. */
interface Checker {
  readonly client: ApiClient;
  readonly userId: string;
}

/** One kind's lookup, made once for the process: {@link Verifier} with the bot as an argument. */
interface KindVerifier {
  endpoint: EndpointKey;
  endpointFor?(action: Action): EndpointKey;
  check(bot: Checker, action: Action, signal: AbortSignal): Promise<Executed<Verification>>;
}

/** Looks for the action among the bot's own posts since it was asked for (newest first). */
function byOwnPosts(match: (action: Action, post: Post) => boolean): KindVerifier {
  return {
    endpoint: "GET /2/users/:id/posts",
    async check({ client, userId }, action, signal) {
      const { body: page, headers } = await client.exchange(
        "GET /2/users/:id/posts",
        {
          params: { id: userId },
          query: {
            max_results: 100,
            "post.fields": ["referenced_posts", "created_at"],
            start_time: new Date(action.createdAt - SLACK_MS),
          },
        },
        { signal },
      );
      const post = (page.data ?? []).find((p) => match(action, p));
      if (post) return found({ data: { id: post.id } }, headers);
      assertOnePage(page, "posts");
      return notFound(headers);
    },
  };
}

/**
 * Looks for the action's target among the newest of one of the bot's lists (likes, follows).
 * Not there, it counts as not arrived even when the list goes on past this page: both kinds
 * are repeatable (liking a liked post, following a followed account changes nothing), so it
 * is sent again. Telling "cannot tell" instead held such an action back through the retry
 * step's back-off, for minutes, behind a bot that had liked more than a page since (a kill -9
 * campaign: 3 of 200 likes still unsent a minute after the restart).
 */
function amongNewest(
  endpoint: "GET /2/users/:id/liked_posts" | "GET /2/users/:id/following",
  result: Record<string, unknown>,
): KindVerifier {
  return {
    endpoint,
    async check({ client, userId }, action, signal) {
      const { body: page, headers } = await client.exchange(
        endpoint,
        { params: { id: userId }, query: { max_results: 100 } },
        { signal },
      );
      if ((page.data ?? []).some((x: { id: string }) => x.id === action.target))
        return found({ data: result }, headers);
      return notFound(headers);
    },
  };
}

/** The messages of the conversation a DM went to (an answer's own conversation, a group's too), newest first. */
function dmConversationPage(client: ApiClient, action: Action, signal: AbortSignal) {
  const query = {
    max_results: 100,
    "dm_event.fields": ["sender_id", "text", "created_at", "dm_conversation_id"],
  } as const;
  const conversation = action.path.dm_conversation_id;
  return conversation !== undefined
    ? client.exchange(
        "GET /2/dm_conversations/:dm_conversation_id/dm_events",
        { params: { dm_conversation_id: conversation }, query },
        { signal },
      )
    : client.exchange(
        "GET /2/dm_conversations/with/:participant_id/dm_events",
        { params: { participant_id: action.path.participant_id! }, query },
        { signal },
      );
}

/** Looks for a DM among the bot's messages in its conversation since it was asked for. */
const dmVerifier: KindVerifier = {
  endpoint: "GET /2/dm_conversations/with/:participant_id/dm_events",
  // An answer to a message went into its conversation (a group's too): it is looked for there.
  endpointFor(action) {
    return action.path.dm_conversation_id !== undefined
      ? "GET /2/dm_conversations/:dm_conversation_id/dm_events"
      : "GET /2/dm_conversations/with/:participant_id/dm_events";
  },
  async check({ client, userId }, action, signal) {
    const { body: page, headers } = await dmConversationPage(client, action, signal);
    const since = action.createdAt - SLACK_MS;
    const event = (page.data ?? []).find(
      (e) =>
        e.event_type === "MessageCreate" &&
        e.sender_id === userId &&
        (e.text ?? "").trim() === textOf(action) &&
        (e.created_at === undefined || Date.parse(e.created_at) >= since),
    );
    if (event) return found({ data: { dm_event_id: event.id, dm_conversation_id: event.dm_conversation_id } }, headers);
    // Newest first: when the page reaches back past the action, later pages cannot hold it.
    const oldest = page.data?.at(-1)?.created_at;
    if (oldest === undefined || Date.parse(oldest) >= since) assertOnePage(page, "messages");
    return notFound(headers);
  },
};

/** Each kind's lookup, made once for the process (see the module comment). */
const KIND_VERIFIERS: Partial<Record<ActionKind, KindVerifier>> = {
  reply: byOwnPosts(
    (action, post) => !!post.referenced_posts?.some((r) => r.type === "replied_to" && r.id === action.target),
  ),
  post: byOwnPosts((action, post) => post.text.trim() === textOf(action)),
  repost: byOwnPosts(
    (action, post) => !!post.referenced_posts?.some((r) => r.type === "reposted" && r.id === action.target),
  ),
  like: amongNewest("GET /2/users/:id/liked_posts", { liked: true }),
  follow: amongNewest("GET /2/users/:id/following", { following: true }),
  dm: dmVerifier,
};

/** A kind's lookup for one bot, made when the check needs it (rare) and let go after. */
function forBot(bot: Checker, kind: KindVerifier): Verifier {
  return {
    endpoint: kind.endpoint,
    ...(kind.endpointFor ? { endpointFor: kind.endpointFor } : {}),
    check: (action, signal) => kind.check(bot, action, signal),
  };
}

/**
 * One bot's verifiers: two fields (its client and user id); each kind's {@link Verifier} is
 * made from the process's lookup when it is asked for, not when the bot starts.
 */
class ClientVerifiers implements Checker {
  constructor(
    readonly client: ApiClient,
    readonly userId: string,
  ) {}
  get reply(): Verifier {
    return forBot(this, KIND_VERIFIERS.reply!);
  }
  get post(): Verifier {
    return forBot(this, KIND_VERIFIERS.post!);
  }
  get repost(): Verifier {
    return forBot(this, KIND_VERIFIERS.repost!);
  }
  get like(): Verifier {
    return forBot(this, KIND_VERIFIERS.like!);
  }
  get follow(): Verifier {
    return forBot(this, KIND_VERIFIERS.follow!);
  }
  get dm(): Verifier {
    return forBot(this, KIND_VERIFIERS.dm!);
  }
}

/**
 * Verifiers for every kind the service lets postbot look up: replies, posts and reposts among
 * the bot's own posts since the action was asked for, DMs in the conversation, likes among
 * the bot's newest likes, follows among the accounts it follows newest first. A hide cannot
 * be looked up (no endpoint reports it); setting a reply hidden twice leaves it hidden.
 */
export function clientVerifiers(client: ApiClient, userId: string): Partial<Record<ActionKind, Verifier>> {
  return new ClientVerifiers(client, userId);
}
