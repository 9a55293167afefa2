/**
 * The sandbox's indexed lookups (usernames, each app's stream rules) answer exactly what a
 * scan of the world would, as users and rules come and go and when a world is loaded anew.
 */
import { describe, expect, it } from "vitest";
import { userByUsername, createUser } from "../../../src/sandbox/domain/users.ts";
import { addRules, deleteRules, rulesOf } from "../../../src/sandbox/domain/rules.ts";
import { createData } from "../../../src/sandbox/model/index.ts";
import type { SandboxApp } from "../../../src/sandbox/model/index.ts";
import { context, invalidMessage } from "./world.ts";

describe("username lookups", () => {
  it("find users as they are created, ignoring case, and not the ones that are gone unless asked", () => {
    const { ctx } = context();
    expect(userByUsername(ctx, "alice")).toBeUndefined();
    const alice = createUser(ctx, { username: "Alice" });
    expect(userByUsername(ctx, "aLiCe")).toBe(alice);
    for (let i = 0; i < 100; i++) createUser(ctx, { username: `u${i}` });
    expect(userByUsername(ctx, "U57")?.username).toBe("u57");
    alice.suspended = true;
    expect(userByUsername(ctx, "alice")).toBeUndefined();
    expect(userByUsername(ctx, "alice", { includeGone: true })).toBe(alice);
    expect(invalidMessage(() => createUser(ctx, { username: "ALICE" }))).toMatch(/taken/);
  });

  it("find the users of a world loaded in place of the old one", () => {
    const { ctx } = context();
    createUser(ctx, { username: "old" });
    expect(userByUsername(ctx, "old")).toBeDefined();
    const loaded = createData();
    loaded.world.users["42"] = {
      ...ctx.data.world.users[Object.keys(ctx.data.world.users)[0]!]!,
      id: "42",
      username: "fresh",
    };
    ctx.data = loaded;
    expect(userByUsername(ctx, "fresh")?.id).toBe("42");
    expect(userByUsername(ctx, "old")).toBeUndefined();
  });
});

describe("rules of an app", () => {
  it("follow every add and delete, per app, oldest first", () => {
    const { ctx } = context();
    const app = (id: string): SandboxApp => ({ id, name: id, plan: "pro" }) as SandboxApp;
    addRules(ctx, app("a"), [{ value: "cats" }, { value: "dogs" }], false);
    addRules(ctx, app("b"), [{ value: "birds" }], false);
    expect(rulesOf(ctx, "a").map((r) => r.value)).toEqual(["cats", "dogs"]);
    addRules(ctx, app("a"), [{ value: "fish" }], true); // a dry run changes nothing
    addRules(ctx, app("a"), [{ value: "owls" }], false);
    expect(rulesOf(ctx, "a").map((r) => r.value)).toEqual(["cats", "dogs", "owls"]);
    deleteRules(ctx, app("a"), { values: ["dogs"] }, false);
    expect(rulesOf(ctx, "a").map((r) => r.value)).toEqual(["cats", "owls"]);
    expect(rulesOf(ctx, "b").map((r) => r.value)).toEqual(["birds"]);
    deleteRules(ctx, app("b"), { all: true }, false);
    expect(rulesOf(ctx, "b")).toEqual([]);
  });
});
