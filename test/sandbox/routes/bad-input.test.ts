/**
 * Garbage at every handler the world serves: whatever the query, path or body, a handler
 * answers (2xx/4xx) or throws an ApiProblem, which the platform turns into a 4xx. Anything
 * else would be a 500. The handlers are called directly (as the platform calls them after
 * authentication), so no rate limit hides a handler from the garbage.
 */
import { describe, expect, it } from "vitest";
import { ENDPOINTS, matchEndpoint } from "../../../src/api/endpoints.ts";
import { ApiProblem } from "../../../src/sandbox/problems.ts";
import { isStream, type RouteRequest } from "../../../src/sandbox/route.ts";
import { routes } from "../../../src/sandbox/routes/index.ts";
import { useWorld } from "./world.ts";

const w = useWorld();

const PATH_VALUES = ["1", "abc", "99999999999999999999", "-1", "x y", "€"];
const BODIES: unknown[] = [
  undefined,
  {},
  { text: null },
  { text: ["a"] },
  { reply: null, text: "x" },
  { reply: { in_reply_to_post_id: 5 }, text: "x" },
  { post_id: "1" },
  { target_user_id: "1" },
  { hidden: "no" },
  { add: "cat" },
  { add: [{ value: 1 }] },
  { delete: { ids: [1] } },
  { conversation_type: "Group", participant_ids: "x", message: {} },
  { text: "x".repeat(20_000) },
];
const QUERIES: Array<Record<string, string>> = [
  {},
  { ids: "1,,2" },
  { ids: "" },
  { max_results: "1e3" },
  { pagination_token: "%%%" },
  { "post.fields": "" },
  { expansions: "author_id,,author_id" },
  { query: "((((" },
  { query: "-" },
  { start_time: "2026-02-30T00:00:00Z" },
  { event_types: "" },
  { usernames: "a,b,c", granularity: "year" },
];

describe("bad input", () => {
  it("never makes a handler fail with anything but an ApiProblem", async () => {
    const alice = await w.user("garbage");
    const app = w.t.sandbox.context.data.auth.apps[w.app.id]!;
    const user = w.t.sandbox.context.data.world.users[alice.user.id]!;
    const handled = ENDPOINTS.filter((e) => routes[e.key]);
    expect(handled.length).toBeGreaterThanOrEqual(50);
    const failures: string[] = [];
    let calls = 0;
    for (const e of handled) {
      for (const value of PATH_VALUES) {
        const path = e.path.replace(/:[a-z_]+/g, encodeURIComponent(value === "1" ? alice.user.id : value));
        const match = matchEndpoint(e.method, path);
        const params =
          match?.endpoint.key === e.key
            ? match.params
            : Object.fromEntries([...e.path.matchAll(/:([a-z_]+)/g)].map((m) => [m[1]!, value]));
        const n = Math.max(QUERIES.length, BODIES.length);
        for (let i = 0; i < n; i++) {
          const query = QUERIES[i % QUERIES.length]!;
          const body = e.method === "GET" || e.method === "DELETE" ? undefined : BODIES[i % BODIES.length];
          const aborted = new AbortController();
          const req: RouteRequest = {
            sandbox: w.t.sandbox.context,
            endpoint: e,
            params,
            query: new URLSearchParams(query),
            body,
            caller: { method: e.auth.methods.includes("oauth1") ? "oauth1" : e.auth.methods[0]!, app, user },
            countPostsRead: () => {},
            signal: aborted.signal,
          };
          calls++;
          try {
            const result = await routes[e.key]!(req);
            if (isStream(result)) result.stream({ send: () => {}, end: () => {} })();
            else if (result.status >= 500)
              failures.push(`${e.key} ${path} ${JSON.stringify(query)} → ${result.status}`);
          } catch (err) {
            if (!(err instanceof ApiProblem) || err.status >= 500) {
              failures.push(
                `${e.key} ${path} ${JSON.stringify(query)} ${JSON.stringify(body)?.slice(0, 80)} → ${String(err)}`,
              );
            }
          } finally {
            aborted.abort();
          }
        }
      }
    }
    expect(calls).toBeGreaterThan(3000);
    expect(failures).toEqual([]);
  });
});
