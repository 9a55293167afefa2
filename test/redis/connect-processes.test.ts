/**
 * A connect flow's callback reaching another process than the one that started it (issue 23
 * item 2; a load balancer in front of several `bot start --http`): two fleets with their
 * connect pages, sharing one service (a sandbox) and its app, whose settings list both
 * callbacks. With the state in directories (sign-ins in each process's memory) the other
 * process does not know the flow: a clear page, nothing stored there, and the process that
 * started it still finishes it. With the state in one Redis (sign-ins there too) the other
 * process finishes it; the bot is kept in the shared state, runs on exactly one process, and
 * answers each mention once.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { createClock } from "../../src/clock.ts";
import { getAccount } from "../../src/credentials/accounts.ts";
import { compareIds } from "../../src/sandbox/model/index.ts";
import { echoTemplate, signInAndApprove, startConnectServer, type ConnectServer } from "../helpers/connect-server.ts";
import { startRedisServer, type RedisServer } from "../helpers/redis-server.ts";
import { startSandbox, type TestSandbox } from "../helpers/sandbox.ts";

let redis: RedisServer | undefined;
let t: TestSandbox | undefined;
const servers: ConnectServer[] = [];

beforeAll(async () => {
  redis = await startRedisServer();
}, 30_000);
afterAll(() => redis?.close());
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
  await t?.close();
  t = undefined;
});

/** A sandbox, its app, and two fleets on it; the app's settings list both fleets' callbacks. */
async function twoFleets(state?: string): Promise<[ConnectServer, ConnectServer]> {
  // On Redis the bots are claimed by leases, renewed as time passes: a real clock there.
  t = await startSandbox(state ? { clock: createClock() } : {});
  const app = await t.admin.createApp({ name: "Greeters", plan: "pro", callback_urls: ["http://127.0.0.1/none"] });
  const env = {
    POSTBOT_BASE_URL: t.url,
    POSTBOT_CONSUMER_KEY: app.consumer_key,
    POSTBOT_CONSUMER_SECRET: app.consumer_secret,
  };
  const keeperUser = await t.admin.createUser({ username: "keeper", name: "keeper" });
  const keeper = await t.admin.createToken({ consumer_key: app.consumer_key, user_id: keeperUser.id });
  const files = {
    "keeper.yaml": `name: keeper\nplan: pro\naccount:\n  token: ${keeper.token}\n  token_secret: ${keeper.token_secret}\ntriggers:\n  mentions: {}\nplugins:\n  echo:\n    text: keeper\n`,
  };
  for (const _ of [1, 2])
    servers.push(
      await startConnectServer({
        files,
        templates: { "greeter.yaml": echoTemplate("greeter", "hello") },
        env,
        clock: t.clock,
        ...(state ? { state } : {}),
      }),
    );
  await t.admin.updateApp({
    consumer_key: app.consumer_key,
    callback_urls: servers.map((s) => `${s.url}/connect/callback`),
  });
  await t.admin.createUser({ username: "zoe", name: "Zoe" });
  return [servers[0]!, servers[1]!];
}

/** The callback `back` (on `from`'s address) delivered to `to` instead. */
const elsewhere = (back: string, from: ConnectServer, to: ConnectServer) => back.replace(from.url, to.url);

async function page(url: string) {
  const res = await fetch(url, { redirect: "manual" });
  const html = await res.text();
  return { status: res.status, title: /<h1>([^<]*)<\/h1>/.exec(html)?.[1] };
}

function postsOf(username: string): string[] {
  const { data } = t!.sandbox.context;
  const u = Object.values(data.world.users).find((x) => x.username === username);
  return Object.values(data.world.posts)
    .filter((p) => p.author_id === u?.id)
    .sort((a, b) => compareIds(a.id, b.id))
    .map((p) => p.text);
}

describe("a connect callback on another process", () => {
  it("state in directories: the other process does not know the flow and stores nothing; the one that started it finishes it", async () => {
    const [a, b] = await twoFleets();
    const back = await signInAndApprove(`${a.url}/connect/greeter`, "zoe");
    expect(back.startsWith(`${a.url}/connect/callback?`)).toBe(true);

    const there = await page(elsewhere(back, a, b));
    expect(there).toEqual({ status: 400, title: "This sign-in is unknown or over" });
    expect(getAccount(b.started.store, "greeter-zoe")).toBeUndefined();
    expect(await b.started.dynamic.list()).toEqual([]);
    expect([...b.started.runtime.fleet().keys()]).toEqual(["keeper"]);

    const here = await page(back);
    expect(here).toEqual({ status: 200, title: "@zoe is connected" });
    expect(getAccount(a.started.store, "greeter-zoe")?.username).toBe("zoe");
    expect([...a.started.runtime.fleet().keys()].sort()).toEqual(["greeter-zoe", "keeper"]);
  }, 60_000);

  it("state in one Redis: the other process finishes the flow; the bot is in the shared state, runs on exactly one process, answers once", async () => {
    const [a, b] = await twoFleets(redis!.url);
    const back = await signInAndApprove(`${a.url}/connect/greeter`, "zoe");
    const done = await page(elsewhere(back, a, b));
    expect(done).toEqual({ status: 200, title: "@zoe is connected" });
    // Taken once: the same callback on the first process is over.
    expect(await page(back)).toEqual({ status: 400, title: "This sign-in is unknown or over" });

    expect(getAccount(b.started.store, "greeter-zoe")?.username).toBe("zoe");
    for (const s of [a, b])
      expect(await s.started.dynamic.get("greeter-zoe")).toMatchObject({ origin: "connect:greeter", by: "@zoe" });
    // Claimed by exactly one process (the one that added it, at once; within a lease period at most).
    const runningOn = () =>
      [a, b].filter((s) => s.started.fleet.list().find((e) => e.name === "greeter-zoe")?.state === "running");
    await vi.waitFor(() => expect(runningOn()).toHaveLength(1), { timeout: 20_000, interval: 20 });

    const bob = await t!.admin.createUser({ username: "bob", name: "bob" });
    await t!.admin.createPost({ author_id: bob.id, text: "@zoe anyone home?" });
    await vi.waitFor(() => expect(postsOf("zoe")).toEqual(["hello for @zoe: anyone home?"]), {
      timeout: 20_000,
      interval: 20,
    });
    expect(runningOn()).toHaveLength(1);
  }, 60_000);
});
