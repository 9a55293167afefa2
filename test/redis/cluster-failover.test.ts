/**
 * A Redis Cluster master dies under real `bot start --state redis+cluster://…` processes: the
 * cluster (three masters, each with a replica; a node judged failed after 2 s) promotes the
 * dead master's replica, the processes' commands to its slots wait for it and go on there, and
 * every mention, made before, during and after the failover, is answered exactly once by its
 * bot. Three processes share six bots (each on an app of its own, polled every 3 s, `--lease 3`).
 * Then one of the processes is killed with SIGKILL, and the other two take its bots over on the
 * cluster, every mention still answered once (test/redis/kill9-processes.test.ts does the same
 * on one redis-server; one cluster serves both here, to keep the suite short). Waits are real
 * and bounded; the failover's and the answers' times are printed, not asserted (speed is the
 * bench's).
 */
import { afterEach, describe, expect, it } from "vitest";
import { connectRedis } from "../../src/redis/connect.ts";
import { Leases } from "../../src/redis/leases.ts";
import { killBots } from "../helpers/cli.ts";
import { leaseHolders } from "../helpers/lease-holders.ts";
import { pollDeployment } from "../helpers/poll-deployment.ts";
import { startRedisCluster } from "../helpers/redis-cluster.ts";
import { until } from "../helpers/until.ts";

const NAMES = ["m1", "m2", "m3", "m4", "m5", "m6"];
afterEach(killBots);

describe("bot start on a Redis Cluster whose master fails", () => {
  it("its replica is promoted; the bots of its slots answer again; after kill -9 of a process the others take its bots; every mention answered once", async () => {
    const cluster = await startRedisCluster({ replicas: 1 });
    const redis = await connectRedis(cluster.url);
    const d = await pollDeployment(NAMES, cluster.url, 3);
    try {
      const children = [d.start(), d.start(), d.start()];
      for (const c of children) await c.out.waitFor(/all bots started/);
      const pids = children.map((c) => c.child.pid!);
      await until(
        "every bot held by a process",
        async () => [...(await leaseHolders(redis, NAMES)).values()].every((pid) => pids.includes(pid!)) || undefined,
        60_000,
        100,
      );
      const answered = (mentions: Array<{ id: string }>) => () =>
        mentions.every((m) => d.answers().has(m.id)) || undefined;
      const before = await d.mentionAll("before the failover");
      await until("the first mentions answered", answered(before), 60_000, 100);

      // The master serving the slots of the most bots (their leases, state, ledger) dies.
      const leases = new Leases(redis);
      const masterOf = await Promise.all(NAMES.map((bot) => cluster.masterOf(leases.key(`bot:${bot}`))));
      const counts = new Map<number, number>();
      for (const m of masterOf) counts.set(m.port, (counts.get(m.port) ?? 0) + 1);
      const victim = masterOf.find((m) => counts.get(m.port) === Math.max(...counts.values()))!;
      const victimBots = NAMES.filter((_, i) => masterOf[i] === victim);
      const killedAt = Date.now();
      const failover = cluster.killMaster(victim);
      const during = await d.mentionAll("while a master fails");
      const promotedMs = await failover;
      await until(
        "the bots of the dead master's slots answer",
        answered(during.filter((m) => victimBots.includes(m.bot))),
        90_000,
        100,
      );
      const againMs = Date.now() - killedAt;
      await until("every mention made during the failover answered", answered(during), 90_000, 100);
      const after = await d.mentionAll("after the failover");
      await until("the mentions after it answered", answered(after), 60_000, 100);
      console.log(
        `a master of 3 killed (${victimBots.length} of ${NAMES.length} bots in its slots): its replica promoted after ${(promotedMs / 1000).toFixed(1)} s; those bots answering again ${(againMs / 1000).toFixed(1)} s after the kill`,
      );

      // Then kill -9 of a postbot process: the others take its bots over on the cluster.
      const [dead, ...survivors] = children;
      const deadBots = [...(await leaseHolders(redis, NAMES))].filter(([, pid]) => pid === dead!.child.pid);
      const killedProcessAt = Date.now();
      dead!.child.kill("SIGKILL");
      const orphaned = await d.mentionAll("after a process was killed");
      await until(
        "every bot held by a survivor",
        async () => {
          const held = await leaseHolders(redis, NAMES);
          return NAMES.every((bot) => survivors.some((c) => c.child.pid === held.get(bot))) || undefined;
        },
        60_000,
        100,
      );
      await until("the mentions after the process's kill answered", answered(orphaned), 60_000, 100);
      console.log(
        `then kill -9 of 1 of 3 processes: its ${deadBots.length} bots answering again ${((Date.now() - killedProcessAt) / 1000).toFixed(1)} s after the kill`,
      );
      // Exactly once, by the bot mentioned.
      for (const m of [...before, ...during, ...after, ...orphaned])
        expect(d.answers().get(m.id), `${m.bot}: ${m.id}`).toEqual([m.bot]);
      for (const c of survivors) {
        const exit = new Promise<number | null>((resolve) => c.child.once("exit", (code) => resolve(code)));
        c.child.kill("SIGTERM");
        expect(await exit, [...c.out.lines, ...c.err.lines].slice(-30).join("\n")).toBe(0);
      }
    } finally {
      redis.disconnect();
      await killBots();
      await d.close();
      await cluster.close();
    }
  }, 240_000);
});
