/**
 * The live fleet across real `bot start --state redis://…` processes (issue 23 item 5): three
 * processes share one Redis and one service (a sandbox in this test process, real time). A bot
 * added through the admin API of one of them is claimed by exactly one process within a lease
 * period and answers its mention once; paused through another, it pauses wherever it runs;
 * resumed, it answers what waited, once; removed through a third, it stops everywhere. On one
 * redis-server and on a Redis Cluster of three masters. Waits are real and bounded; the
 * claim's time is printed, not asserted (speed is the bench's).
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { createClock } from "../../src/clock.ts";
import { provisionBots } from "../../src/hosting/provision.ts";
import { connectRedis, type Redis } from "../../src/redis/connect.ts";
import { createSandbox, type Sandbox } from "../../src/sandbox/index.ts";
import { compareIds } from "../../src/sandbox/model/index.ts";
import { testBotConfig } from "../../src/testing.ts";
import { killBots, lineReader, spawnBot } from "../helpers/cli.ts";
import { leaseHolders } from "../helpers/lease-holders.ts";
import { startRedisCluster } from "../helpers/redis-cluster.ts";
import { startRedisServer } from "../helpers/redis-server.ts";
import { until } from "../helpers/until.ts";

const TOKEN = "fleet-across-processes-token-0123";
const FILE_BOTS = ["f1", "f2", "f3"];
let server: { url: string; close(): Promise<void> } | undefined;
let sandbox: Sandbox | undefined;
let redis: Redis | undefined;
const dirs: string[] = [];
/** What a test made, ended once its processes are killed (the hooks run last first); each kind of Redis runs its own. */
afterEach(async () => {
  redis?.disconnect();
  await sandbox?.close();
  await server?.close();
  redis = undefined;
  sandbox = undefined;
  server = undefined;
});
afterEach(killBots);
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

/** A bot's file; `ownApp`: on the app of the environment's `UP_APP_KEY` and `UP_APP_SECRET`. */
const botFile = (name: string, up: string, ownApp = false) =>
  `name: ${name}\nplan: pro\n${ownApp ? `app:\n  consumer_key: \${${up}_APP_KEY}\n  consumer_secret: \${${up}_APP_SECRET}\n` : ""}account:\n  token: \${${up}_TOKEN}\n  token_secret: \${${up}_SECRET}\ntriggers: { mentions: { via: poll } }\nplugins: { reply: { text: "${name} here: {post.body}" } }\n`;

