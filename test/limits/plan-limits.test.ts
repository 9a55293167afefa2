import { describe, expect, it } from "vitest";
import { ENDPOINTS } from "../../src/api/endpoints.ts";
import { limitsFor, PLANS, SPEC_LIMITS } from "../../src/limits/index.ts";

describe("limitsFor", () => {
  it("answers for every endpoint on every plan", () => {
    for (const e of ENDPOINTS) for (const plan of PLANS) expect(limitsFor(e.key, plan)).toBeDefined();
  });

  it("reads the spec table, U and A together", () => {
    expect(limitsFor("GET /2/users/:id/mentions", "basic")).toEqual([
      { max: 10, per: "15m", scope: "user" },
      { max: 15, per: "15m", scope: "app" },
    ]);
    expect(limitsFor("POST /2/posts", "pro")).toEqual([
      { max: 100, per: "15m", scope: "user" },
      { max: 10000, per: "24h", scope: "app" },
    ]);
    expect(limitsFor("GET /2/posts/search/stream", "basic")).toBe("unavailable");
  });

  it("resolves the absent cells by the recorded choice", () => {
    expect(limitsFor("GET /2/posts/search/all", "free")).toBe("unavailable");
    expect(limitsFor("POST /2/posts/search/stream/rules", "free")).toBe("unavailable");
    expect(limitsFor("GET /2/lists/:id/posts", "free")).toEqual(limitsFor("GET /2/lists/:id/members", "free"));
  });

  it("gives endpoints without a row the limits of the row they follow", () => {
    expect(limitsFor("POST /2/posts/:id/bookmarks", "pro")).toEqual(limitsFor("POST /2/users/:id/bookmarks", "pro"));
    expect(limitsFor("GET /2/posts/sample/stream", "free")).toBe("unavailable");
  });

  it("keys every table row by an endpoint of the catalog", () => {
    const keys = new Set(ENDPOINTS.map((e) => e.key as string));
    for (const key of Object.keys(SPEC_LIMITS)) expect(keys.has(key), key).toBe(true);
  });
});
