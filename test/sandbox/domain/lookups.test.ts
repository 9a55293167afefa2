/**
 * The sandbox's indexed lookups (usernames, each app's stream rules) answer exactly what a
 * scan of the world would, as users and rules come and go and when a world is loaded anew.
 */
import { describe, expect, it } from "vitest";
import { userByUsername, createUser } from "../../../src/sandbox/domain/users.ts";
import { addRules, deleteRules, rulesOf } from "../../../src/sandbox/domain/rules.ts";
import { createPost } from "../../../src/sandbox/domain/posts.ts";
import { matchingRules } from "../../../src/sandbox/domain/streams.ts";
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

  it("of one app stay as they were (the same list) when another app's rules change", () => {
    const { ctx } = context();
    const app = (id: string): SandboxApp => ({ id, name: id, plan: "pro" }) as SandboxApp;
    addRules(ctx, app("a"), [{ value: "cats" }], false);
    addRules(ctx, app("b"), [{ value: "birds" }], false);
    const a = rulesOf(ctx, "a");
    addRules(ctx, app("b"), [{ value: "owls" }], false);
    deleteRules(ctx, app("b"), { values: ["birds"] }, false);
    expect(rulesOf(ctx, "a")).toBe(a);
    expect(rulesOf(ctx, "b").map((r) => r.value)).toEqual(["owls"]);
    addRules(ctx, app("a"), [{ value: "dogs" }], false);
    expect(rulesOf(ctx, "a").map((r) => r.value)).toEqual(["cats", "dogs"]);
  });
});

describe("the rules a post matches", () => {
  it("are every rule it can match, in the rules' order, whichever values rules share, post after post and app after app", () => {
    const { ctx } = context();
    const app = (id: string): SandboxApp => ({ id, name: id, plan: "pro" }) as SandboxApp;
    for (const name of ["crowd", "ann", "bob", "cid", "dan"]) createUser(ctx, { username: name });
    // bob's value in two rules of app a (and in app b's), "cats" a rule that needs no value.
    addRules(ctx, app("a"), [{ value: "@ann OR @bob" }, { value: "@bob OR @cid" }, { value: "cats" }], false);
    addRules(ctx, app("a"), [{ value: "(@ann OR to:ann) -is:repost" }], false);
    addRules(ctx, app("b"), [{ value: "@bob" }], false);
    let n = 0;
    const values = (appId: string, text: string) => {
      // Each text once (the service refuses an author's repeated text).
      const post = createPost(ctx, { author_id: Object.keys(ctx.data.world.users)[0]!, text: `${text} ${++n}` });
      const ids = new Map(rulesOf(ctx, appId).map((r) => [r.id, r.value]));
      const other = appId === "a" ? "b" : "a";
      // Each app in turn, as each open stream tests the post; then this app again.
      const first = matchingRules(ctx, appId, post).map((r) => ids.get(r.id));
      matchingRules(ctx, other, post);
      expect(matchingRules(ctx, appId, post).map((r) => ids.get(r.id))).toEqual(first);
      return first;
    };
    expect(values("a", "@bob likes cats")).toEqual(["@ann OR @bob", "@bob OR @cid", "cats"]);
    expect(values("b", "@bob likes cats")).toEqual(["@bob"]);
    expect(values("a", "hi @ann")).toEqual(["@ann OR @bob", "(@ann OR to:ann) -is:repost"]);
    expect(values("a", "hi @cid")).toEqual(["@bob OR @cid"]);
    expect(values("a", "hi @dan")).toEqual([]);
    expect(values("b", "hi @dan")).toEqual([]);
  });
});
