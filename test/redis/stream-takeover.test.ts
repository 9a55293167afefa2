/**
 * Stream rules across processes sharing one real Redis, when the process holding the app's
 * stream dies (its Redis connection gone: it can neither renew nor hand anything over): the
 * posts that matched while no process held the stream (until its lease ran out and another
 * took the stream over) are found by the new holder's gap search, from where the dead one's
 * stream left off (its mark, in Redis), and liked once by each bot; nothing is liked twice.
 * The bots and the sandbox run on one frozen clock; leases renew on a running clock and expire
 * by Redis's real TTL (bounded waits).
 */
import { describe, expect, it } from "vitest";
import { definePlugin } from "../../src/plugins/plugin.ts";
import { handoffState } from "../../src/redis/stream-handoff.ts";
import { streamMarkKey } from "../../src/redis/stream-marks.ts";
import { scaleWorld, until, type ScaleProc } from "../helpers/scale-world.ts";

const liker = definePlugin({
  name: "liker",
  setup(bot) {
    bot.on("post", async (ctx) => {
      await ctx.like();
    });
  },
});

const NAMES = ["t1", "t2", "t3"];
const w = scaleWorld({ names: NAMES, plugin: liker, mentions: "poll", rule: "#cats" });

describe("stream rules when the stream's holder dies", () => {
  it("the process taking the stream over recovers what matched meanwhile: every post liked once by every bot", async () => {
    await w.start();
    const ps = [await w.proc("P1"), await w.proc("P2"), await w.proc("P3")];
    await until("one bot each", () => w.balanced(ps, 1));
    const appId = w.hosted[0]!.app.id;
    const redis = ps[0]!.shared.redis;
    await until("the app's stream connected with all three bots' rules", async () => {
      if ((await handoffState(redis, appId)) !== "connected") return false;
      return (
        ps.some(
          (p) => p.runtime.apps()[0]?.stream?.rules.own === 1 && p.runtime.apps()[0]?.stream?.state === "connected",
        ) && (await redis.hlen(`postbot:handoff:${appId}:bots`)) === NAMES.length
      );
    });
    const alice = await w.sandbox.admin.createUser({ username: "alice", name: "alice" });
    const post = async (text: string) => (await w.sandbox.admin.createPost({ author_id: alice.id, text })).id;
    const users = new Map(w.hosted.map((h) => [h.user.id, h.config.name]));
    const likers = (postId: string) =>
      w.sandbox.context.data.world.likes
        .filter((l) => l.post_id === postId && users.has(l.user_id))
        .map((l) => users.get(l.user_id)!)
        .sort();
    const holder = (): ScaleProc | undefined => ps.find((p) => p.runtime.apps()[0]?.stream?.state === "connected");

    const first = await post("#cats before");
    await until("liked by all three", () => likers(first).length === NAMES.length);
    await until("the mark written", async () => (await redis.get(streamMarkKey("postbot:", appId))) !== null);

    // The holder dies; posts come while nobody holds the stream.
    const dead = holder()!;
    dead.die();
    const survivors = ps.filter((p) => p !== dead);
    const during: string[] = [];
    for (let i = 0; i < 10; i++) during.push(await post(`#cats while the stream is dead ${i}`));
    await until("a survivor holds the stream", () =>
      survivors.some((p) => p.runtime.apps().some((a) => a.stream?.state === "connected")),
    );
    await until("every survivor runs a share", () => new Set(w.running(survivors)).size === NAMES.length);
    const after = await post("#cats after the takeover");
    await until(
      "every post liked by every bot",
      () => [...during, after].every((id) => likers(id).length === NAMES.length),
      30_000,
    );
    for (const p of survivors) await p.runtime.idle();
    for (const id of [first, ...during, after]) expect(likers(id), id).toEqual(NAMES);
    const taker = survivors.find((p) => p.runtime.apps().some((a) => a.stream?.gaps.count))!;
    const gap = taker.lines.find((l) => /^stream gap of .* since this app's stream last ran/.test(String(l.msg)));
    expect(gap?.msg).toMatch(/recovered (1[0-1]) posts/);
    w.procs.splice(w.procs.indexOf(dead), 1);
    await Promise.race([dead.runtime.stop().catch(() => undefined), new Promise((r) => setTimeout(r, 3_000))]);
  }, 90_000);
});
