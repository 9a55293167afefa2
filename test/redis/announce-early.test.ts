/**
 * `bot start --state redis://…` announces its process in the deployment's members before it
 * loads its bot files (seconds, with thousands of them): a process that is ready first, and
 * claims, then counts one still loading, and takes only its share. A process whose bot files
 * are bad reports them exactly as it did before it announced anything (Redis reachable or
 * not) and leaves the members at once.
 *
 * The loading is held in the middle by a plugin of the project that waits, as it is imported,
 * for the test to let it go (its module's top level). Real Redis; the processes' clocks are
 * frozen and moved by the test.
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createClock } from "../../src/clock.ts";
import { start, type Started } from "../../src/hosting/start.ts";
import { connectRedis, type Redis } from "../../src/redis/connect.ts";
import { Leases } from "../../src/redis/leases.ts";
import { Membership } from "../../src/redis/membership.ts";
import { createSandbox, type Sandbox } from "../../src/sandbox/index.ts";
import { captureLogs } from "../helpers/log.ts";
import { freePort, startRedisServer, type RedisServer } from "../helpers/redis-server.ts";
import { until } from "../helpers/until.ts";
import { claimsOf } from "../helpers/claims.ts";

const T0 = Date.parse("2026-03-02T12:00:00Z");
const NAMES = ["alpha", "beta", "gamma", "delta"];

/** What the project's plugin waits for as it is imported: set by the test before a start. */
interface Gate {
  entered(): void;
  wait: Promise<void>;
}
const GATE = "postbotTestLoadGate";
const PLUGIN = `globalThis.${GATE}?.entered();
await globalThis.${GATE}?.wait;
export default { name: "gate", options: { async safeParseAsync(v) { return { success: true, data: v }; } }, setup() {} };
`;

let server: RedisServer;
let admin: Redis;
const dirs: string[] = [];
const cleanups: Array<() => Promise<void>> = [];
/** Lets a held loading go on (a test that failed while it was held). */
let release = () => {};

