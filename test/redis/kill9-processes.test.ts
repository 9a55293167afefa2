/**
 * Real `bot start --state …` processes sharing one Redis and one service (a sandbox in this
 * test process, on real time): three share six bots (each on an app of its own, so each is
 * polled every 3 s); one is killed with SIGKILL and the other two take its bots over once its
 * leases run out; every mention is answered exactly once throughout. The processes run with
 * `--lease 3` (3 s ttl, renewed every second): the same takeover as with the default 9 s,
 * sooner. On one redis-server (test/redis/cluster-failover.test.ts kills a process on a Redis
 * Cluster, after a master's failover).
 * Waits are real (lease expiry is Redis's real TTL) and bounded; the takeover time is printed,
 * not asserted (speed is the bench's).
 */
import { afterEach, describe, expect, it } from "vitest";
import { connectRedis } from "../../src/redis/connect.ts";
import { Leases } from "../../src/redis/leases.ts";
import { killBots, runBot } from "../helpers/cli.ts";
import { leaseHolders } from "../helpers/lease-holders.ts";
import { pollDeployment } from "../helpers/poll-deployment.ts";
import { startRedisServer } from "../helpers/redis-server.ts";
import { until } from "../helpers/until.ts";

const NAMES = ["k1", "k2", "k3", "k4", "k5", "k6"];
/** The processes' lease (`--lease`). */
const LEASE_MS = 3_000;
afterEach(killBots);

describe("bot start --state in several processes, sharing one Redis", () => {
  it("three processes share the bots; after kill -9 of one the others take its bots over; every mention answered once", async () => {
    const server = await startRedisServer();
    const redis = await connectRedis(server.url);
    const d = await pollDeployment(NAMES, server.url, LEASE_MS / 1000);
    try {
      const children = [d.start(), d.start(), d.start()];
      for (const c of children) await c.out.waitFor(/all bots started/);
      const owners = () => leaseHolders(redis, NAMES);
      const pids = children.map((c) => c.child.pid!);
      await until(
        "two bots per process",
        async () => {
          const held = await owners();
          return pids.every((pid) => [...held.values()].filter((p) => p === pid).length === 2) || undefined;
        },
        60_000,
        100,
      );
      // Their leases are --lease's: the claims (no ttl of their own) live by their processes'
      // heartbeats, renewed to 3 s, never the default 9 s.
      const leases = new Leases(redis);
      const ttls = await Promise.all(NAMES.map(async (bot) => (await leases.holder(`bot:${bot}`))?.ttlMs ?? -2));
      expect(
        ttls.every((ms) => ms > 0 && ms <= LEASE_MS),
        `lease ttls ${ttls.join(", ")} ms`,
      ).toBe(true);

      const allAnswered = (mentions: Array<{ id: string }>) => () =>
        mentions.every((m) => d.answers().has(m.id)) || undefined;
      const before = await d.mentionAll("before the kill");
      await until("the first mentions answered", allAnswered(before), 60_000, 100);

      // kill -9 one process; mention every bot at once.
      const victim = children[0]!;
      const victimBots = [...(await owners())].filter(([, pid]) => pid === victim.child.pid).map(([bot]) => bot);
      const killedAt = Date.now();
      victim.child.kill("SIGKILL");
      const after = await d.mentionAll("after the kill");
      await until(
        "the victim's bots held by the survivors",
        async () => {
          const held = await owners();
          return victimBots.every((bot) => pids.slice(1).includes(held.get(bot)!)) || undefined;
        },
        60_000,
        100,
      );
      const takenOverMs = Date.now() - killedAt;
      await until("the mentions after the kill answered", allAnswered(after), 60_000, 100);
      const answeredMs = Date.now() - killedAt;
      console.log(
        `kill -9 of 1 of 3 processes: its ${victimBots.length} bots held by the others after ${(takenOverMs / 1000).toFixed(1)} s, answering ${(answeredMs / 1000).toFixed(1)} s after the kill`,
      );

      // Exactly once, by the bot mentioned.
      for (const m of [...before, ...after]) expect(d.answers().get(m.id), `${m.bot}: ${m.id}`).toEqual([m.bot]);
      // Every bot held by a survivor: waited for, since a survivor balancing its share gives a
      // bot back a moment before the other claims it (seen once in five runs under load).
      await until(
        "every bot held by a survivor",
        async () => {
          const held = await owners();
          return NAMES.every((bot) => pids.slice(1).includes(held.get(bot)!)) || undefined;
        },
        15_000,
        100,
      );

      // The survivors stop cleanly and give their bots back; `bot status` reads the same Redis.
      for (const c of children.slice(1)) {
        const exit = new Promise<number | null>((resolve) => c.child.once("exit", (code) => resolve(code)));
        c.child.kill("SIGTERM");
        expect(await exit).toBe(0);
      }
      expect([...(await owners()).values()].every((pid) => pid === undefined)).toBe(true);
      const status = await runBot(["status", "--state", server.url, "--json"]);
      expect(status.code, status.stderr).toBe(0);
      expect((JSON.parse(status.stdout) as Array<{ bot: string }>).map((r) => r.bot).sort()).toEqual(NAMES);
      expect(status.stdout).not.toContain(d.hosted[0]!.token.secret);
    } finally {
      redis.disconnect();
      await killBots();
      await d.close();
      await server.close();
    }
  }, 180_000);
});
