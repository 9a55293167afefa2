/**
 * The stream's routing table answers and hands nothing on: routing a post returns each bot's
 * events (its own-rule `post` event, its mentions), which whoever read the post puts in the
 * hub's outbox; a post routed before is answered `undefined`, so it is handed out once.
 */
import { describe, expect, it } from "vitest";
import { createClock } from "../../src/clock.ts";
import type { Post } from "../../src/api/types.ts";
import { Routes } from "../../src/triggers/stream/routing.ts";
import { HubStatus } from "../../src/triggers/stream/status.ts";

describe("Routes.route", () => {
  it("returns each bot's events of a post once, never a bot its own post", () => {
    const status = new HubStatus(createClock({ frozen: true, start: 0 }));
    const told: string[] = [];
    const routes = new Routes({ status, routed: (bot, postId) => told.push(`${bot}:${postId}`) });
    routes.want(
      [
        { bot: "weather", userId: "10", rules: [{ value: "rain", tag: "w" }] },
        { bot: "ann", userId: "11", rules: [{ value: "rain" }] },
      ],
      [{ bot: "bob", userId: "12", username: "Bob" }],
    );
    const post: Post = {
      id: "500",
      edit_history_post_ids: ["500"],
      conversation_id: "500",
      text: "rain again @bob",
      author_id: "11",
      created_at: "2026-03-02T12:00:00.000Z",
      entities: { mentions: [{ start: 11, end: 15, username: "bob" }] },
    };

    const routed = routes.route(post, undefined, ["rain"]);

    expect(routed?.map(({ bot, kind, events }) => [bot, kind, events.map((e) => e.id)])).toEqual([
      ["weather", "post", ["post:500"]],
      ["bob", "mentions", [expect.stringContaining("500")]],
    ]);
    expect(routed?.[0]?.events[0]).toMatchObject({ rule: { value: "rain", tag: "w" } });
    expect(told).toEqual(["weather:500"]);
    expect(status.current.posts).toBe(1);
    // The same post again (streamed after a gap's search found it): nothing to hand out.
    expect(routes.route(post, undefined, ["rain"])).toBeUndefined();
    expect(status.current.posts).toBe(1);
  });
});
