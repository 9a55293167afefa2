/**
 * Paging as the service does it (wire-facts 1.3): `max_results` within a per-family range,
 * opaque `next_token` / `previous_token` that a client sends back unchanged, and the
 * `since_id` / `until_id` / `start_time` / `end_time` window of timelines and search.
 *
 * Every list is ordered newest first by a sort key (a zero-padded string, so string order
 * is numeric order). A token names the key of the edge item of the page it came from and
 * a direction, so a page stays correct while new items arrive above it.
 */
import { invalidRequest } from "../problems.ts";
import type { Params } from "./params.ts";

/** The `max_results` range and default of an endpoint family. */
export interface PageRange {
  min: number;
  max: number;
  def: number;
}

/** The families of wire-facts table 1.3. */
export const PAGE_RANGES = {
  recentSearch: { min: 10, max: 100, def: 10 },
  fullArchiveSearch: { min: 10, max: 500, def: 10 },
  userPosts: { min: 5, max: 100, def: 10 },
  mentions: { min: 5, max: 100, def: 10 },
  homeTimeline: { min: 1, max: 100, def: 100 },
  quotePosts: { min: 10, max: 100, def: 10 },
  postUsers: { min: 1, max: 100, def: 100 },
  likedPosts: { min: 5, max: 100, def: 100 },
  bookmarks: { min: 1, max: 100, def: 100 },
  relations: { min: 1, max: 1000, def: 100 },
  dmEvents: { min: 1, max: 100, def: 100 },
  rules: { min: 1, max: 1000, def: 1000 },
  usersSearch: { min: 1, max: 1000, def: 100 },
  /** List posts, members and followers; owned, followed and member-of lists. */
  lists: { min: 1, max: 100, def: 100 },
  /** Spaces search, space buyers and posts of a space. */
  spaces: { min: 1, max: 100, def: 100 },
  communitySearch: { min: 10, max: 100, def: 10 },
  bookmarkFolders: { min: 1, max: 100, def: 100 },
} satisfies Record<string, PageRange>;

/** A zero-padded sort key of numbers or decimal ids (string order = numeric order). */
export function sortKey(...parts: Array<string | number>): string {
  return parts.map((p) => String(p).padStart(20, "0")).join(".");
}

interface Cursor {
  dir: "next" | "prev";
  key: string;
}

const encode = (c: Cursor) => Buffer.from(`${c.dir === "next" ? "n" : "p"}:${c.key}`).toString("base64url");

function decode(token: string, name: string): Cursor {
  const text = /^[A-Za-z0-9_-]{16,}$/.test(token) ? Buffer.from(token, "base64url").toString() : "";
  const m = /^([np]):([0-9.]+)$/.exec(text);
  if (!m) {
    throw invalidRequest(
      `The \`${name}\` query parameter value [${token}] is not valid; send back a next_token or previous_token from an earlier response, unchanged`,
      { [name]: [token] },
    );
  }
  return { dir: m[1] === "n" ? "next" : "prev", key: m[2]! };
}

/** The paging parameters of a request. */
export interface PageRequest {
  max: number;
  cursor?: Cursor;
}

/**
 * Reads `max_results` and the page token. `tokenNames` lists the names the family accepts
 * (search takes `next_token` and, in newer versions, `pagination_token`).
 */
export function readPage(
  q: Params,
  range: PageRange,
  tokenNames: readonly string[] = ["pagination_token"],
): PageRequest {
  const max = q.int("max_results", range.min, range.max, range.def);
  for (const name of tokenNames) {
    const token = q.get(name);
    if (token !== undefined) return { max, cursor: decode(token, name) };
  }
  return { max };
}

/** One page of a list and the tokens around it. */
export interface Page<T> {
  items: T[];
  next_token?: string;
  previous_token?: string;
}

/**
 * Cuts one page out of `unsorted`, ordered newest first (by descending `keyOf`).
 * `next_token` leads to older items and is present only when there are some;
 * `previous_token` leads back to newer ones and is present only when there are some.
 */
export function paginate<T>(unsorted: readonly T[], keyOf: (item: T) => string, req: PageRequest): Page<T> {
  const keyed = unsorted.map((item) => ({ item, key: keyOf(item) }));
  keyed.sort((a, b) => (a.key < b.key ? 1 : a.key > b.key ? -1 : 0));
  const items = keyed.map((k) => k.item);
  let page: T[];
  if (!req.cursor) page = items.slice(0, req.max);
  else if (req.cursor.dir === "next") {
    const key = req.cursor.key;
    page = items.filter((i) => keyOf(i) < key).slice(0, req.max);
  } else {
    const key = req.cursor.key;
    const newer = items.filter((i) => keyOf(i) > key);
    page = newer.slice(Math.max(0, newer.length - req.max));
  }
  const out: Page<T> = { items: page };
  if (page.length) {
    const last = keyOf(page[page.length - 1]!);
    const first = keyOf(page[0]!);
    if (items.some((i) => keyOf(i) < last)) out.next_token = encode({ dir: "next", key: last });
    if (items.some((i) => keyOf(i) > first)) out.previous_token = encode({ dir: "prev", key: first });
  }
  return out;
}

/** A window of ids and times that a timeline or search keeps (all bounds optional). */
export interface TimeWindow {
  since_id?: string;
  until_id?: string;
  start_time?: number;
  end_time?: number;
}

/**
 * Reads `since_id`, `until_id`, `start_time` and `end_time`, and checks that they make
 * sense together. On timelines the ids take precedence over the times (wire-facts 1.3):
 * with `idsWin`, times given next to an id are ignored.
 */
export function readWindow(q: Params, idsWin: boolean): TimeWindow {
  const w: TimeWindow = {};
  const since = q.id("since_id");
  const until = q.id("until_id");
  if (since !== undefined) w.since_id = since;
  if (until !== undefined) w.until_id = until;
  const start = q.time("start_time");
  const end = q.time("end_time");
  if (start !== undefined && end !== undefined && start >= end) {
    throw invalidRequest(
      `Invalid 'start_time':'${q.get("start_time")}'. 'start_time' must be before 'end_time' ('${q.get("end_time")}')`,
      {
        start_time: [q.get("start_time")!],
      },
    );
  }
  if (!(idsWin && (since !== undefined || until !== undefined))) {
    if (start !== undefined) w.start_time = start;
    if (end !== undefined) w.end_time = end;
  }
  return w;
}

/** Whether an item (by id and creation time) is inside a window. */
export function inWindow(
  w: TimeWindow,
  id: string,
  createdAt: number,
  compare: (a: string, b: string) => number,
): boolean {
  if (w.since_id !== undefined && compare(id, w.since_id) <= 0) return false;
  if (w.until_id !== undefined && compare(id, w.until_id) >= 0) return false;
  if (w.start_time !== undefined && createdAt < w.start_time) return false;
  if (w.end_time !== undefined && createdAt >= w.end_time) return false;
  return true;
}
