import { spawnSync } from "node:child_process";
import { afterAll, describe, expect, it } from "vitest";
import { connectRedis } from "../../src/redis/connect.ts";
import { startRedisServer, type RedisServer } from "../helpers/redis-server.ts";

const servers: RedisServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.close();
});

/** Whether anything accepts connections on `port` (one attempt, no retries). */
async function answers(port: number): Promise<boolean> {
  return await connectRedis(`redis://127.0.0.1:${port}/0`, { connectTimeoutMs: 2_000 }).then(
    (r) => (r.disconnect(), true),
    () => false,
  );
}

describe("test helper: redis-server", () => {
  it("stop and restart keep the data and the port; kill loses what was not saved", async () => {
    const server = await startRedisServer();
    servers.push(server);
    const redis = await connectRedis(server.url);
    await redis.set("kept", "yes");
    await server.stop();
    expect(server.running()).toBe(false);
    expect(await answers(server.port)).toBe(false);
    await server.restart();
    expect(await redis.get("kept")).toBe("yes"); // the same client reconnected by itself
    await redis.set("unsaved", "1");
    await server.kill();
    await server.restart();
    expect(await redis.mget("kept", "unsaved")).toEqual(["yes", null]);
    redis.disconnect();
  });

  it("a test process that exits without closing its server leaves none behind", () => {
    const script = `import { startRedisServer } from ${JSON.stringify(new URL("../helpers/redis-server.ts", import.meta.url).pathname)};
const s = await startRedisServer();
console.log(s.port);
process.exit(1);`;
    const run = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
      encoding: "utf8",
      timeout: 60_000,
    });
    const port = Number(run.stdout.trim());
    expect(port, run.stderr).toBeGreaterThan(0);
    const left = spawnSync("pgrep", ["-f", `redis-server 127.0.0.1:${port}`], { encoding: "utf8" });
    expect(left.stdout.trim()).toBe("");
  }, 60_000);
});
