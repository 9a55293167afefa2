import { afterEach, describe, expect, it } from "vitest";
import { createClient } from "../../src/api/client.ts";
import { createClock } from "../../src/clock.ts";
import { SPEC_LIMITS } from "../../src/limits/table.ts";
import { silentLogger } from "../../src/log.ts";
import { createSandbox, type Sandbox } from "../../src/sandbox/index.ts";
import { mergeRules, syncRules } from "../../src/triggers/stream/rules.ts";
import { type Budgeted, searchAll } from "../../src/triggers/stream/search.ts";

let sandbox: Sandbox | undefined;
const proMax = (endpoint: keyof typeof SPEC_LIMITS) =>
  (SPEC_LIMITS[endpoint].pro as ReadonlyArray<{ max: number }>)[0]!.max;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

describe("syncRules", () => {
  it("keeps the rules still wanted, deletes the rest, adds what is missing (a restart with changed bot files)", async () => {
    sandbox = await createSandbox({ clock: createClock({ frozen: true, start: Date.parse("2026-03-02T12:00:00Z") }) });
    const app = await sandbox.admin.createApp({ plan: "pro" });
    const client = createClient({
      baseUrl: sandbox.url,
      auth: { consumer: { key: app.consumer_key, secret: app.consumer_secret } },
    });
    const rules = () =>
      Object.values(sandbox!.context.data.world.stream_rules)
        .map((r) => `${r.id} ${r.value} ${r.tag}`)
        .sort();

    const first = await syncRules(
      { client, log: silentLogger },
      mergeRules([{ bot: "a", userId: "1", rules: [{ value: "#one", tag: "x" }, { value: "#two" }] }]),
    );
    const two = [...first.values()].find((r) => r.value === "#two")!;
    await syncRules(
      { client, log: silentLogger },
      mergeRules([{ bot: "a", userId: "1", rules: [{ value: "#two" }, { value: "#three", tag: "y" }] }]),
    );
    const after = rules();
    expect(after.map((r) => r.split(" ").slice(1).join(" ")).sort()).toEqual(["#three a/y", "#two a/"]);
    // The rule still wanted kept its id: it was neither deleted nor added again.
    expect(after).toContain(`${two.id} #two a/`);
    // A second bot wanting an existing value changes its tag: the rule is replaced.
    await syncRules(
      { client, log: silentLogger },
      mergeRules([
        { bot: "a", userId: "1", rules: [{ value: "#two" }, { value: "#three", tag: "y" }] },
        { bot: "b", userId: "2", rules: [{ value: "#two", tag: "z" }] },
      ]),
    );
    expect(
      rules()
        .map((r) => r.split(" ").slice(1).join(" "))
        .sort(),
    ).toEqual(["#three a/y", "#two a/,b/z"]);
    await client.close();
  });

  it("hands each request's headers to the budget with its answer, so the app's windows are corrected by them", async () => {
    sandbox = await createSandbox({ clock: createClock({ frozen: true, start: Date.parse("2026-03-02T12:00:00Z") }) });
    const app = await sandbox.admin.createApp({ plan: "pro" });
    const client = createClient({
      baseUrl: sandbox.url,
      auth: { consumer: { key: app.consumer_key, secret: app.consumer_secret } },
    });
    // Another process of the app already spent 3 rule reads: only the headers can say so.
    for (let i = 0; i < 3; i++) await client.request("GET /2/posts/search/stream/rules", {});
    const seen: Array<{ endpoint: string; remaining: unknown }> = [];
    const budgeted: Budgeted = async (endpoint, run) => {
      const { result, headers } = await run(new AbortController().signal);
      seen.push({ endpoint, remaining: headers?.["x-rate-limit-remaining"] });
      return result;
    };
    await syncRules(
      { client, log: silentLogger, budgeted },
      mergeRules([{ bot: "a", userId: "1", rules: [{ value: "#one" }] }]),
    );
    expect(seen).toEqual([
      {
        endpoint: "GET /2/posts/search/stream/rules",
        remaining: String(proMax("GET /2/posts/search/stream/rules") - 4),
      },
      {
        endpoint: "POST /2/posts/search/stream/rules",
        remaining: String(proMax("POST /2/posts/search/stream/rules") - 1),
      },
    ]);
    await client.close();
  });

  it("searchAll reads every page of a recent search, budgeted, oldest post first", async () => {
    const clock = createClock({ frozen: true, start: Date.parse("2026-03-02T12:00:00Z") });
    sandbox = await createSandbox({ clock });
    const app = await sandbox.admin.createApp({ plan: "pro" });
    const client = createClient({
      clock,
      baseUrl: sandbox.url,
      auth: { consumer: { key: app.consumer_key, secret: app.consumer_secret } },
    });
    const alice = await sandbox.admin.createUser({ username: "alice", name: "alice" });
    const start_time = new Date(clock.now() - 60_000);
    const made: string[] = [];
    for (let i = 0; i < 230; i++)
      made.push((await sandbox.admin.createPost({ author_id: alice.id, text: `#paged number ${i}` })).id);
    await sandbox.admin.createPost({ author_id: alice.id, text: "another subject" });
    const reads: string[] = [];
    const budgeted: Budgeted = async (endpoint, run) => {
      reads.push(endpoint);
      return (await run(new AbortController().signal)).result;
    };
    const found = await searchAll(budgeted, client, "#paged", { start_time }, new AbortController().signal);
    // 100 posts a page: three pages, each through the budget; every post once, oldest first.
    expect(reads).toEqual(Array(3).fill("GET /2/posts/search/recent"));
    expect(found.map((f) => f.post.id)).toEqual(made);
    expect(found[0]!.includes?.users?.map((u) => u.username)).toContain("alice");
    await client.close();
  });
});
