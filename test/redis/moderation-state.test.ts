/**
 * `bot moderation` on a state shared in Redis: the labels and the trained model are kept in
 * Redis (one hash each), where every `bot start --state` process reads them.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { operatorLabels } from "../../src/moderation/training/labels.ts";
import { taughtModel } from "../../src/moderation/training/taught.ts";
import { connectRedis } from "../../src/redis/connect.ts";
import { openRedisStore } from "../../src/redis/store.ts";
import { killBots, runBot } from "../helpers/cli.ts";
import { startRedisServer, type RedisServer } from "../helpers/redis-server.ts";

let server: RedisServer | undefined;
let dir: string | undefined;
afterEach(async () => {
  await killBots();
  await server?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
  server = dir = undefined;
});

describe("bot moderation --state redis://", () => {
  it("keeps the labels and the trained model in Redis, one hash each, among the values every process reads", async () => {
    server = await startRedisServer();
    dir = await mkdtemp(join(tmpdir(), "postbot-moderation-redis-"));
    const file = join(dir, "decisions.jsonl");
    await writeFile(
      file,
      [
        '{"label": "abusive", "text": "nobody in this clan wants you, stop showing up"}',
        '{"label": "fine", "text": "stopped showing up to raids, busy with exams"}',
      ].join("\n"),
    );
    const taught = await runBot(["moderation", "teach", file, "--state", server.url]);
    expect([taught.code, taught.stderr]).toEqual([0, ""]);
    expect(taught.stdout).toContain("The state holds 2 labels (1 abusive, 1 fine)");
    const trained = await runBot(["moderation", "train"], { POSTBOT_STATE: server.url });
    expect([trained.code, trained.stderr]).toEqual([0, ""]);

    const redis = await connectRedis(server.url);
    try {
      expect((await redis.keys("postbot:state:moderation-*")).sort()).toEqual([
        "postbot:state:moderation-labels",
        "postbot:state:moderation-model",
      ]);
      // As a `bot start --state` process opens it: the shared values, no bot's own.
      const store = await openRedisStore({ redis, readOnly: true, loadBots: false, closeConnection: false });
      expect(operatorLabels(store).map((l) => [l.text, l.abusive])).toEqual([
        ["nobody in this clan wants you, stop showing up", true],
        ["stopped showing up to raids, busy with exams", false],
      ]);
      expect(taughtModel(store)).toMatchObject({
        model: expect.anything(),
        taught: { labels: 2, abusive: 1, fine: 1 },
      });
    } finally {
      redis.disconnect();
    }
    const scored = await runBot(["moderation", "score", file, "--state", server.url]);
    expect(scored.stdout).toMatch(
      /^precision 1\.000 recall 1\.000 \(tp 1 fp 0 fn 0 tn 1\)\nscored 2 labelled replies with the model trained on 2 of the operator's labels/,
    );
  }, 120_000);
});
