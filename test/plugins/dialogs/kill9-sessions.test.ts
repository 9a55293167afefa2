/**
 * A session written with a reply is all-or-nothing, across real crashes, in the file store and
 * on Redis: a child process handles a list of events (each counts itself in its user's session
 * and replies; test/fixtures/session-child.ts) against a loopback service and is killed with
 * SIGKILL at random moments (on a reply's arrival, before its answer, or after a random delay),
 * then started again, until one run completes. After every kill the durable state is read as
 * the next start would: no session holds an event whose reply the ledger does not hold, and no
 * reply is in the ledger without its event in the session. In the end every reply reached the
 * service exactly once and every session counted each of its events exactly once, in order.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ScopedRecord } from "../../../src/plugins/dialogs/durable-scope.ts";
import { connectRedis, type Redis } from "../../../src/redis/connect.ts";
import { openFileStore } from "../../../src/store/file-store.ts";
import { runKilled, startKeyService } from "../../helpers/kill9-service.ts";
import { mulberry32 } from "../../helpers/random.ts";
import { startRedisServer, type RedisServer } from "../../helpers/redis-server.ts";

const COUNT = 30;

type Session = ScopedRecord<{ counter?: { count: number; seen: number[] } }>;

/** What the durable state holds, as the next start reads it: each user's session and the ledger's keys. */
interface Durable {
  sessions: Map<string, Session>;
  ledger: Set<string>;
}

const dirs: string[] = [];
let server: RedisServer | undefined;
let redis: Redis | undefined;
beforeAll(async () => {
  server = await startRedisServer();
  redis = await connectRedis(server.url);
});
afterAll(async () => {
  redis?.disconnect();
  await server?.close();
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

/** Every durable state must pair each session change with its reply's ledger record, both ways. */
function checkPairs(durable: Durable, note: string): void {
  const inSessions = new Set<number>();
  for (const [user, record] of durable.sessions) {
    const seen = record.v?.counter?.seen ?? [];
    expect(seen, `${note}: ${user}'s session holds each event once, in order`).toEqual(
      [...new Set(seen)].sort((a, b) => a - b),
    );
    for (const i of seen) inSessions.add(i);
  }
  const inLedger = new Set([...durable.ledger].map((k) => Number(/^crashy:reply:p(\d+)$/.exec(k)![1])));
  const sessionOnly = [...inSessions].filter((i) => !inLedger.has(i));
  const ledgerOnly = [...inLedger].filter((i) => !inSessions.has(i));
  expect({ sessionOnly, ledgerOnly }, note).toEqual({ sessionOnly: [], ledgerOnly: [] });
}

async function killUntilComplete(
  state: string,
  read: () => Promise<Durable>,
  seed: number,
): Promise<{ kills: number; durable: Durable; received: Map<string, number> }> {
  const random = mulberry32(seed);
  const svc = await startKeyService();
  let kills = 0;
  try {
    for (let round = 0; round < 10; round++) {
      const kill =
        round % 2 === 0 ? { onRequest: 1 + Math.floor(random() * 6) } : { msAfterFirst: Math.floor(random() * 40) };
      const result = await runKilled("session-child", [state, svc.url, String(COUNT)], svc, kill);
      if (!result.killed) {
        expect(result.code, `seed ${seed}: ${result.out}`).toBe(0);
        break;
      }
      kills++;
      checkPairs(await read(), `seed ${seed}, after kill ${kills}`);
    }
    const last = await runKilled("session-child", [state, svc.url, String(COUNT)], svc);
    expect(last.code, `seed ${seed}: ${last.out}`).toBe(0);
    expect(last.out).toContain("complete");
    return { kills, durable: await read(), received: svc.received };
  } finally {
    await svc.close();
  }
}

function checkComplete(result: Awaited<ReturnType<typeof killUntilComplete>>, seed: number): void {
  const { kills, durable, received } = result;
  expect(kills, `seed ${seed}`).toBeGreaterThanOrEqual(4);
  checkPairs(durable, `seed ${seed}, at the end`);
  const keys = Array.from({ length: COUNT }, (_, i) => `crashy:reply:p${i}`);
  const missing = keys.filter((k) => !received.has(k));
  const twice = [...received].filter(([, n]) => n > 1);
  expect({ missing, twice }, `seed ${seed}`).toEqual({ missing: [], twice: [] });
  for (let u = 0; u < 3; u++) {
    const mine = Array.from({ length: COUNT }, (_, i) => i).filter((i) => i % 3 === u);
    expect(durable.sessions.get(`u${u}`)?.v?.counter, `seed ${seed}`).toEqual({ count: mine.length, seen: mine });
  }
}

describe("kill -9 while sessions ride with replies", () => {
  it("file store: no durable state holds a session change without its reply, or a reply without it", async () => {
    const seed = Number(process.env.KILL9_SEED ?? Date.now() % 1_000_000);
    const dir = await mkdtemp(join(tmpdir(), "postbot-kill9-sessions-"));
    dirs.push(dir);
    const read = async (): Promise<Durable> => {
      const store = await openFileStore(dir, { readOnly: true });
      const durable = {
        sessions: new Map(store.entries<Session>("session:crashy")),
        ledger: new Set(store.entries("ledger").map(([k]) => k)),
      };
      await store.close();
      return durable;
    };
    checkComplete(await killUntilComplete(dir, read, seed), seed);
    // Up to eleven cold starts of a TypeScript child: a guard against hanging, not a speed check.
  }, 180_000);

  it("Redis (the mark and the slot in one fenced script): the same, in the bot's hash", async () => {
    const seed = Number(process.env.KILL9_SEED ?? Date.now() % 1_000_000) + 1;
    await redis!.flushdb();
    const read = async (): Promise<Durable> => {
      const fields = await redis!.hgetall("postbot:state:bots/crashy");
      const durable: Durable = { sessions: new Map(), ledger: new Set() };
      for (const [field, text] of Object.entries(fields)) {
        const [namespace, key] = field.split("\u0000") as [string, string];
        const value = (JSON.parse(text) as [number, unknown])[1];
        if (namespace === "session:crashy") durable.sessions.set(key, value as Session);
        if (namespace === "ledger") durable.ledger.add(key);
      }
      return durable;
    };
    checkComplete(await killUntilComplete(server!.url, read, seed), seed);
  }, 180_000);
});