beforeAll(async () => {
  server = await startRedisServer();
  admin = await connectRedis(server.url);
});
afterEach(async () => {
  release();
  for (const c of cleanups.splice(0).reverse()) await c();
  delete (globalThis as Record<string, unknown>)[GATE];
  await admin.flushdb();
});
afterAll(async () => {
  admin?.disconnect();
  await server?.close();
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

/** Holds the next loading of the plugin until `open()`; `entered` once the loading reached it. */
function holdLoading() {
  let entered!: () => void;
  const reached = new Promise<void>((r) => (entered = r));
  let open!: () => void;
  const wait = new Promise<void>((r) => (open = r));
  (globalThis as Record<string, unknown>)[GATE] = { entered, wait } satisfies Gate;
  release = open;
  return { reached, open };
}

/** A service with the four bots' accounts, their files (each runs the gate plugin), and more files given. */
async function project(extraFiles: Record<string, string> = {}) {
  const clock = createClock({ frozen: true, start: T0 });
  const sandbox: Sandbox = await createSandbox({ clock });
  cleanups.push(() => sandbox.close());
  const app = await sandbox.admin.createApp({ plan: "pro" });
  const dir = await mkdtemp(join(tmpdir(), "postbot-announce-"));
  dirs.push(dir);
  await mkdir(join(dir, "bots"));
  await mkdir(join(dir, "plugins"));
  await writeFile(join(dir, "plugins", "gate.mjs"), PLUGIN);
  const env: Record<string, string> = {
    POSTBOT_BASE_URL: sandbox.url,
    POSTBOT_CONSUMER_KEY: app.consumer_key,
    POSTBOT_CONSUMER_SECRET: app.consumer_secret,
  };
  for (const name of NAMES) {
    const user = await sandbox.admin.createUser({ username: name });
    const token = await sandbox.admin.createToken({ consumer_key: app.consumer_key, user_id: user.id });
    env[`${name.toUpperCase()}_TOKEN`] = token.token;
    env[`${name.toUpperCase()}_SECRET`] = token.token_secret;
    await writeFile(
      join(dir, "bots", `${name}.yaml`),
      `name: ${name}\nplan: pro\naccount:\n  token: \${${name.toUpperCase()}_TOKEN}\n  token_secret: \${${name.toUpperCase()}_SECRET}\ntriggers:\n  mentions: {}\nplugins:\n  gate: {}\n`,
    );
  }
  for (const [file, text] of Object.entries(extraFiles)) await writeFile(join(dir, "bots", file), text);
  /** `bot start` in this process, `--state URL` when given; the clock moved until it has started. */
  const run = (state?: string) => {
    const { logger } = captureLogs("info");
    const starting = start({
      bots: join(dir, "bots"),
      plugins: join(dir, "plugins"),
      data: join(dir, "data"),
      clock,
      logger,
      env,
      watch: false,
      ...(state ? { state: { url: state, source: "--state" } } : {}),
    });
    return {
      starting,
      /** Moves the clock (the wait before claiming) until the start is done. */
      async started(): Promise<Started> {
        let done = false;
        void starting.finally(() => (done = true)).catch(() => undefined);
        while (!done) {
          await clock.advance(500);
          await new Promise((r) => setImmediate(r));
        }
        const s = await starting;
        cleanups.push(async () => void (await s.stop()));
        return s;
      },
    };
  };
  return { run };
}

const members = () => admin.zrange(new Leases(admin).membersKey, 0, -1);

/** Another process, ready already: its claims (on a frozen clock: it claims once, never renews). */
async function readyProcess() {
  const redis = await connectRedis(server.url);
  const claims = claimsOf({ redis, owner: "ready", bots: NAMES, clock: createClock({ frozen: true, start: T0 }) });
  cleanups.push(async () => {
    await claims.stop();
    redis.disconnect();
  });
  return claims;
}

describe("bot start --state announces its process before loading its bot files", () => {
  it("a process that claims while another still loads takes only its share; the other takes the rest", async () => {
    const p = await project();
    const held = holdLoading();
    const loading = p.run(server.url);
    await held.reached;
    // Still loading its bot files, and counted already.
    const [announced] = await until("the loading process in the members", async () => {
      const m = await members();
      return m.length === 1 && m;
    });
    const ready = await readyProcess();
    await ready.start();
    expect(ready.bots()).toHaveLength(2);
    expect(ready.processes()).toBe(2);
    held.open();
    const started = await loading.started();
    expect(started.runtime.bots.size).toBe(2);
    expect([...started.runtime.bots.keys(), ...ready.bots()].sort()).toEqual([...NAMES].sort());
    expect((await members()).sort()).toEqual([announced, "ready"].sort());
  });

  it("bad bot files: the same report as without Redis, and the process leaves the members at once", async () => {
    const p = await project({ "zeta.yaml": "name: zeta\nplan: pro\nplugins:\n  no-such-plugin: {}\n" });
    // With Redis first: the plugin is imported once a process (Node's module cache), and held then.
    const held = holdLoading();
    const failed = p.run(server.url).starting.then(
      () => undefined,
      (err: Error) => err,
    );
    await held.reached;
    await until("the loading process in the members", async () => (await members()).length === 1);
    held.open();
    const withState = await failed;
    expect(await members()).toEqual([]);
    const withoutState = await p.run().starting.then(
      () => undefined,
      (err: Error) => err,
    );
    expect(withoutState?.message).toMatch(/problem in the bot files/);
    expect(withState?.message).toBe(withoutState!.message);
    expect((withState as { exitCode?: number }).exitCode).toBe((withoutState as { exitCode?: number }).exitCode);
  });

  it("bad bot files and no Redis: the bot files' problems, not Redis's", async () => {
    const p = await project({ "zeta.yaml": "name: zeta\nplan: pro\nplugins:\n  no-such-plugin: {}\n" });
    const withoutState = await p.run().starting.catch((err: Error) => err);
    const nobody = `redis://127.0.0.1:${await freePort()}/0`;
    const withState = await p.run(nobody).starting.catch((err: Error) => err);
    expect(withState).toBeInstanceOf(Error);
    expect((withState as Error).message).toBe((withoutState as Error).message);
  });
});

describe("a process's entry in the members", () => {
  it("is kept alive on the clock while the process loads, until the claims renew it or it leaves", async () => {
    const clock = createClock({ frozen: true, start: T0 });
    const leases = new Leases(admin);
    const membership = new Membership({ redis: admin, leases, owner: "loading", clock, ttlMs: 200, everyMs: 50 });
    const score = async () => Number(await admin.zscore(leases.membersKey, "loading"));
    const redisNow = async () => {
      const [s, us] = await admin.time();
      return Number(s) * 1000 + Math.floor(Number(us) / 1000);
    };
    const scripts = async () => Number(/cmdstat_evalsha:calls=(\d+)/.exec(await admin.info("commandstats"))?.[1] ?? 0);
    expect(await membership.announce()).toBe(1);
    const firstExpiry = await score();
    // Past the first entry's time (Redis's clock), each renewal interval of the process's clock
    // renews it: the entry then runs out ttl after that renewal, whenever (in real time, on a
    // busy machine) the test looks.
    let askedAt = 0;
    while ((await redisNow()) <= firstExpiry + 50) {
      const before = await scripts();
      askedAt = await redisNow();
      await clock.advance(50);
      await until("the keep-alive's renewal", async () => (await scripts()) > before);
    }
    expect(await score()).toBeGreaterThanOrEqual(askedAt + 200);
    expect(await score()).toBeGreaterThan(firstExpiry);
    // Renewed by the claims: the keep-alive stops (one renewal a turn, theirs).
    await membership.renew();
    const renewedBy = await scripts();
    await clock.advance(500);
    expect(await scripts()).toBe(renewedBy);
    await membership.leave();
    expect(await admin.zscore(leases.membersKey, "loading")).toBeNull();
  });
});
