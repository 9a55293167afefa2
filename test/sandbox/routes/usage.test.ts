import { beforeAll, describe, expect, it } from "vitest";
import type { Account } from "../../helpers/sandbox.ts";
import { useWorld } from "./world.ts";

const w = useWorld({ plan: "basic" });
let bearer: string;
let alice: Account;
const DAY = 24 * 3_600_000;

beforeAll(async () => {
  bearer = await w.t.appBearer(w.app);
  alice = await w.user("us_a");
  for (let i = 0; i < 12; i++) await w.post(alice, `cats number ${i}`);
  await w.t.clock.advance(60_000);
});

const usage = (query?: Record<string, string>) => w.t.bearer(bearer, "GET", "/2/usage/posts", query ? { query } : {});

describe("usage", () => {
  it("counts the posts recent search really delivered, per day, against the plan's monthly cap", async () => {
    expect((await usage()).body).toEqual({
      data: { project_id: w.app.id, project_cap: "500000", project_usage: "0", cap_reset_day: 2 },
    });

    const page1 = await w.get(alice, "/2/posts/search/recent", { query: "cats" });
    expect(page1.body.data).toHaveLength(10);
    const page2 = await w.get(alice, "/2/posts/search/recent", {
      query: "cats",
      next_token: page1.body.meta.next_token,
    });
    expect(page2.body.data).toHaveLength(2);
    expect((await w.get(alice, "/2/posts/search/recent", { query: "dogs" })).body.meta.result_count).toBe(0);
    expect((await usage()).body.data.project_usage).toBe("12");

    await w.t.admin.advanceClock(DAY);
    const appSearch = await w.t.bearer(bearer, "GET", "/2/posts/search/recent", {
      query: { query: "cats", max_results: "10" },
    });
    expect(appSearch.body.data).toHaveLength(10);

    const daily = await usage({
      days: "3",
      "usage.fields": "daily_project_usage,daily_client_app_usage,project_usage",
    });
    const series = [
      { date: "2026-03-01T00:00:00.000Z", usage: "0" },
      { date: "2026-03-02T00:00:00.000Z", usage: "12" },
      { date: "2026-03-03T00:00:00.000Z", usage: "10" },
    ];
    expect(daily.body).toEqual({
      data: {
        project_usage: "22",
        daily_project_usage: { project_id: w.app.id, usage: series },
        daily_client_app_usage: [{ client_app_id: w.app.id, usage: series, usage_result_count: 3 }],
      },
    });
    expect((await usage()).body.data.project_usage).toBe("22");
    expect((await usage({ "usage.fields": "daily_project_usage" })).body.data.daily_project_usage.usage).toHaveLength(
      7,
    );
  });

  it("gives no cap for a plan without one, and refuses bad parameters and user contexts", async () => {
    const pro = await w.t.admin.createApp({ plan: "pro" });
    const proBearer = await w.t.appBearer(pro);
    const res = await w.t.bearer(proBearer, "GET", "/2/usage/posts");
    expect(res.body).toEqual({
      data: { project_id: pro.id, project_usage: "0", cap_reset_day: new Date(w.t.clock.now()).getUTCDate() },
    });
    expect((await usage({ days: "91" })).status).toBe(400);
    expect((await usage({ days: "0" })).status).toBe(400);
    expect((await usage({ "usage.fields": "cost" })).status).toBe(400);
    expect((await usage({ granularity: "day" })).status).toBe(400);
    expect((await w.get(alice, "/2/usage/posts")).status).toBe(403);
  });
});
