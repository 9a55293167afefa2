/**
 * A person's review with the state in Redis: the `moderate` plugin lists a reply in the bot's
 * review queue (core's, `review:<bot>`, in the bot's hash), a decision on it is recorded there
 * and kept as one of the operator's labels (the shared `moderation-labels` hash), which another
 * process opening the state reads, as `bot moderation train --state` does.
 */
import { afterEach, describe, expect, it } from "vitest";
import moderate from "../../plugins/moderate.ts";
import { sandboxUsername } from "../../src/hosting/provision.ts";
import { ReviewDesk } from "../../src/hosting/review-desk.ts";
import { silentLogger } from "../../src/log.ts";
import { operatorLabels } from "../../src/moderation/training/labels.ts";
import { ReviewQueue } from "../../src/plugins/review-queue.ts";
import { connectRedis, type Redis } from "../../src/redis/connect.ts";
import { openRedisStore } from "../../src/redis/store.ts";
import type { Store } from "../../src/store/store.ts";
import { createTestBed, type TestBed } from "../../src/testing.ts";
import { startRedisServer, type RedisServer } from "../helpers/redis-server.ts";

let server: RedisServer | undefined;
let redis: Redis | undefined;
let bed: TestBed | undefined;
let store: Store | undefined;
afterEach(async () => {
  await bed?.close();
  await store?.close();
  redis?.disconnect();
  await server?.close();
  server = redis = bed = store = undefined;
});

describe("review decisions on a state in Redis", () => {
  it("are recorded in the bot's review queue and kept as labels that another process reads", async () => {
    server = await startRedisServer();
    redis = await connectRedis(server.url);
    store = await openRedisStore({ redis, closeConnection: false });
    bed = await createTestBed({
      store,
      bots: [{ name: "host", plan: "pro", triggers: { mentions: {} }, plugins: { moderate: {} } }],
      plugins: { moderate },
    });
    const me = await bed.user(sandboxUsername("host"));
    const root = await bed.post(me, "What are you building this week?");
    const alice = await bed.user("alice");
    const rude = await bed.post(alice, "@host you're an idiot", root.id);
    await bed.settle();
    const desk = new ReviewDesk({
      store,
      clock: bed.clock,
      log: silentLogger,
      layerOf: (b) => bed!.runtime.bots.get(b)?.layer,
    });
    expect(await desk.decide("host", rude.id, "unhide", "admin:ops")).toMatchObject({ status: "sent" });
    await store.flush();

    // The queue in the bot's own hash; the label in the shared one.
    expect((await redis.hkeys("postbot:state:bots/host")).filter((f) => f.startsWith("review:host\u0000"))).toContain(
      `review:host\u0000item:${rude.id}`,
    );
    expect(await redis.hlen("postbot:state:moderation-labels")).toBe(1);

    const other = await openRedisStore({ redis, readOnly: true, closeConnection: false });
    try {
      expect(new ReviewQueue(other, "host").get(rude.id)).toMatchObject({
        state: "visible",
        decision: { decision: "unhide", by: "admin:ops", status: "sent" },
      });
      expect(operatorLabels(other).map((l) => [l.text, l.abusive, l.by, l.bot, l.post])).toEqual([
        ["@host you're an idiot", false, "admin:ops", "host", rude.id],
      ]);
    } finally {
      await other.close();
    }
  }, 60_000);
});
