/**
 * A stored account in Redis, end to end as a user does it: `bot auth login --state redis://…`
 * (PIN on stdin) keeps the token in Redis only, `bot auth list --state` shows it without the
 * secret, and `bot start --state` runs a bot whose file names no token, from that account.
 */
import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { createClock } from "../../src/clock.ts";
import { connectRedis } from "../../src/redis/connect.ts";
import { approveInBrowser, pinOn } from "../helpers/browser.ts";
import { killBots, lineReader, runBot, spawnBot } from "../helpers/cli.ts";
import { startRedisServer, type RedisServer } from "../helpers/redis-server.ts";
import { createUser, startSandbox, type TestSandbox } from "../helpers/sandbox.ts";

let t: TestSandbox | undefined;
let server: RedisServer | undefined;
const dirs: string[] = [];
afterEach(killBots);
afterAll(async () => {
  await t?.close();
  await server?.close();
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

describe("accounts and tokens in Redis", () => {
  it("bot auth login --state stores the token in Redis only; bot start --state runs the bot from it", async () => {
    t = await startSandbox({ clock: createClock() });
    server = await startRedisServer();
    const app = await t.admin.createApp({ name: "Scale", plan: "pro" });
    await createUser(t.sandbox, "greeter");
    const dir = await mkdtemp(join(tmpdir(), "postbot-auth-redis-"));
    dirs.push(dir);
    const env = {
      HOME: dir,
      POSTBOT_BASE_URL: t.url,
      POSTBOT_CONSUMER_KEY: app.consumer_key,
      POSTBOT_CONSUMER_SECRET: app.consumer_secret,
      POSTBOT_STATE: server.url,
    };

    const login = spawnBot(["auth", "login", "--account", "greeter"], { cwd: dir, env });
    let out = "";
    let answered = false;
    login.stdout.on("data", (d: Buffer) => {
      out += d.toString();
      const url = /(http:\/\/\S+\/oauth\/authorize\?\S+)/.exec(out)?.[1];
      if (url && out.includes("PIN") && !answered) {
        answered = true;
        void approveInBrowser(url, "greeter").then(async (page) => login.stdin.end(`${pinOn(await page.text())}\n`));
      }
    });
    const code = await new Promise<number | null>((resolve) => login.once("close", resolve));
    expect(code).toBe(0);
    expect(out).toContain(
      `its token is stored in Redis at redis://127.0.0.1:${server.port}/0 (postbot:state:credentials)`,
    );

    const redis = await connectRedis(server.url);
    const stored = JSON.stringify(await redis.hgetall("postbot:state:credentials"));
    redis.disconnect();
    const token = /"token\\":\\"([^"\\]+)/.exec(stored)?.[1];
    expect(token).toBeTruthy();
    expect(out).not.toContain(token);
    expect(await readdir(dir)).toEqual([]); // nothing on disk

    const listed = await runBot(["auth", "list"], env, { cwd: dir });
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(/greeter\s+@greeter\s+\d+\s+oauth1/);
    expect(listed.stdout).not.toContain(token!);

    const bots = join(dir, "bots");
    await mkdir(bots);
    await writeFile(
      join(bots, "greeter.yaml"),
      `name: greeter\nplan: pro\ntriggers: { mentions: { via: poll } }\nplugins: { reply: { text: "hello @{author.username}" } }\n`,
    );
    // --lease 3: the process claims its bot 1 s after it starts (a third of the lease), not 3 s.
    const started = spawnBot(["start", "--bots", bots, "--plugins", join(process.cwd(), "plugins"), "--lease", "3"], {
      cwd: dir,
      env,
    });
    const lines = lineReader(started.stdout);
    await lines.waitFor(/claimed 1 bots \(greeter\)/);
    const alice = await createUser(t.sandbox, "alice");
    const mention = await t.sandbox.admin.createPost({ author_id: alice.id, text: "@greeter hi" });
    await lines.waitFor(/reply to post \d+ .*: sent/);
    const replies = Object.values(t.sandbox.context.data.world.posts).filter(
      (p) => p.in_reply_to_post_id === mention.id,
    );
    expect(replies.map((p) => p.text)).toEqual(["hello @alice"]);
    expect(lines.lines.join("\n")).not.toContain(token!);
    const exit = new Promise<number | null>((resolve) => started.once("exit", resolve));
    started.kill("SIGTERM");
    expect(await exit).toBe(0);
    expect(await readdir(dir)).toEqual(["bots"]);
  }, 120_000);
});
