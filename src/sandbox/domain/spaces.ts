/**
 * Spaces, the live audio rooms (wire-facts 2.15). The service has no endpoint that creates
 * one; the sandbox's admin API does ({@link createSpace}).
 *
 * A space's state is computed from the sandbox clock on every read, never stored: it is
 * `scheduled` before `starts_at`, `live` from then on, and `ended` from `ends_at` (a space
 * without an end stays live). So `POST /_sandbox/clock` moves spaces along with everything
 * else. A space whose creator is suspended or deactivated answers as missing.
 *
 * The posts "shared in" a space are the posts that link to it (`https://x.com/i/spaces/ID`,
 * or the older twitter.com form), which is how a space is shared on the real service.
 */
import type { Space, SpaceState, Topic } from "../../api/types.ts";
import { nextId, type SandboxPost, type SandboxSpace } from "../model/index.ts";
import { invalidRequest } from "../problems.ts";
import type { SandboxContext } from "../route.ts";
import { iso } from "./params.ts";
import { tokenize } from "./query.ts";
import { userById } from "./users.ts";
import { codePointsUpTo } from "./code-points.ts";

/** The pattern of a space id: up to 13 letters and digits (`1DXxyRYNejbKM`). */
export const SPACE_ID_PATTERN = /^[A-Za-z0-9]{1,13}$/;
/** The longest space title, in characters (as the apps allow). */
export const MAX_SPACE_TITLE = 70;

/**
 * The topics a space can be tagged with (`topic_ids`, expanded into `includes.topics`).
 * The real service has a catalogue of thousands; the sandbox has these few, with ids of
 * the real shape.
 */
export const SPACE_TOPICS: readonly Topic[] = [
  { id: "848920371311001600", name: "Technology", description: "All about technology" },
  { id: "848921413196984320", name: "Computer programming", description: "All about computer programming" },
  { id: "847878884917886977", name: "Music", description: "All about music" },
  { id: "847900493514891265", name: "Sports", description: "All about sports" },
  { id: "839544274442915840", name: "Gaming", description: "All about gaming" },
  { id: "848959431836487680", name: "News", description: "All about news" },
  { id: "852262932607926273", name: "Science", description: "All about science" },
  { id: "847868745150119936", name: "Entertainment", description: "All about entertainment" },
];

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** A new space id: a fresh world id in base 62, as 13 characters starting with `1`, like the service's. */
function newSpaceId(ctx: SandboxContext, now: number): string {
  let n = BigInt(nextId(ctx.data, now));
  let s = "";
  while (n > 0n) {
    s = BASE62[Number(n % 62n)]! + s;
    n /= 62n;
  }
  return "1" + s.padStart(12, "0");
}

/** The spaces table (created when a state saved before spaces existed lacks it). */
export function spaceTable(ctx: SandboxContext): Record<string, SandboxSpace> {
  return (ctx.data.world.spaces ??= {});
}

/** What the admin API creates a space from. Times are ms on the sandbox clock. */
export interface NewSpace {
  creator_id: string;
  title: string;
  /** A start later than now makes a scheduled space; without one the space is live at once. */
  scheduled_start?: number;
  /** How long it stays live once started (or give `ends_at`); without either it stays live. */
  duration_ms?: number;
  ends_at?: number;
  is_ticketed?: boolean;
  host_ids?: string[];
  speaker_ids?: string[];
  invited_user_ids?: string[];
  participant_count?: number;
  subscriber_count?: number;
  lang?: string;
  topic_ids?: string[];
  buyer_ids?: string[];
}

function checkUsers(ctx: SandboxContext, ids: readonly string[], field: string): string[] {
  for (const id of ids)
    if (!userById(ctx, id)) throw invalidRequest(`${field}: no active user has id ${id}`, { [field]: [id] });
  return [...new Set(ids)];
}

/**
 * Creates a space (the admin API's `POST /_sandbox/spaces`), checking that every user it
 * names exists, its topics are known, and its times make sense.
 *
 * @example
 * ```ts
 * const s = createSpace(ctx, { creator_id: alice.id, title: "Cats", scheduled_start: now + 3_600_000, duration_ms: 1_800_000 });
 * ```
 */
