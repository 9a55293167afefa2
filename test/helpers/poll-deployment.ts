/**
 * Real `bot start --state URL` processes sharing one Redis (a redis-server or a Redis Cluster)
 * and one service (a sandbox in the test process, on real time): pro bots, each on an app of
 * its own so that its mentions are polled every 3 s (not every 12 s, as six bots sharing one
 * app's window would be), replying "hi @author: text". For the tests that kill a process or a
 * Redis node and count the answers: every mention answered exactly once, by its bot.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClock } from "../../src/clock.ts";
import { provisionBots, type ProvisionedBot } from "../../src/hosting/provision.ts";
import { createSandbox, type Sandbox } from "../../src/sandbox/index.ts";
import { compareIds } from "../../src/sandbox/model/index.ts";
import { testBotConfig } from "../../src/testing.ts";
import { lineReader, spawnBot, type BotChild } from "./cli.ts";

export interface PollProcess {
  child: BotChild;
  out: ReturnType<typeof lineReader>;
  /** Its log lines (warnings and errors), for a failure's message. */
  err: ReturnType<typeof lineReader>;
}

export interface PollDeployment {
  sandbox: Sandbox;
  hosted: ProvisionedBot[];
  /** Starts one more `bot start` process (not waited for). */
  start(): PollProcess;
  /** The bots' replies by the post they answer: the bots that answered it, oldest first. */
  answers(): Map<string, string[]>;
  /** Alice mentions every bot once; each mention's id and bot. */
  mentionAll(text: string): Promise<Array<{ bot: string; id: string }>>;
  close(): Promise<void>;
}

/** Provisions `names` in a fresh sandbox, writes their files; processes use `url` as POSTBOT_STATE and `--lease` seconds. */
export async function pollDeployment(names: string[], url: string, leaseSeconds: number): Promise<PollDeployment> {
  const sandbox = await createSandbox({ clock: createClock() });
  const configs = names.map((name) =>
    testBotConfig(
      {
        name,
        plan: "pro",
        app: { consumer_key: `app-of-${name}`, consumer_secret: "-" },
        triggers: { mentions: { via: "poll" } },
        plugins: {},
      },
      {},
    ),
  );
  const hosted = await provisionBots(sandbox, configs);
  const dir = await mkdtemp(join(tmpdir(), "postbot-poll-"));
  const env: Record<string, string> = {
    POSTBOT_BASE_URL: sandbox.url,
    POSTBOT_CONSUMER_KEY: hosted[0]!.app.key,
    POSTBOT_CONSUMER_SECRET: hosted[0]!.app.secret,
    POSTBOT_STATE: url,
  };
  for (const h of hosted) {
    const up = h.config.name.toUpperCase();
    env[`${up}_TOKEN`] = h.token.token;
    env[`${up}_SECRET`] = h.token.secret;
    env[`${up}_APP_KEY`] = h.app.key;
    env[`${up}_APP_SECRET`] = h.app.secret;
    await writeFile(
      join(dir, `${h.config.name}.yaml`),
      `name: ${h.config.name}\nplan: pro\napp:\n  consumer_key: \${${up}_APP_KEY}\n  consumer_secret: \${${up}_APP_SECRET}\naccount:\n  token: \${${up}_TOKEN}\n  token_secret: \${${up}_SECRET}\ntriggers: { mentions: { via: poll } }\nplugins: { reply: { text: "hi @{author.username}: {post.body}" } }\n`,
    );
  }
  const userIds = new Map(hosted.map((h) => [h.user.id, h.config.name]));
  let alice: { id: string } | undefined;
  return {
    sandbox,
    hosted,
    start() {
      const child = spawnBot(["start", "--bots", dir, "--plugins", "plugins", "--lease", String(leaseSeconds)], {
        env,
      });
      return { child, out: lineReader(child.stdout), err: lineReader(child.stderr) };
    },
    answers() {
      const by = new Map<string, string[]>();
      const posts = Object.values(sandbox.context.data.world.posts).sort((a, b) => compareIds(a.id, b.id));
      for (const p of posts) {
        if (!userIds.has(p.author_id) || !p.in_reply_to_post_id) continue;
        by.set(p.in_reply_to_post_id, [...(by.get(p.in_reply_to_post_id) ?? []), userIds.get(p.author_id)!]);
      }
      return by;
    },
    async mentionAll(text) {
      alice ??= await sandbox.admin.createUser({ username: "alice", name: "alice" });
      return await Promise.all(
        names.map(async (bot) => ({
          bot,
          id: (await sandbox.admin.createPost({ author_id: alice!.id, text: `@${bot} ${text}` })).id,
        })),
      );
    },
    async close() {
      await sandbox.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
