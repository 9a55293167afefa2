import { rm } from "node:fs/promises";
import { dirname } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { exampleBotsDir } from "../helpers/examples.ts";
import { killBots, runBot } from "../helpers/cli.ts";
import { startRedisServer } from "../helpers/redis-server.ts";
import { connectRedis } from "../../src/redis/connect.ts";
import { openRedisStore } from "../../src/redis/store.ts";

afterEach(killBots);

describe("--state and POSTBOT_STATE", () => {
  it("refuse what is not a redis:// URL, never showing a password, and say what to give", async () => {
    const run = await runBot(["status", "--state", "http://user:pw@cache:6379/0"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      '--state "http://cache:6379/0": give a Redis URL, redis://HOST:PORT/DB (e.g. redis://127.0.0.1:6379/0) or, for a Redis on this machine, its unix socket: unix:///PATH/TO/redis.sock?db=DB, or a Redis Cluster\'s nodes: redis+cluster://HOST:PORT,HOST:PORT,...; for a state directory use --data DIR',
    );
    const env = await runBot(["status"], { POSTBOT_STATE: "redis://cache:6379/zero" });
    expect(env.code).toBe(2);
    expect(env.stderr).toMatch(/POSTBOT_STATE: "redis:\/\/cache:6379\/zero": the database "\/zero" must be a number/);
  });

  it("bot start --lease: seconds from 3 to 600, and only with a state in Redis", async () => {
    // The five children at once: one after the other they took over 20 s at load 25.
    const bad = ["1", "0.5", "soon", "601"];
    const [alone, ...runs] = await Promise.all([
      runBot(["start", "--lease", "3"]),
      ...bad.map((value) => runBot(["start", "--state", "redis://127.0.0.1:6379/0", "--lease", value])),
    ]);
    for (const [i, run] of runs.entries()) {
      expect(run!.code, bad[i]).toBe(2);
      expect(run!.stderr).toBe(
        `bot: --lease ${bad[i]}: expected seconds from 3 to 600 (how long a process's bots stay its own once it stops renewing them; default 9)\n`,
      );
    }
    expect(alone).toMatchObject({
      code: 2,
      stderr:
        "bot: --lease is how long the bots shared in Redis stay a process's own; it needs --state (or POSTBOT_STATE): a --data directory is run by one process, with no leases\n",
    });
  }, 60_000);

  it("name the Redis that cannot be reached", async () => {
    const gone = await startRedisServer();
    await gone.close();
    const run = await runBot(["status", "--state", `redis://:secret@127.0.0.1:${gone.port}/0`]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      `cannot reach Redis at redis://127.0.0.1:${gone.port}/0 (--state): nothing listens there.`,
    );
    expect(run.stderr).not.toContain("secret");
    expect(run.stderr).not.toMatch(/\n\s+at /); // no stack trace
  });

  it("reach a Redis on this machine through its unix socket (unix:// or redis+unix://), and name a socket that is not there", async () => {
    const redis = await startRedisServer();
    try {
      const tcp = await connectRedis(redis.url);
      try {
        // A bot's status written over TCP is what `bot status` reads through the socket: the same Redis.
        const store = await openRedisStore({ redis: tcp, closeConnection: false });
        store.set("status", "greeter", {
          bot: "greeter",
          appId: "app",
          userId: "1",
          username: "greeter",
          plan: "basic",
          triggers: {},
        });
        await store.flush();
        for (const url of [redis.socketUrl, redis.socketUrl.replace(/^unix:/, "redis+unix:")]) {
          const status = await runBot(["status", "--json"], { POSTBOT_STATE: url });
          expect(status.code, status.stderr).toBe(0);
          expect((JSON.parse(status.stdout) as Array<{ bot: string }>).map((r) => r.bot)).toEqual(["greeter"]);
        }
      } finally {
        tcp.disconnect();
      }
      const missing = `${redis.socketUrl.replace("redis.sock", "nothing.sock")}&password=hush`;
      const run = await runBot(["status", "--state", missing]);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(
        `cannot reach Redis at unix://${missing.slice("unix://".length, missing.indexOf("?"))}?db=0 (--state): nothing listens there. Start Redis there (e.g. \`redis-server --unixsocket ${missing.slice("unix://".length, missing.indexOf("?"))}\`)`,
      );
      expect(run.stderr).not.toContain("hush");
      expect(run.stderr).not.toMatch(/\n\s+at /);
    } finally {
      await redis.close();
    }
    // Three `bot` children one after another: 6 s alone, over 20 s beside the whole suite.
  }, 60_000);

  it("bot start with a shared state needs a shared service, not an embedded sandbox each", async () => {
    const redis = await startRedisServer();
    try {
      const bots = await exampleBotsDir();
      const run = await runBot(["start", "--bots", bots], { POSTBOT_STATE: redis.url }).finally(() =>
        rm(dirname(bots), { recursive: true, force: true }),
      );
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(
        "POSTBOT_STATE: processes sharing a state in Redis must share one service too; set POSTBOT_BASE_URL",
      );
    } finally {
      await redis.close();
    }
  });
});
