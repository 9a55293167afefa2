/**
 * The stream trigger. The service allows one filtered-stream connection per app, so the
 * rules of every bot of an app are merged into that one connection:
 *
 * - On start the app's rules are synced: rules no bot wants are deleted, missing ones added.
 *   Two bots may want the same rule value; the service keeps one rule for it, and its tag
 *   names every bot that wants it (`greeter/ask,liker/cats`).
 * - Each delivered post goes to the bots whose rules it matched, as a `post` event with the
 *   bot's own tag, never to the bot that wrote it.
 * - The connection reconnects on its own (the client's documented policy); its lifecycle is
 *   logged.
 */
import type { ApiClient } from "../api/client.ts";
import type { StreamRule } from "../api/types.ts";
import type { StreamEvent } from "../api/stream/post-stream.ts";
import type { Logger } from "../log.ts";
import { asEventPost, authorOf, EVENT_POST_QUERY, type BotEvent } from "../runtime/events.ts";

export interface BotRules {
  bot: string;
  userId: string;
  rules: ReadonlyArray<{ value: string; tag?: string }>;
}

export interface StreamHubOptions {
  /** A client holding the app's keys (the stream and its rules are app-only). */
  client: ApiClient;
  log: Logger;
  wants: readonly BotRules[];
  /**
   * Runs each rules request; the runtime budgets them against the app's windows. Default:
   * call directly.
   */
  budgeted?: <R>(endpoint: "GET /2/posts/search/stream/rules" | "POST /2/posts/search/stream/rules", run: (signal: AbortSignal) => Promise<R>) => Promise<R>;
  deliver(bot: string, event: BotEvent): void;
  /** Every lifecycle event of the connection (connected, reconnecting, gave-up...). */
  onLifecycle?(event: Exclude<StreamEvent, { type: "post" }>): void;
}

export interface StreamHub {
  /** The rules as synced: value → the bots (and their tags) that want it. */
  readonly routes: ReadonlyMap<string, ReadonlyArray<{ bot: string; tag?: string }>>;
  /** Resolves when the connection has ended for good (closed, or the client gave up). */
  readonly done: Promise<void>;
  close(): void;
}

/** The tag the service keeps for a rule value: every bot that wants it and its own tag. */
export const ruleTag = (wanters: ReadonlyArray<{ bot: string; tag?: string }>) =>
  wanters.map((w) => `${w.bot}/${w.tag ?? ""}`).join(",");

/** The merged rules: value → wanters, in the order the bots were given. */
export function mergeRules(wants: readonly BotRules[]): Map<string, Array<{ bot: string; tag?: string }>> {
  const merged = new Map<string, Array<{ bot: string; tag?: string }>>();
  for (const { bot, rules } of wants) {
    for (const rule of rules) {
      const list = merged.get(rule.value) ?? [];
      if (!list.some((w) => w.bot === bot)) list.push({ bot, ...(rule.tag !== undefined ? { tag: rule.tag } : {}) });
      merged.set(rule.value, list);
    }
  }
  return merged;
}

/**
 * Makes the app's rules exactly the merged ones: deletes those no bot wants (or whose tag
 * is stale), adds those missing. Returns the service's rules afterwards, by id.
 */
export async function syncRules(options: Pick<StreamHubOptions, "client" | "log" | "budgeted">, merged: Map<string, Array<{ bot: string; tag?: string }>>): Promise<Map<string, StreamRule>> {
  const { client, log } = options;
  const budgeted = options.budgeted ?? ((_endpoint, run) => run(new AbortController().signal));
  const existing: StreamRule[] = [];
  let token: string | undefined;
  do {
    const page = await budgeted("GET /2/posts/search/stream/rules", (signal) =>
      client.request("GET /2/posts/search/stream/rules", { query: { max_results: 1000, ...(token ? { pagination_token: token } : {}) } }, { signal }),
    );
    existing.push(...((page.data as StreamRule[] | undefined) ?? []));
    token = page.meta?.next_token;
  } while (token);

  const wanted = new Map([...merged].map(([value, wanters]) => [value, ruleTag(wanters)]));
  const stale = existing.filter((r) => wanted.get(r.value) !== (r.tag ?? ""));
  const keep = new Set(existing.filter((r) => !stale.includes(r)).map((r) => r.value));
  const add = [...wanted].filter(([value]) => !keep.has(value)).map(([value, tag]) => ({ value, tag }));

  if (stale.length > 0) {
    await budgeted("POST /2/posts/search/stream/rules", (signal) =>
      client.request("POST /2/posts/search/stream/rules", { body: { delete: { ids: stale.map((r) => r.id) } } }, { signal }),
    );
    log.info({ deleted: stale.map((r) => r.value) }, `stream rules: deleted ${stale.length} no bot wants`);
  }
  const byId = new Map(existing.filter((r) => keep.has(r.value)).map((r) => [r.id, r]));
  if (add.length > 0) {
    const res = await budgeted("POST /2/posts/search/stream/rules", (signal) =>
      client.request("POST /2/posts/search/stream/rules", { body: { add } }, { signal }),
    );
    for (const rule of (res.data as StreamRule[] | undefined) ?? []) byId.set(rule.id, rule);
    const refused = (res.errors ?? []).map((e) => `${String(e.value ?? "")}: ${e.title}${e.detail ? ` (${e.detail})` : ""}`);
    if (refused.length > 0) log.error({ refused }, `stream rules: the service refused ${refused.length}; fix them in the bot files`);
    log.info({ added: add.map((r) => r.value) }, `stream rules: added ${add.length}`);
  }
  return byId;
}

/** Syncs the rules of every bot of one app and opens the app's one stream connection. */
export async function startStreamHub(options: StreamHubOptions): Promise<StreamHub> {
  const merged = mergeRules(options.wants);
  const userIds = new Map(options.wants.map((w) => [w.bot, w.userId]));
  const rules = await syncRules(options, merged);
  const stream = options.client.stream("GET /2/posts/search/stream", EVENT_POST_QUERY);

  const route = (message: Extract<StreamEvent, { type: "post" }>) => {
    const post = asEventPost(message.data);
    if (!post) return;
    const author = authorOf(post, message.includes) ?? { id: post.author_id, name: "", username: "" };
    const reached = new Set<string>();
    for (const match of message.matching_rules ?? []) {
      const value = rules.get(match.id)?.value;
      for (const wanter of (value && merged.get(value)) || []) {
        if (reached.has(wanter.bot) || userIds.get(wanter.bot) === post.author_id) continue;
        reached.add(wanter.bot);
        options.deliver(wanter.bot, {
          kind: "post",
          id: `post:${post.id}`,
          post,
          author,
          rule: { value: value!, ...(wanter.tag !== undefined ? { tag: wanter.tag } : {}) },
        });
      }
    }
  };

  const done = (async () => {
    for await (const event of stream) {
      if (event.type === "post") route(event);
      else options.onLifecycle?.(event);
    }
  })();

  return { routes: merged, done, close: () => stream.close() };
}
