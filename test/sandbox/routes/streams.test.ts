import { beforeAll, describe, expect, it, vi } from "vitest";
import type { AppView } from "../../../src/sandbox/index.ts";
import { inSample } from "../../../src/sandbox/domain/streams.ts";
import type { Account } from "../../helpers/sandbox.ts";
import { openStream } from "../../helpers/stream.ts";
import { useWorld } from "./world.ts";

const w = useWorld();
const RULES = "/2/posts/search/stream/rules";

/** An app of its own (rules and the one connection are per app) and its bearer. */
async function freshApp(plan: "pro" | "basic" = "pro"): Promise<{ app: AppView; bearer: string }> {
  const app = await w.t.admin.createApp({ plan });
  return { app, bearer: await w.t.appBearer(app) };
}

const rules = (bearer: string, body: unknown, query: Record<string, string> = {}) =>
  w.t.bearer(bearer, "POST", RULES, { json: body, query });
const lines = (text: string) =>
  text
    .split("\r\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l));

let author: Account;
beforeAll(async () => {
  author = await w.user("st_author");
});

describe("stream rules", () => {
  it("adds rules (201) with meta.sent and summary, lists them, and deletes by id and by value", async () => {
    const { bearer } = await freshApp();
    const add = await rules(bearer, { add: [{ value: "cat has:links", tag: "cats" }, { value: "dog" }] });
    expect(add.status).toBe(201);
    expect(add.body.meta).toEqual({
      sent: "2026-03-02T12:00:00.000Z",
      summary: { created: 2, not_created: 0, valid: 2, invalid: 0 },
    });
    expect(add.body.data).toEqual([
      { id: expect.stringMatching(/^\d+$/), value: "cat has:links", tag: "cats" },
      { id: expect.stringMatching(/^\d+$/), value: "dog" },
    ]);
    const list = await w.t.bearer(bearer, "GET", RULES);
    expect(list.body.data.map((r: { value: string }) => r.value).sort()).toEqual(["cat has:links", "dog"]);
    expect(list.body.meta).toMatchObject({ result_count: 2 });
    const one = await w.t.bearer(bearer, "GET", RULES, { query: { ids: add.body.data[1].id } });
    expect(one.body.data).toEqual([add.body.data[1]]);

    const del = await rules(bearer, { delete: { ids: [add.body.data[0].id, "1"] } });
    expect(del.status).toBe(200);
    expect(del.body.meta.summary).toEqual({ deleted: 1, not_deleted: 1 });
    expect(del.body.errors[0]).toMatchObject({
      resource_id: "1",
      type: "https://api.twitter.com/2/problems/resource-not-found",
    });
    const byValue = await rules(bearer, { delete: { values: ["dog"] } });
    expect(byValue.body.meta.summary).toEqual({ deleted: 1, not_deleted: 0 });
    expect((await w.t.bearer(bearer, "GET", RULES)).body).toEqual({
      meta: { sent: expect.any(String), result_count: 0 },
    });
  });

  it("reports duplicates and invalid rules per rule and still creates the others", async () => {
    const { bearer } = await freshApp();
    const first = await rules(bearer, { add: [{ value: "cat" }] });
    const dup = await rules(bearer, { add: [{ value: "cat" }, { value: "bird" }] });
    expect(dup.status).toBe(201);
    expect(dup.body.meta.summary).toEqual({ created: 1, not_created: 1, valid: 1, invalid: 1 });
    expect(dup.body.errors).toEqual([
      {
        value: "cat",
        id: first.body.data[0].id,
        title: "DuplicateRule",
        type: "https://api.twitter.com/2/problems/duplicate-rules",
      },
    ]);
    const bad = await rules(bearer, { add: [{ value: "fish" }, { value: "cat (" }] });
    expect(bad.status).toBe(201);
    expect(bad.body.meta.summary).toEqual({ created: 1, not_created: 1, valid: 1, invalid: 1 });
    expect(bad.body.data).toEqual([{ id: expect.any(String), value: "fish" }]);
    expect(bad.body.errors).toHaveLength(1);
    expect(bad.body.errors[0]).toMatchObject({
      value: "cat (",
      title: "UnprocessableEntity",
      type: "https://api.twitter.com/2/problems/invalid-rules",
    });
    expect(bad.body.errors[0].details[0]).toMatch(/never closed \(at position 5\)/);
    const onlyBad = await rules(bearer, { add: [{ value: "dog (" }] });
    expect(onlyBad.status).toBe(200);
    expect(onlyBad.body.data).toBeUndefined();
    expect(onlyBad.body.meta.summary).toEqual({ created: 0, not_created: 1, valid: 0, invalid: 1 });
    const values = (await w.t.bearer(bearer, "GET", RULES)).body.data.map((r: { value: string }) => r.value).sort();
    expect(values).toEqual(["bird", "cat", "fish"]);
  });

  it("holds pro to 1,000 rules per app and 1,024 characters per rule, refusing per rule", async () => {
    const { bearer } = await freshApp();
    const exact = "a".repeat(1024);
    const tooLong = "b".repeat(1025);
    const first = await rules(bearer, {
      add: [...Array.from({ length: 998 }, (_, i) => ({ value: `word${i}` })), { value: exact }],
    });
    expect(first.body.meta.summary).toEqual({ created: 999, not_created: 0, valid: 999, invalid: 0 });
    const over = await rules(bearer, {
      add: [{ value: tooLong }, { value: "rule1000", tag: "last" }, { value: "rule1001" }, { value: "rule1002" }],
    });
    expect(over.status).toBe(201);
    expect(over.body.data).toEqual([{ id: expect.any(String), value: "rule1000", tag: "last" }]);
    expect(over.body.meta.summary).toEqual({ created: 1, not_created: 3, valid: 3, invalid: 1 });
    expect(over.body.errors).toEqual([
      {
        value: tooLong,
        details: ["Rule is longer than 1024 characters, the limit of the pro plan"],
        title: "UnprocessableEntity",
        type: "https://api.twitter.com/2/problems/invalid-rules",
      },
      ...["rule1001", "rule1002"].map((value) => ({
        value,
        title: "RuleCapExceeded",
        detail: expect.stringContaining("allows 1000 rules"),
        type: "https://api.twitter.com/2/problems/rule-cap",
      })),
    ]);
    const full = await rules(bearer, { add: [{ value: "one more" }] });
    expect(full.status).toBe(200);
    expect(full.body.errors[0].type).toBe("https://api.twitter.com/2/problems/rule-cap");
    expect((await w.t.bearer(bearer, "GET", RULES)).body.meta.result_count).toBe(1000);
    // Room again once a rule is deleted; a dry run checks against the same cap.
    await rules(bearer, { delete: { values: ["word0"] } });
    const dry = await rules(bearer, { add: [{ value: "x1" }, { value: "x2" }] }, { dry_run: "true" });
    expect(dry.body.meta.summary).toEqual({ created: 1, not_created: 1, valid: 2, invalid: 0 });
    expect(dry.body.errors.map((e: { value: string; type: string }) => [e.value, e.type])).toEqual([
      ["x2", "https://api.twitter.com/2/problems/rule-cap"],
    ]);
  });

  it("dry_run checks without changing anything; delete_all removes every rule", async () => {
    const { bearer } = await freshApp();
    const dry = await rules(bearer, { add: [{ value: "zebra" }] }, { dry_run: "true" });
    expect(dry.status).toBe(200);
    expect(dry.body.meta.summary).toEqual({ created: 1, not_created: 0, valid: 1, invalid: 0 });
    expect((await w.t.bearer(bearer, "GET", RULES)).body.meta.result_count).toBe(0);
    await rules(bearer, { add: [{ value: "a1" }, { value: "a2" }] });
    const all = await w.t.bearer(bearer, "POST", RULES, { query: { delete_all: "true" } });
    expect(all.status).toBe(200);
    expect(all.body.meta.summary).toEqual({ deleted: 2, not_deleted: 0 });
    expect((await w.t.bearer(bearer, "GET", RULES)).body.meta.result_count).toBe(0);
  });

  it("keeps no rules on a plan without a filtered stream and refuses malformed bodies", async () => {
    const { app } = await freshApp("basic");
    // The basic plan has no filtered stream (403 before any rule is read); the domain holds it to no rules.
    const { addRules } = await import("../../../src/sandbox/domain/rules.ts");
    const stored = w.t.sandbox.context.data.auth.apps[app.id]!;
    const none = addRules(w.t.sandbox.context, stored, [{ value: "word" }], false);
    expect(none.status).toBe(200);
    expect(none.errors[0]!.type).toBe("https://api.twitter.com/2/problems/rule-cap");

    const { bearer } = await freshApp();
    const neither = await rules(bearer, {});
    expect(neither.status).toBe(400);
    const extra = await rules(bearer, { add: [{ value: "x", colour: "red" }] });
    expect(extra.status).toBe(400);
    expect(extra.body.errors[0].message).toContain("$.add[0].colour");
  });
});

describe("filtered stream", () => {
  it("delivers new matching posts with matching_rules and includes, and counts them against the cap", async () => {
    const { app, bearer } = await freshApp();
    const r = await rules(bearer, { add: [{ value: "cat", tag: "cats" }, { value: "happy" }] });
    const [catRule, happyRule] = r.body.data;
    const s = await openStream(`${w.t.url}/2/posts/search/stream?expansions=author_id&post.fields=author_id`, {
      authorization: `Bearer ${bearer}`,
    });
    expect(s.status).toBe(200);
    await w.post(author, "nothing to see");
    const match = await w.post(author, "a happy cat");
    await s.until((x) => x.includes(match.id));
    const [msg] = lines(s.text());
    expect(msg).toEqual({
      data: { id: match.id, text: "a happy cat", edit_history_post_ids: [match.id], author_id: author.user.id },
      includes: { users: [{ id: author.user.id, name: "st_author", username: "st_author" }] },
      matching_rules: [
        { id: catRule.id, tag: "cats" },
        { id: happyRule.id, tag: "" },
      ],
    });
    expect(Object.values(w.t.sandbox.context.data.meter.posts_read[app.id] ?? {}).reduce((a, b) => a + b, 0)).toBe(1);

    // A rule added now applies to the next post, on the same connection.
    await rules(bearer, { add: [{ value: "giraffe", tag: "tall" }] });
    const g = await w.post(author, "a giraffe appears");
    await s.until((x) => x.includes(g.id));
    expect(lines(s.text())[1].matching_rules).toEqual([{ id: expect.any(String), tag: "tall" }]);
    s.close();
  });

  it("matches packed mention rules and keyword rules alike, each post with every rule it matches in the rules' order, as the rules change", async () => {
    const { bearer } = await freshApp();
    const packed = (names: string[]) => `(${names.map((n) => `@${n} OR to:${n}`).join(" OR ")}) -is:repost`;
    const first = Array.from({ length: 30 }, (_, i) => `pk_a${i}`);
    const second = Array.from({ length: 30 }, (_, i) => `pk_b${i}`);
    const r = await rules(bearer, {
      add: [
        { value: "owl", tag: "owls" },
        { value: packed(first), tag: "m1" },
        { value: packed(second), tag: "m2" },
        { value: "from:st_author -owl", tag: "author" },
      ],
    });
    const [owl, m1, m2, fromAuthor] = r.body.data;
    const s = await openStream(`${w.t.url}/2/posts/search/stream`, { authorization: `Bearer ${bearer}` });
    const rulesOf = async (text: string) => {
      const post = await w.post(author, text);
      await s.until((x) => x.includes(post.id));
      return lines(s.text())
        .find((l) => l.data.id === post.id)
        .matching_rules.map((m: { id: string }) => m.id);
    };
    expect(await rulesOf("hello @pk_b29 and @PK_A3")).toEqual([m1.id, m2.id, fromAuthor.id]);
    expect(await rulesOf("an owl for @pk_a0")).toEqual([owl.id, m1.id]);
    // A rule deleted now no longer matches; one added does, on the same connection.
    await rules(bearer, { delete: { ids: [m1.id] } });
    const added = await rules(bearer, { add: [{ value: packed(["pk_c0"]), tag: "m3" }] });
    expect(await rulesOf("an owl for @pk_a0 and @pk_c0")).toEqual([owl.id, added.body.data[0].id]);
    s.close();
  });

  it("allows one connection per app: a second gets 429 TooManyConnections; a hang-up frees it", async () => {
    const { bearer } = await freshApp();
    await rules(bearer, { add: [{ value: "anything" }] });
    const first = await openStream(`${w.t.url}/2/posts/search/stream`, { authorization: `Bearer ${bearer}` });
    expect(first.status).toBe(200);
    const second = await w.t.bearer(bearer, "GET", "/2/posts/search/stream");
    expect(second.status).toBe(429);
    expect(second.body).toEqual({
      title: "ConnectionException",
      detail: "This stream is currently at the maximum allowed connection limit.",
      connection_issue: "TooManyConnections",
      type: "https://api.twitter.com/2/problems/streaming-connection",
    });
    first.close();
    await vi.waitFor(async () => {
      const again = await openStream(`${w.t.url}/2/posts/search/stream`, { authorization: `Bearer ${bearer}` });
      again.close();
      expect(again.status).toBe(200);
    });
  });

  it("does not deliver protected accounts' posts", async () => {
    const { bearer } = await freshApp();
    await rules(bearer, { add: [{ value: "whisper" }] });
    const secret = await w.user("st_secret");
    await w.admin("PATCH", "/_sandbox/users", { id: secret.user.id, protected: true });
    const s = await openStream(`${w.t.url}/2/posts/search/stream`, { authorization: `Bearer ${bearer}` });
    await w.post(secret, "whisper quietly");
    const open = await w.post(author, "whisper loudly");
    await s.until((x) => x.includes(open.id));
    expect(lines(s.text())).toHaveLength(1);
    s.close();
  });
});

describe("sample stream", () => {
  it("delivers exactly the posts inSample picks (about 1%)", async () => {
    const { bearer } = await freshApp();
    const s = await openStream(`${w.t.url}/2/posts/sample/stream`, { authorization: `Bearer ${bearer}` });
    const made: string[] = [];
    for (let i = 0; i < 400; i++) made.push((await w.post(author, `sample post ${i}`)).id);
    const expected = made.filter(inSample);
    expect(expected.length).toBeGreaterThan(0);
    expect(expected.length).toBeLessThan(20);
    await s.until((x) => x.includes(expected.at(-1)!));
    expect(lines(s.text()).map((m) => m.data.id)).toEqual(expected);
    s.close();
  });
});