export function createSpace(ctx: SandboxContext, input: NewSpace): SandboxSpace {
  const now = ctx.clock.now();
  if (!userById(ctx, input.creator_id))
    throw invalidRequest(`creator_id: no active user has id ${input.creator_id}`, { creator_id: [input.creator_id] });
  const title = input.title.trim();
  if (!title || codePointsUpTo(title, MAX_SPACE_TITLE) > MAX_SPACE_TITLE) {
    throw invalidRequest(`title: a space title must be 1 to ${MAX_SPACE_TITLE} characters`, { title: [input.title] });
  }
  if (input.scheduled_start !== undefined && input.scheduled_start <= now) {
    throw invalidRequest(
      `scheduled_start: must be later than the sandbox clock's now (${iso(now)}); leave it out for a space that is live at once`,
      {
        scheduled_start: [iso(input.scheduled_start)],
      },
    );
  }
  if (input.duration_ms !== undefined && input.ends_at !== undefined) {
    throw invalidRequest("give duration_ms or ends_at, not both", { duration_ms: [String(input.duration_ms)] });
  }
  const starts = input.scheduled_start ?? now;
  const ends = input.ends_at ?? (input.duration_ms !== undefined ? starts + input.duration_ms : undefined);
  if (ends !== undefined && ends <= starts)
    throw invalidRequest("ends_at: a space must end after it starts", { ends_at: [iso(ends)] });
  for (const id of input.topic_ids ?? []) {
    if (!SPACE_TOPICS.some((t) => t.id === id)) {
      throw invalidRequest(
        `topic_ids: ${id} is not a sandbox topic; use one of ${SPACE_TOPICS.map((t) => `${t.id} (${t.name})`).join(", ")}`,
        {
          topic_ids: [id],
        },
      );
    }
  }
  if (input.buyer_ids?.length && !input.is_ticketed)
    throw invalidRequest("buyer_ids: only a ticketed space (is_ticketed: true) has buyers", {
      buyer_ids: input.buyer_ids,
    });
  const space: SandboxSpace = {
    id: newSpaceId(ctx, now),
    creator_id: input.creator_id,
    title,
    created_at: now,
    starts_at: starts,
    scheduled: input.scheduled_start !== undefined,
    ...(ends !== undefined ? { ends_at: ends } : {}),
    host_ids: checkUsers(
      ctx,
      (input.host_ids ?? []).filter((id) => id !== input.creator_id),
      "host_ids",
    ),
    speaker_ids: checkUsers(ctx, input.speaker_ids ?? [], "speaker_ids"),
    invited_user_ids: checkUsers(ctx, input.invited_user_ids ?? [], "invited_user_ids"),
    participant_count: input.participant_count ?? 0,
    subscriber_count: input.subscriber_count ?? 0,
    is_ticketed: input.is_ticketed ?? false,
    lang: input.lang ?? "en",
    topic_ids: [...new Set(input.topic_ids ?? [])],
    buyer_ids: checkUsers(ctx, input.buyer_ids ?? [], "buyer_ids"),
  };
  spaceTable(ctx)[space.id] = space;
  return space;
}

/** A space's state at `now`: scheduled, then live, then ended. */
export function spaceState(space: SandboxSpace, now: number): SpaceState {
  if (now < space.starts_at) return "scheduled";
  if (space.ends_at !== undefined && now >= space.ends_at) return "ended";
  return "live";
}

/** A space whose creator is not gone, or undefined. */
export function liveSpace(ctx: SandboxContext, id: string): SandboxSpace | undefined {
  const s = spaceTable(ctx)[id];
  return s && userById(ctx, s.creator_id) ? s : undefined;
}

/** Every space whose creator is not gone. */
export const allSpaces = (ctx: SandboxContext): SandboxSpace[] =>
  Object.values(spaceTable(ctx)).filter((s) => userById(ctx, s.creator_id));

/** Whether every word of a search query is a word of the space's title (case-insensitive). */
export function titleMatches(space: SandboxSpace, query: string): boolean {
  const words = tokenize(query);
  const title = new Set(tokenize(space.title));
  return words.length > 0 && words.every((w) => title.has(w));
}

/** The space with the `space.fields` asked for (`id` and `state` always), at `now`. */
export function spaceObject(space: SandboxSpace, fields: ReadonlySet<string>, now: number): Space {
  const state = spaceState(space, now);
  const out: Space = { id: space.id, state };
  const started = state !== "scheduled";
  const ended = state === "ended";
  if (fields.has("created_at")) out.created_at = iso(space.created_at);
  if (fields.has("creator_id")) out.creator_id = space.creator_id;
  if (fields.has("host_ids")) out.host_ids = [space.creator_id, ...space.host_ids];
  if (fields.has("speaker_ids") && space.speaker_ids.length) out.speaker_ids = space.speaker_ids;
  if (fields.has("invited_user_ids") && space.invited_user_ids.length) out.invited_user_ids = space.invited_user_ids;
  if (fields.has("participant_count") && started) out.participant_count = space.participant_count;
  if (fields.has("subscriber_count")) out.subscriber_count = space.subscriber_count;
  if (fields.has("is_ticketed")) out.is_ticketed = space.is_ticketed;
  if (fields.has("lang")) out.lang = space.lang;
  if (fields.has("title")) out.title = space.title;
  if (fields.has("scheduled_start") && space.scheduled) out.scheduled_start = iso(space.starts_at);
  if (fields.has("started_at") && started) out.started_at = iso(space.starts_at);
  if (fields.has("ended_at") && ended) out.ended_at = iso(space.ends_at!);
  if (fields.has("topic_ids") && space.topic_ids.length) out.topic_ids = space.topic_ids;
  if (fields.has("updated_at"))
    out.updated_at = iso(
      ended ? space.ends_at! : started ? Math.max(space.starts_at, space.created_at) : space.created_at,
    );
  return out;
}

const SPACE_LINK = /(?:x|twitter)\.com\/i\/spaces\/([A-Za-z0-9]+)/gi;

/** Whether a post links to the space `id`. */
export function sharesSpace(post: SandboxPost, id: string): boolean {
  for (const m of post.text.matchAll(SPACE_LINK)) if (m[1] === id) return true;
  return false;
}
