/**
 * The dynamic bots store (bots kept in the state, and the pauses people asked for), in both
 * its forms: in a process's own store (the file store; here its in-memory twin) and in a
 * real Redis, where what one process writes another reads at once.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectRedis, type Redis } from "../../src/redis/connect.ts";
import { redisDynamicBots } from "../../src/redis/dynamic-bots.ts";
import { openFileStore } from "../../src/store/index.ts";
import { storeDynamicBots, type DynamicBot, type DynamicBots } from "../../src/store/dynamic-bots.ts";
import { startRedisServer, type RedisServer } from "../helpers/redis-server.ts";

let server: RedisServer;
const clients: Redis[] = [];
const dirs: string[] = [];
beforeAll(async () => {
  server = await startRedisServer();
});
afterAll(async () => {
  for (const c of clients) c.disconnect();
  await server?.close();
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

const record = (name: string, yaml = `name: ${name}\nplan: pro\n`): DynamicBot => ({
  name,
  yaml,
  origin: "api",
  by: "ops",
  createdAt: 1,
  updatedAt: 2,
});

/** What every form does: records and pauses kept, each change moving the version. */
async function contract(bots: DynamicBots, reader: DynamicBots): Promise<void> {
  const v0 = await reader.version();
  await bots.put(record("a"));
  await bots.put(record("b"));
  expect(await reader.version()).not.toBe(v0);
  expect((await reader.list()).map((b) => b.name).sort()).toEqual(["a", "b"]);
  await bots.put(record("a", "name: a\nplan: basic\n"));
  expect((await reader.get("a"))?.yaml).toBe("name: a\nplan: basic\n");

  const v1 = await reader.version();
  await bots.setPause("a", { reason: "maintenance", by: "ops", at: 5 });
  await bots.setPause("greeter", { reason: "a file bot", by: "ops", at: 6 });
  expect(await reader.version()).not.toBe(v1);
  expect([...(await reader.pauses()).keys()].sort()).toEqual(["a", "greeter"]);
  await bots.setPause("greeter", undefined);
  expect([...(await reader.pauses()).keys()]).toEqual(["a"]);

  // Removing a bot removes its pause; a second time there is nothing to remove.
  expect(await bots.remove("a")).toBe(true);
  expect(await bots.remove("a")).toBe(false);
  expect(await reader.get("a")).toBeUndefined();
  expect((await reader.pauses()).size).toBe(0);
  expect((await reader.list()).map((b) => b.name)).toEqual(["b"]);
}

describe("the dynamic bots store", () => {
  it("in the file store: kept across a restart", async () => {
    const dir = await mkdtemp(join(tmpdir(), "postbot-dynamic-"));
    dirs.push(dir);
    const store = await openFileStore(dir);
    const bots = storeDynamicBots(store);
    await contract(bots, bots);
    await store.close();
    const again = await openFileStore(dir);
    expect((await storeDynamicBots(again).list()).map((b) => b.name)).toEqual(["b"]);
    await again.close();
  });

  it("in Redis: what one process writes, another reads at once", async () => {
    const one = await connectRedis(server.url);
    const two = await connectRedis(server.url);
    clients.push(one, two);
    await contract(redisDynamicBots(one, "t1:"), redisDynamicBots(two, "t1:"));
    // Another deployment's prefix sees none of it.
    expect(await redisDynamicBots(two, "t2:").list()).toEqual([]);
  });
});
