/**
 * The action layer plugged into the API client: an executor that sends each action with
 * `client.request`, and verifiers that ask the service whether a reply, post or DM left
 * unfinished by a crash had arrived.
 *
 * Budget corrections come from the client's rate-limit observer, which sees every
 * response (successes and 429s); route each observation to the account's budget:
 *
 * @example
 * ```ts
 * const client = createClient({ baseUrl, auth, clock, onRateLimit: (o) => budgetOf(o.identity)?.observe(o.endpoint, o, o.status) });
 * const layer = actions.bot({ bot, account, executor: clientExecutor(client), verifiers: clientVerifiers(client, account.userId) });
 * ```
 */
import type { ApiClient } from "../api/client.ts";
import type { EndpointKey } from "../api/endpoints.ts";
import type { Envelope, Post } from "../api/types.ts";
import type { Action, ActionKind, Executor, Verifier } from "./action.ts";

/** Sends an action's endpoint with its path parameters and body; the client throws its typed errors. */
export function clientExecutor(client: ApiClient): Executor {
  // Untyped: an action names its endpoint at run time, so its arguments cannot be checked here.
  const request = client.request.bind(client) as (key: EndpointKey, args: unknown, options: { signal: AbortSignal }) => Promise<unknown>;
  return async (action, signal) => {
    const args = { params: action.path, ...(action.body !== undefined ? { body: action.body } : {}) };
    return { result: await request(action.endpoint, args, { signal }) };
  };
}

/** How far before an action was asked for its trace is looked for (clock skew between us and the service). */
const SLACK_MS = 60_000;

/** Throws when the answer might be on a later page: the check cannot tell, so nothing is resent. */
function assertOnePage(page: Envelope<unknown[]>, what: string): void {
  if (page.meta?.next_token) throw new Error(`more ${what} than one page since the action was asked for; cannot tell whether it arrived`);
}

const textOf = (action: Action) => ((action.body as { text?: string } | undefined)?.text ?? "").trim();

/**
 * Verifiers for the kinds whose repetition would show (replies, posts, DMs). Likes, reposts,
 * follows and hides are left out on purpose: sending them again is harmless, and on the
 * basic plan their lookups are scarcer than the actions themselves.
 */
export function clientVerifiers(client: ApiClient, userId: string): Partial<Record<ActionKind, Verifier>> {
  /** Looks for the action among the bot's own posts since it was asked for (newest first). */
  const byOwnPosts = (match: (action: Action, post: Post) => boolean): Verifier => ({
    endpoint: "GET /2/users/:id/posts",
    async check(action, signal) {
      const page = await client.users.posts(
        userId,
        { max_results: 100, "post.fields": ["referenced_posts", "created_at"], start_time: new Date(action.createdAt - SLACK_MS) },
        { signal },
      );
      const found = (page.data ?? []).find((post) => match(action, post));
      if (found) return { result: { done: true, result: { data: { id: found.id } } } };
      assertOnePage(page, "posts");
      return { result: { done: false } };
    },
  });

  return {
    reply: byOwnPosts((action, post) => !!post.referenced_posts?.some((r) => r.type === "replied_to" && r.id === action.target)),
    post: byOwnPosts((action, post) => post.text.trim() === textOf(action)),
    dm: {
      endpoint: "GET /2/dm_conversations/with/:participant_id/dm_events",
      async check(action, signal) {
        const page = await client.dms.eventsWith(
          action.path.participant_id!,
          { max_results: 100, "dm_event.fields": ["sender_id", "text", "created_at", "dm_conversation_id"] },
          { signal },
        );
        const since = action.createdAt - SLACK_MS;
        const found = (page.data ?? []).find(
          (e) =>
            e.event_type === "MessageCreate" &&
            e.sender_id === userId &&
            (e.text ?? "").trim() === textOf(action) &&
            (e.created_at === undefined || Date.parse(e.created_at) >= since),
        );
        if (found) return { result: { done: true, result: { data: { dm_event_id: found.id, dm_conversation_id: found.dm_conversation_id } } } };
        // Newest first: when the page reaches back past the action, later pages cannot hold it.
        const oldest = page.data?.at(-1)?.created_at;
        if (oldest === undefined || Date.parse(oldest) >= since) assertOnePage(page, "messages");
        return { result: { done: false } };
      },
    },
  };
}
