/**
 * A hung process (SIGSTOP) past its lease while its answers are on their way to a slow
 * service: real `bot start --state redis://…` processes sharing one Redis and one service (a
 * sandbox in this test process, on real time). The process running the bot has its replies
 * and DM answers held at the service by a delay fault (7 s) when it is stopped for 12 s,
 * longer than its lease (3 s): the other process takes the bot over within a few seconds,
 * while the service still holds the first one's requests, and then acts on them while the
 * first is still stopped (it cannot cut them). The second checks what was left pending only
 * once no request of the first can still arrive, finds them there, and sends none again:
 * every mention and every DM is answered once. (A process that runs again before the service
 * acts cuts its requests itself: ./held-requests.test.ts.) Waits are real and bounded.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { createClock } from "../../src/clock.ts";
import { provisionBots } from "../../src/hosting/provision.ts";
import { connectRedis, type Redis } from "../../src/redis/connect.ts";
import { createSandbox, type Sandbox } from "../../src/sandbox/index.ts";
import { testBotConfig } from "../../src/testing.ts";
import { killBots, lineReader, spawnBot } from "../helpers/cli.ts";
import { leaseHolders } from "../helpers/lease-holders.ts";
import { startRedisServer, type RedisServer } from "../helpers/redis-server.ts";
import { until } from "../helpers/until.ts";

const COUNT = 3;
const DELAY_MS = 7_000;
const FREEZE_MS = 12_000;
let server: RedisServer | undefined;
let sandbox: Sandbox | undefined;
let redis: Redis | undefined;
const dirs: string[] = [];
afterEach(killBots);
afterAll(async () => {
  redis?.disconnect();
  await sandbox?.close();
  await server?.close();
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

/** How many more requests the sandbox's faults will hold. */
async function faultsLeft(s: Sandbox): Promise<number> {
  const res = await fetch(new URL("/_sandbox/faults", s.url), {
    headers: { authorization: `Bearer ${s.adminToken}` },
  });
  return ((await res.json()) as { faults: Array<{ remaining: number }> }).faults.reduce((n, f) => n + f.remaining, 0);
}

describe("bot start --state redis:// with a process that hangs", () => {
  it("stopped past its lease with its answers held by a slow service: every mention and DM answered once", async () => {
    server = await startRedisServer();
    redis = await connectRedis(server.url);
    sandbox = await createSandbox({ clock: createClock() });
    const [hosted] = await provisionBots(sandbox, [
      testBotConfig({ name: "hung", plan: "pro", triggers: { mentions: { via: "poll" }, dms: {} }, plugins: {} }, {}),
    ]);
    const dir = await mkdtemp(join(tmpdir(), "postbot-hung-"));
    dirs.push(dir);
    await writeFile(
      join(dir, "hung.yaml"),
      'name: hung\nplan: pro\naccount:\n  token: ${HUNG_TOKEN}\n  token_secret: ${HUNG_SECRET}\ntriggers: { mentions: { via: poll }, dms: {} }\nplugins: { reply: { events: [mention, dm], text: "hi @{author.username}: {post.body}" } }\n',
    );
    const env = {
      POSTBOT_BASE_URL: sandbox.url,
      POSTBOT_CONSUMER_KEY: hosted!.app.key,
      POSTBOT_CONSUMER_SECRET: hosted!.app.secret,
      POSTBOT_STATE: server.url,
      HUNG_TOKEN: hosted!.token.token,
      HUNG_SECRET: hosted!.token.secret,
    };
    // The service is slow with the bot's answers: replies and DMs (by either DM route) wait 7 s there.
    const routes = [
      "POST /2/posts",
      "POST /2/dm_conversations/:dm_conversation_id/messages",
      "POST /2/dm_conversations/with/:participant_id/messages",
    ];
    for (const route of routes)
      await sandbox.admin.addFault({ route, count: COUNT, kind: "delay", delay_ms: DELAY_MS });
    // Each from a user of their own: a bot handles one person's events one at a time.
    const mentions: string[] = [];
    for (let i = 0; i < COUNT; i++) {
      const user = await sandbox.admin.createUser({ username: `user${i}`, name: `user${i}` });
      mentions.push((await sandbox.admin.createPost({ author_id: user.id, text: `@hung question ${i}` })).id);
      await sandbox.admin.sendDm({ sender_id: user.id, recipient_id: hosted!.user.id, text: `message ${i}` });
    }

    const start = () => {
      const child = spawnBot(["start", "--bots", dir, "--plugins", "plugins", "--lease", "3"], { env });
      return { child, out: lineReader(child.stdout) };
    };
    const procs = [start(), start()];
    for (const p of procs) await p.out.waitFor(/all bots started/);
    // Its 3 replies and 3 DM answers are held at the service (one DM route's faults stay unused).
    await until(
      "the answers are on their way",
      async () => (await faultsLeft(sandbox!)) === COUNT || undefined,
      60_000,
    ).catch(async (err: unknown) => {
      throw new Error(
        `${(err as Error).message}: ${await faultsLeft(sandbox!)} faults left; ${procs.map((p) => p.out.lines.map((l) => /"msg":"([^"]*)/.exec(l)?.[1]).join("\n  ")).join("\n---\n  ")}`,
      );
    });
    const holderPid = (await leaseHolders(redis, ["hung"])).get("hung");
    const holder = procs.find((p) => p.child.pid === holderPid)!;
    expect(holder).toBeDefined();
    holder.child.kill("SIGSTOP");
    await sandbox.admin.clearFaults();
    await new Promise((r) => setTimeout(r, FREEZE_MS));
    const other = procs.find((p) => p !== holder)!;
    expect((await leaseHolders(redis, ["hung"])).get("hung")).toBe(other.child.pid);
    holder.child.kill("SIGCONT");

    const { data } = sandbox.context;
    const botId = hosted!.user.id;
    const replies = () => Object.values(data.world.posts).filter((p) => p.author_id === botId);
    const dmAnswers = () =>
      Object.values(data.world.dm_events).filter((e) => e.sender_id === botId && e.event_type === "MessageCreate");
    const twice = () =>
      mentions.some((id) => replies().filter((p) => p.in_reply_to_post_id === id).length > 1) ||
      new Set(dmAnswers().map((e) => e.text)).size < dmAnswers().length;
    // The process that took over checks what was pending once the hung one's requests can no
    // longer arrive (half a minute): it finds them all there, and sends none again.
    const checked = () => other.out.lines.filter((l) => /had reached the service; not sending it again/.test(l)).length;
    await until(
      "the bot's new process checked its pending answers",
      () => checked() === 2 * COUNT || twice() || undefined,
      90_000,
      200,
    );
    for (const id of mentions)
      expect(
        replies().filter((p) => p.in_reply_to_post_id === id),
        `replies to ${id}`,
      ).toHaveLength(1);
    expect(
      dmAnswers()
        .map((e) => e.text)
        .sort(),
    ).toEqual(Array.from({ length: COUNT }, (_, i) => `hi @user${i}: message ${i}`));
  }, 180_000);
});
