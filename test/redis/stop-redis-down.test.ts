/**
 * A real `bot start --state redis://…` process asked to stop while its Redis is down (refusing
 * connections) or hung (SIGSTOP: connections open, nothing answers): it waits a moment for
 * Redis (src/redis/shared-state.ts GIVE_UP_MS), then stops without it, saying what it could
 * not save, and exits 3 (not the hard stop's 1). Nothing is lost: with Redis back, the next
 * process answers the mention that came meanwhile, once, and answers nothing twice. Waits are
 * real and bounded; the stop's duration is printed, not asserted.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { createClock } from "../../src/clock.ts";
import { provisionBots } from "../../src/hosting/provision.ts";
import { createSandbox, type Sandbox } from "../../src/sandbox/index.ts";
import { testBotConfig } from "../../src/testing.ts";
import { killBots, lineReader, spawnBot } from "../helpers/cli.ts";
import { startRedisServer, type RedisServer } from "../helpers/redis-server.ts";
import { until } from "../helpers/until.ts";

const NAMES = ["d1", "d2"];
const servers: RedisServer[] = [];
const sandboxes: Sandbox[] = [];
const dirs: string[] = [];
afterEach(killBots);
afterAll(async () => {
  for (const s of sandboxes) await s.close();
  for (const s of servers) await s.close();
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

/** A Redis, a sandbox, two bots in a directory, and a way to start `bot start` on them. */
async function world() {
  const server = await startRedisServer();
  servers.push(server);
  const sandbox = await createSandbox({ clock: createClock() });
  sandboxes.push(sandbox);
  const hosted = await provisionBots(
    sandbox,
    NAMES.map((name) => testBotConfig({ name, plan: "pro", triggers: { mentions: { via: "poll" } }, plugins: {} }, {})),
  );
  const dir = await mkdtemp(join(tmpdir(), "postbot-stop-"));
  dirs.push(dir);
  const env: Record<string, string> = {
    POSTBOT_BASE_URL: sandbox.url,
    POSTBOT_CONSUMER_KEY: hosted[0]!.app.key,
    POSTBOT_CONSUMER_SECRET: hosted[0]!.app.secret,
    POSTBOT_STATE: server.url,
  };
  for (const h of hosted) {
    const up = h.config.name.toUpperCase();
    env[`${up}_TOKEN`] = h.token.token;
    env[`${up}_SECRET`] = h.token.secret;
    await writeFile(
      join(dir, `${h.config.name}.yaml`),
      `name: ${h.config.name}\nplan: pro\naccount:\n  token: \${${up}_TOKEN}\n  token_secret: \${${up}_SECRET}\ntriggers: { mentions: { via: poll } }\nplugins: { reply: { text: "hi @{author.username}" } }\n`,
    );
  }
  const start = () => {
    // A 3 s lease (renewed every second): the second process claims the bots 1 s after it
    // starts, not 3 s, and the bots of the hung one run out sooner; the stop's 2 s wait is the same.
    const child = spawnBot(["start", "--bots", dir, "--plugins", "plugins", "--lease", "3"], { env });
    return {
      child,
      out: lineReader(child.stdout),
      exit: new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code))),
    };
  };
  const alice = await sandbox.admin.createUser({ username: "alice", name: "alice" });
  const userIds = new Map(hosted.map((h) => [h.user.id, h.config.name]));
  const answers = (id: string) =>
    Object.values(sandbox.context.data.world.posts).filter(
      (p) => p.in_reply_to_post_id === id && userIds.has(p.author_id),
    ).length;
  const mention = async (text: string) => (await sandbox.admin.createPost({ author_id: alice.id, text })).id;
  return { server, start, answers, mention };
}

/** What a stop without Redis must say: it gave up after 2 s, what it did not save, exit 3. */
function expectStoppedWithout(lines: string[]): void {
  const logged = lines.join("\n");
  console.log(lines.find((l) => /stopped without/.test(l)));
  expect(logged).not.toMatch(/could not stop within/);
  expect(logged).toMatch(/unreachable for 2 s while stopping: stopping without it/);
  expect(logged).toMatch(
    /stopped without saving \d+ changes \([^)]*status[^)]*\): Redis at redis:\/\/127\.0\.0\.1:\d+\/0 was unreachable\. Nothing sent is lost: each action's ledger mark reached Redis before its request left/,
  );
  expect(logged).toMatch(/the state could not all be saved \(see above\); exit 3/);
}

describe("bot start --state redis:// stopped while Redis is away", () => {
  it("down (refusing): stops promptly with exit 3, logs what it could not save, and loses nothing", async () => {
    const { server, start, answers, mention } = await world();
    // Made before the start: the first poll (reaching back an hour) answers it, not a poll one interval later.
    const before = await mention("@d1 before");
    const first = start();
    await first.out.waitFor(/all bots started/);
    await until("the first mention answered", () => answers(before) === 1, 60_000, 100);

    // Redis goes away; a mention comes; the process is asked to stop.
    await server.stop();
    await first.out.waitFor(/lost the connection to Redis/);
    const during = await mention("@d2 while Redis is down");
    const stopAt = Date.now();
    first.child.kill("SIGTERM");
    expect(await first.exit).toBe(3);
    console.log(
      `stop with Redis down: exited after ${((Date.now() - stopAt) / 1000).toFixed(1)} s (the hard stop is 9.5 s)`,
    );
    expectStoppedWithout(first.out.lines);

    // Redis back, a new process: the mention that came meanwhile is answered, once; the first is not again.
    await server.restart();
    const second = start();
    await second.out.waitFor(/all bots started/);
    await until("the mention made while Redis was down answered", () => answers(during) === 1, 60_000, 100);
    second.child.kill("SIGTERM");
    expect(await second.exit).toBe(0);
    expect(answers(before)).toBe(1);
    expect(answers(during)).toBe(1);
  }, 120_000);

  it("hung (SIGSTOP, silent): stops after its 2 s wait with exit 3, not the hard stop's 1, and loses nothing", async () => {
    const { server, start, answers, mention } = await world();
    // Made before the start: the first poll (reaching back an hour) answers it, not a poll one interval later.
    const before = await mention("@d1 before");
    const first = start();
    await first.out.waitFor(/all bots started/);
    await until("the first mention answered", () => answers(before) === 1, 60_000, 100);

    // Redis hangs (its connections stay open); a mention comes; the process is asked to stop.
    server.freeze();
    const during = await mention("@d2 while Redis hangs");
    const stopAt = Date.now();
    first.child.kill("SIGTERM");
    const code = await first.exit;
    console.log(
      `stop with Redis hung: exited ${code} after ${((Date.now() - stopAt) / 1000).toFixed(1)} s (the hard stop is 9.5 s)`,
    );
    expect(code).toBe(3);
    expectStoppedWithout(first.out.lines);

    // Redis goes on; a new process answers the mention that came meanwhile, once; the first is not again.
    server.thaw();
    const second = start();
    await second.out.waitFor(/all bots started/);
    await until("the mention made while Redis hung answered", () => answers(during) === 1, 60_000, 100);
    second.child.kill("SIGTERM");
    expect(await second.exit).toBe(0);
    expect(answers(before)).toBe(1);
    expect(answers(during)).toBe(1);
  }, 120_000);
});
