/**
 * The deployment's index of bot files in Redis (src/redis/bot-index.ts): a process finds there
 * what another parsed.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadBots, type CompiledIndex } from "../../src/config/index.ts";
import { redisBotIndex } from "../../src/redis/bot-index.ts";
import { connectRedis, type Redis } from "../../src/redis/connect.ts";
import { Leases } from "../../src/redis/leases.ts";
import { startRedisServer, type RedisServer } from "../helpers/redis-server.ts";

let server: RedisServer;
let redis: Redis;
let dir = "";

beforeAll(async () => {
  server = await startRedisServer();
  redis = await connectRedis(server.url);
  dir = mkdtempSync(join(tmpdir(), "postbot-bot-index-"));
  mkdirSync(join(dir, "bots"));
  for (let i = 0; i < 40; i++)
    writeFileSync(
      join(dir, "bots", `b${String(i).padStart(2, "0")}.yaml`),
      `name: b${i}\nplan: pro\ntriggers: { mentions: {} }\nplugins: { reply: { text: "hi" } }\n`,
    );
});
afterAll(async () => {
  redis?.disconnect();
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** `index` counting the entries it found. */
function counted(index: CompiledIndex) {
  let found = 0;
  return {
    found: () => found,
    index: {
      async get(keys: readonly string[]) {
        const out = await index.get(keys);
        found += out.filter((v) => v !== null).length;
        return out;
      },
      set: (entries: Parameters<CompiledIndex["set"]>[0]) => index.set(entries),
    } satisfies CompiledIndex,
  };
}

describe("the bot files' index in Redis", () => {
  it("gives a second process what the first parsed", async () => {
    const leases = new Leases(redis, { prefix: "index:" });
    const p1 = counted(redisBotIndex(redis, leases.keys));
    const p2 = counted(redisBotIndex(redis, leases.keys));
    const load = (index: CompiledIndex) =>
      loadBots({ botsDir: join(dir, "bots"), pluginsDir: "plugins", cwd: dir, env: {}, index });
    const first = await load(p1.index);
    expect(first.bots).toHaveLength(40);
    expect(p1.found()).toBe(0);
    expect(await redis.hlen("index:bot-index")).toBe(40);
    expect(await redis.pttl("index:bot-index")).toBeGreaterThan(24 * 3600_000);
    const second = await load(p2.index);
    expect(p2.found()).toBe(40);
    expect(second.bots).toEqual(first.bots);
  });
});
