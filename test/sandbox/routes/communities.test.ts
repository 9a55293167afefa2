import { describe, expect, it } from "vitest";
import { useWorld } from "./world.ts";

const w = useWorld();

describe("communities", () => {
  it("looks a community up with community.fields, and answers a missing one with a partial error", async () => {
    const alice = await w.user("cm_a");
    const made = await w.admin("POST", "/_sandbox/communities", {
      name: "Cat lovers",
      description: "Photos of cats",
      access: "Closed",
      join_policy: "RestrictedJoinRequestsRequireAdminApproval",
      member_count: 12,
    });
    expect(made.status).toBe(201);
    const id = made.body.id as string;
    expect(made.body).toEqual({
      id,
      name: "Cat lovers",
      description: "Photos of cats",
      access: "Closed",
      join_policy: "RestrictedJoinRequestsRequireAdminApproval",
      member_count: 12,
      created_at: new Date(w.t.clock.now()).toISOString(),
    });
    expect((await w.get(alice, `/2/communities/${id}`)).body).toEqual({ data: { id, name: "Cat lovers" } });
    const full = await w.get(alice, `/2/communities/${id}`, { "community.fields": "access,member_count,description" });
    expect(full.body.data).toEqual({
      id,
      name: "Cat lovers",
      access: "Closed",
      member_count: 12,
      description: "Photos of cats",
    });
    const bearer = await w.t.appBearer(w.app);
    expect((await w.t.bearer(bearer, "GET", `/2/communities/${id}`)).body.data.id).toBe(id);
    const missing = await w.get(alice, "/2/communities/1493446837214187523");
    expect(missing.status).toBe(200);
    expect(missing.body.errors[0]).toMatchObject({ resource_type: "community", resource_id: "1493446837214187523" });
    expect((await w.get(alice, `/2/communities/${id}`, { "community.fields": "owner" })).status).toBe(400);
    expect((await w.admin("POST", "/_sandbox/communities", { name: "" })).status).toBe(400);
    expect((await w.admin("POST", "/_sandbox/communities", { name: "x", access: "Secret" })).status).toBe(400);
  });

  it("searches names and descriptions word by word, newest first, 10–100 per page with next_token (user context only)", async () => {
    const alice = await w.user("cm_s");
    const made: string[] = [];
    for (let i = 0; i < 12; i++) {
      await w.t.clock.advance(1000);
      made.push(
        (
          await w.admin("POST", "/_sandbox/communities", {
            name: `Gardeners ${i}`,
            description: i % 2 ? "roses and tulips" : "vegetables",
          })
        ).body.id,
      );
    }
    await w.admin("POST", "/_sandbox/communities", { name: "Chess club" });
    const first = await w.get(alice, "/2/communities/search", { query: "gardeners" });
    expect(first.body.data.map((c: { id: string }) => c.id)).toEqual(made.slice(2).reverse());
    expect(first.body.meta).toEqual({ result_count: 10, next_token: expect.any(String) });
    const second = await w.get(alice, "/2/communities/search", {
      query: "gardeners",
      next_token: first.body.meta.next_token,
    });
    expect(second.body.data.map((c: { id: string }) => c.id)).toEqual([made[1], made[0]]);
    expect(second.body.meta).toEqual({ result_count: 2 });
    const roses = await w.get(alice, "/2/communities/search", {
      query: "Roses gardeners",
      max_results: "100",
      "community.fields": "description",
    });
    expect(roses.body.data).toHaveLength(6);
    expect(roses.body.data.every((c: { description: string }) => c.description === "roses and tulips")).toBe(true);
    expect((await w.get(alice, "/2/communities/search", { query: "opera" })).body).toEqual({
      meta: { result_count: 0 },
    });
    expect((await w.get(alice, "/2/communities/search", {})).status).toBe(400);
    expect((await w.get(alice, "/2/communities/search", { query: "x", max_results: "5" })).status).toBe(400);
    expect((await w.get(alice, "/2/communities/search", { query: "x".repeat(4097) })).status).toBe(400);
    const bearer = await w.t.appBearer(w.app);
    expect((await w.t.bearer(bearer, "GET", "/2/communities/search", { query: { query: "chess" } })).status).toBe(403);
  });
});