describe.each([
  ["one Redis", startRedisServer],
  ["a Redis Cluster", () => startRedisCluster()],
] as const)("the live fleet across processes sharing %s", (kind, startRedis) => {
  it("a bot added through one process is run by exactly one; paused through another it pauses where it runs; removed it stops everywhere", async (ctx) => {
    server = await startRedis();
    redis = await connectRedis(server.url);
    sandbox = await createSandbox({ clock: createClock() });
    const names = [...FILE_BOTS, "dyn"];
    const hosted = await provisionBots(
      sandbox,
      // dyn on an app of its own: its mentions polled every 3 s (pro), not every 8 s as four bots sharing one app's window.
      names.map((name) =>
        testBotConfig(
          {
            name,
            plan: "pro",
            ...(name === "dyn" ? { app: { consumer_key: "app-of-dyn", consumer_secret: "-" } } : {}),
            triggers: { mentions: { via: "poll" } },
            plugins: {},
          },
          {},
        ),
      ),
    );
    const dir = await mkdtemp(join(tmpdir(), "postbot-fleet-redis-"));
    dirs.push(dir);
    const env: Record<string, string> = {
      POSTBOT_BASE_URL: sandbox.url,
      POSTBOT_CONSUMER_KEY: hosted[0]!.app.key,
      POSTBOT_CONSUMER_SECRET: hosted[0]!.app.secret,
      POSTBOT_STATE: server.url,
      POSTBOT_ADMIN_TOKEN: TOKEN,
    };
    for (const h of hosted) {
      const up = h.config.name.toUpperCase();
      env[`${up}_TOKEN`] = h.token.token;
      env[`${up}_SECRET`] = h.token.secret;
      env[`${up}_APP_KEY`] = h.app.key;
      env[`${up}_APP_SECRET`] = h.app.secret;
      if (FILE_BOTS.includes(h.config.name))
        await writeFile(join(dir, `${h.config.name}.yaml`), botFile(h.config.name, up));
    }
    const processes = [0, 1, 2].map(() => {
      // A 3 s lease, renewed every second: the processes read each other's fleet changes at each
      // renewal, so every second rather than every 3 s (the default 9 s lease's).
      const child = spawnBot(
        ["start", "--bots", dir, "--plugins", "plugins", "--http", "127.0.0.1:0", "--lease", "3"],
        { env },
      );
      const out = lineReader(child.stdout);
      return { child, out, http: "" };
    });
    // On a failure, what each process said about the fleet, for whoever reads the report.
    ctx.onTestFailed(() => {
      for (const [i, p] of processes.entries())
        console.log(
          `process ${i} (pid ${p.child.pid}):\n${p.out.lines
            .filter((l) => /dyn|fleet|claim|lease/.test(l))
            .slice(-30)
            .join("\n")}`,
        );
    });
    for (const p of processes) {
      await p.out.waitFor(/all bots started/);
      p.http = JSON.parse(await p.out.waitFor(/"msg":"status page at/)).http as string;
    }
    const api = (p: (typeof processes)[number], path: string, init: RequestInit = {}) =>
      fetch(`${p.http}/api/admin/bots${path}`, {
        ...init,
        headers: { authorization: `Bearer ${TOKEN}`, ...(init.headers ?? {}) },
      });
    const stateOf = async (p: (typeof processes)[number]) =>
      ((await (await api(p, "")).json()) as { bots: Array<{ name: string; state: string }> }).bots.find(
        (b) => b.name === "dyn",
      )?.state;
    const pids = processes.map((p) => p.child.pid!);
    const holder = async () => (await leaseHolders(redis!, ["dyn"])).get("dyn");

    const alice = await sandbox.admin.createUser({ username: "alice", name: "alice" });
    const dynId = hosted.find((h) => h.config.name === "dyn")!.user.id;
    const replies = (to: string) =>
      Object.values(sandbox!.context.data.world.posts)
        .filter((p) => p.author_id === dynId && p.in_reply_to_post_id === to)
        .sort((a, b) => compareIds(a.id, b.id));

    // Added through the first process.
    const addedAt = Date.now();
    const added = await api(processes[0]!, "", { method: "POST", body: botFile("dyn", "DYN", true) });
    expect(added.status, await added.clone().text()).toBe(201);
    const runner = await until("dyn claimed by a process", async () => (await holder()) || undefined, 20_000, 50);
    console.log(
      `${kind}: a bot added through the admin API of 1 of 3 processes: claimed after ${((Date.now() - addedAt) / 1000).toFixed(1)} s`,
    );
    expect(pids).toContain(runner);
    const running = processes[pids.indexOf(runner)]!;
    const others = processes.filter((p) => p !== running);
    // Every process learns of it (at its next renewal); only the lease holder runs it.
    await until(
      "every process knows dyn",
      async () => (await Promise.all(processes.map(stateOf))).every((s) => s !== undefined) || undefined,
      20_000,
      100,
    );
    expect(await stateOf(running)).toBe("running");
    for (const p of others) expect(await stateOf(p)).toBe("elsewhere");
    const first = await sandbox.admin.createPost({ author_id: alice.id, text: "@dyn first question" });
    await until("dyn answers", () => replies(first.id).length > 0 || undefined, 60_000, 100);

    // Paused through a process that does not run it: the one that does pauses it.
    const paused = await api(others[0]!, "/dyn/pause", { method: "POST" });
    expect(paused.status).toBe(200);
    await until("paused where it runs", async () => (await stateOf(running)) === "paused" || undefined, 20_000, 100);
    const second = await sandbox.admin.createPost({ author_id: alice.id, text: "@dyn second question" });
    // Resumed through the other: what waited is answered, once.
    expect((await api(others[1]!, "/dyn/resume", { method: "POST" })).status).toBe(200);
    await until("running again", async () => (await stateOf(running)) === "running" || undefined, 20_000, 100);
    await until("dyn answers what waited", () => replies(second.id).length > 0 || undefined, 60_000, 100);

    // Removed through the third: it stops where it runs, and nobody claims it again.
    expect((await api(others[1]!, "/dyn", { method: "DELETE" })).status).toBe(204);
    await until(
      "dyn gone from every process, its lease released",
      async () =>
        ((await Promise.all(processes.map(stateOf))).every((s) => s === undefined) && (await holder()) === undefined) ||
        undefined,
      20_000,
      100,
    );
    // (Gone from every process's fleet means forgotten by every process's claims: none claims it again.)
    // Each question answered exactly once.
    expect(replies(first.id)).toHaveLength(1);
    expect(replies(second.id)).toHaveLength(1);

    for (const p of processes) {
      const exit = new Promise<number | null>((resolve) => p.child.once("exit", (code) => resolve(code)));
      p.child.kill("SIGTERM");
      expect(await exit).toBe(0);
    }
  }, 180_000);
});
