/**
 * Mentions through the app's stream when several runtimes ("processes") share one real
 * Redis: one process holds the app's stream lease and runs its one connection; each mention
 * reaches the process running its bot through the handoff and is answered once; a process
 * that dies between delivery and acknowledgement loses nothing, its bots answer from the
 * process that takes them over, and nothing is answered twice; `bot status` shows the app as
 * the processes together run it. The sandbox and the bots run
 * on one frozen clock; leases renew on a running clock, and expire by Redis's real TTL. The
 * same on one redis-server and on a Redis Cluster of three masters (each bot's handoff stream
 * in its bot's slot, the app's bell and directory in the app's).
 */
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { definePlugin } from "../../src/plugins/plugin.ts";
import { connectRedis } from "../../src/redis/connect.ts";
import { redisKeys } from "../../src/redis/keys.ts";
import { handoffKeys, handoffState } from "../../src/redis/stream-handoff.ts";
import { collectStatus, formatStatus } from "../../src/hosting/status-report.ts";
import { readRedisState } from "../../src/redis/store.ts";
import { EVERY, scaleWorld, until, type ScaleProc as Proc, type ScaleWorld } from "../helpers/scale-world.ts";

/** Handlers wait at this gate while it is closed: the test holds posts "delivered, not yet handled". */
let gate: Promise<void> | undefined;
let openGate = () => {};
const echo = definePlugin({
  name: "echo",
  options: z.object({}),
  setup(bot) {
    bot.on("mention", async (ctx) => {
      await gate;
      await ctx.reply(`hi @${ctx.author.username} from ${bot.name}`);
    });
  },
});

const NAMES = ["s1", "s2", "s3", "s4", "s5", "s6"];
/** The app's hub has connected (in whichever process holds it) with mention rules for all six bots. */
async function streaming(w: ScaleWorld, ps: Proc[]): Promise<void> {
  const appId = w.hosted[0]!.app.id;
  await until("the app's stream is connected for all six bots", async () => {
    const redis = ps[0]!.shared.redis;
    return (
      (await handoffState(redis, appId)) === "connected" &&
      (await redis.hlen(handoffKeys(appId, redisKeys(redis)).directory)) === NAMES.length
    );
  });
  // A hub started before every bot was published restarts once it knows them all.
  await new Promise((r) => setTimeout(r, 6 * EVERY));
  await until(
    "connected again after the last restart",
    async () => (await handoffState(ps[0]!.shared.redis, appId)) === "connected",
  );
}

describe.each([
  ["one Redis", "server"],
  ["a Redis Cluster", "cluster"],
] as const)("mentions through the stream, processes sharing %s", (_, kind) => {
  const w = scaleWorld({ names: NAMES, plugin: echo, mentions: "stream", redis: kind });
  const { balanced, running, repliesOf, mentionEach } = w;
  const proc = w.proc;
  // Registered after the world's: runs before it (hooks unwind), so no handler holds a process's stop.
  afterEach(() => {
    openGate();
    gate = undefined;
  });

  it("one process runs the app's stream; every mention reaches its bot's process and is answered once", async () => {
    await w.start();
    const ps = [await proc("P1"), await proc("P2"), await proc("P3")];
    await until("two bots each", () => balanced(ps, 2));
    await streaming(w, ps);
    const appId = w.hosted[0]!.app.id;
    const posts = await mentionEach("hello");
    // Delivered by the one stream connection of the app (held by one process) ...
    await until("the stream delivered every mention", () =>
      [...posts.values()].every((id) => ps.some((p) => p.runtime.streamed(appId, id))),
    );
    expect(ps.filter((p) => [...posts.values()].some((id) => p.runtime.streamed(appId, id)))).toHaveLength(1);
    // ... and answered by the process running each bot, with the clock still where it was.
    await until("every mention answered", () => NAMES.every((bot) => repliesOf(bot).length >= 1));
    for (const p of ps) await p.runtime.idle();
    for (const bot of NAMES) expect(repliesOf(bot), bot).toEqual([posts.get(bot)]);

    // `bot status` on the shared state: each process's part of the app merged, the stream the holder's.
    const holder = ps.find((p) => [...posts.values()].some((id) => p.runtime.streamed(appId, id)))!;
    await w.clock.advance(15_000); // the status round: every process publishes its part
    const report = async () => {
      const store = await readRedisState(w.url);
      try {
        return collectStatus(store, w.clock);
      } finally {
        await store.close();
      }
    };
    // Parts published before the advance (at start, no posts yet) count until this round's are in.
    const apps = await until("every process's part of this round published", async () => {
      const app = (await report())[0]?.app;
      return app?.processes === 3 && app.bots === NAMES.length && app.stream?.posts === NAMES.length ? app : undefined;
    });
    expect(apps.stream).toMatchObject({ state: "connected", posts: NAMES.length, mentionBots: NAMES.length });
    expect(formatStatus(await report(), w.clock.now())).toMatch(
      new RegExp(`app ${appId}  pro  6 bots over 3 processes\n  stream     connected since`),
    );
    // A process that stops withdraws its part (its bots' count comes back with their new hosts' next round).
    const leaving = ps.find((p) => p !== holder)!;
    w.procs.splice(w.procs.indexOf(leaving), 1);
    await leaving.shared.stop();
    expect((await report())[0]?.app).toMatchObject({ processes: 2, stream: { state: "connected" } });
  }, 90_000);

  it("a process that dies between delivery and acknowledgement loses nothing and answers nothing twice", async () => {
    await w.start();
    const ps = [await proc("P1"), await proc("P2"), await proc("P3")];
    await until("two bots each", () => balanced(ps, 2));
    await streaming(w, ps);
    // Every handler waits at the gate: the posts are delivered, none is handled or acknowledged yet.
    gate = new Promise<void>((r) => (openGate = r));
    const posts = await mentionEach("are you there?");
    const ack = await connectRedis(w.url);
    const appId = w.hosted[0]!.app.id;
    const pending = async () => {
      let n = 0;
      for (const bot of NAMES)
        n += (
          (await ack.xpending(handoffKeys(appId, redisKeys(ack)).bot(bot), "handlers").catch(() => [0])) as [number]
        )[0];
      return n;
    };
    await until("all six delivered to their processes, unacknowledged", async () => (await pending()) === NAMES.length);
    // The process that does not hold the stream and runs two bots dies (kill -9: its Redis connection gone).
    const doomed = ps.find((p) => ![...posts.values()].some((id) => p.runtime.streamed(appId, id)))!;
    const orphans = [...doomed.runtime.bots.keys()];
    doomed.die();
    openGate();
    const survivors = ps.filter((p) => p !== doomed);
    await until(
      "the survivors run all six",
      () => running(survivors).length === NAMES.length && new Set(running(survivors)).size === NAMES.length,
    );
    await until("every mention answered", () => NAMES.every((bot) => repliesOf(bot).length >= 1));
    for (const p of survivors) await p.runtime.idle();
    await w.clock.advance(15_000);
    for (const p of survivors) await p.runtime.idle();
    for (const bot of NAMES) expect(repliesOf(bot), bot).toEqual([posts.get(bot)]);
    expect(orphans).toHaveLength(2);
    await until("nothing left unacknowledged", async () => (await pending()) === 0);
    ack.disconnect();
    w.procs.splice(w.procs.indexOf(doomed), 1);
    await Promise.race([doomed.runtime.stop().catch(() => undefined), new Promise((r) => setTimeout(r, 3_000))]); // it cannot save: its Redis is gone
  }, 90_000);
});
