/**
 * Exactly once across real crashes: a child process performs actions against a loopback
 * service and is killed with SIGKILL at random moments (on a request's arrival, before the
 * answer, or after a random delay: during start-up, a ledger write, a rename), then started
 * again, until one run completes. The service must have received every action exactly once.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type Kill, runKilled, startKeyService } from "../helpers/kill9-service.ts";
import { mulberry32 } from "../helpers/random.ts";

const COUNT = 40;

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

describe("kill -9 during actions", () => {
  it("after random kills and restarts, every action reached the service exactly once", async () => {
    const seed = Number(process.env.KILL9_SEED ?? Date.now() % 1_000_000);
    const random = mulberry32(seed);
    const dataDir = await mkdtemp(join(tmpdir(), "postbot-kill9-"));
    dirs.push(dataDir);

    const svc = await startKeyService();
    const run = (kill?: Kill) => runKilled("action-child", [dataDir, svc.url, String(COUNT)], svc, kill);

    let kills = 0;
    const progress: number[] = [];
    for (let round = 0; round < 10; round++) {
      const kill =
        round % 2 === 0 ? { onRequest: 1 + Math.floor(random() * 8) } : { msAfterFirst: Math.floor(random() * 40) };
      const result = await run(kill);
      progress.push(svc.received.size);
      if (result.killed) kills++;
      else expect(result.code, `seed ${seed}: ${result.out}`).toBe(0);
      if (!result.killed) break; // it completed before the kill
    }
    const last = await run();
    expect(last.code, `seed ${seed}: ${last.out}`).toBe(0);
    expect(last.out).toContain("complete");
    await svc.close();

    // The kills landed while there was work left: actions were done a few at a time.
    expect(kills, `seed ${seed}, progress ${progress}`).toBeGreaterThanOrEqual(4);
    expect(progress[0], `seed ${seed}`).toBeLessThan(COUNT);
    const keys = Array.from({ length: COUNT }, (_, i) => `crashy:${i % 2 === 0 ? "reply" : "like"}:p${i}`);
    const missing = keys.filter((k) => !svc.received.has(k));
    const twice = [...svc.received].filter(([, n]) => n > 1);
    expect({ missing, twice }, `seed ${seed}`).toEqual({ missing: [], twice: [] });
    // Up to eleven cold starts of a TypeScript child (about 3 s each on an idle machine, twice
    // that on the shared 2-core CI machine under load): a guard against hanging, not a speed check.
  }, 180_000);
});
