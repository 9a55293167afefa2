/**
 * `bot say --wait`: after a demo user posts, wait for the bots' answers and print them, so a
 * newcomer sees the whole exchange in one terminal instead of reading the demo's log. It asks
 * the service like any client would: a recent search for replies to the post
 * (`in_reply_to_post_id:ID`), every few seconds, until the first answer or the time is up.
 */
import { RateLimitError } from "../api/errors.ts";
import type { ApiClient } from "../api/index.ts";
import type { Clock } from "../clock.ts";

/** An answer to the post: who wrote it and what. */
export interface Answer {
  id: string;
  username: string;
  text: string;
}

export interface AwaitRepliesOptions {
  /** A client of the user who posted (any user's would do: search is public). */
  client: ApiClient;
  clock: Clock;
  /** The post whose replies are awaited. */
  postId: string;
  /** How long to wait for the first answer (ms). */
  timeoutMs: number;
  /** How often to look (ms; default 2 s: a demo bot answers within a few seconds). */
  everyMs?: number;
}

/**
 * The replies to `postId`, oldest first, once there is at least one; an empty list when none
 * came within `timeoutMs`. A rate limit makes it wait for the window's reset (within the time
 * left), never fail.
 */
export async function awaitReplies(options: AwaitRepliesOptions): Promise<Answer[]> {
  const { client, clock, postId, timeoutMs } = options;
  return lookUntil(clock, timeoutMs, options.everyMs ?? 2_000, async () => {
    const page = await client.search.recent({
      query: `in_reply_to_post_id:${postId}`,
      expansions: ["author_id"],
      "user.fields": ["username"],
      since_id: postId,
    });
    const users = new Map((page.includes?.users ?? []).map((u) => [u.id, u.username]));
    return (page.data ?? [])
      .map((p) => ({ id: p.id, username: users.get(p.author_id ?? "") ?? "?", text: p.text }))
      .reverse();
  });
}

/**
 * Calls `look` until it finds something (returned) or `timeoutMs` has passed (an empty list):
 * at once, then every `everyMs`, and at the deadline. A rate limit makes it wait for the
 * window's reset (within the time left), never fail: the user asked to wait, not to see a 429.
 */
export async function lookUntil<T>(
  clock: Clock,
  timeoutMs: number,
  everyMs: number,
  look: () => Promise<T[]>,
): Promise<T[]> {
  const deadline = clock.now() + timeoutMs;
  let resetAt: number | undefined;
  for (let i = 0; ; i++) {
    const wait = Math.max(i === 0 ? 0 : everyMs, (resetAt ?? 0) - clock.now());
    const left = deadline - clock.now();
    if (wait > 0 && left > 0) await clock.sleep(Math.min(wait, left));
    resetAt = undefined;
    try {
      const found = await look();
      if (found.length > 0) return found;
    } catch (err) {
      if (!(err instanceof RateLimitError)) throw err;
      resetAt = err.resetAt;
    }
    if (deadline - clock.now() <= 0) return [];
  }
}
