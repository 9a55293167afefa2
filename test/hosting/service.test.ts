import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { afterAll, describe, expect, it } from "vitest";
import { createClock } from "../../src/clock.ts";
import { createLogger } from "../../src/log.ts";
import { UserError } from "../../src/errors.ts";
import { checkService, resolveService } from "../../src/hosting/service.ts";
import { start } from "../../src/hosting/start.ts";
import { createSandbox } from "../../src/sandbox/index.ts";
import { createMemoryStore } from "../../src/store/store.ts";
import { openFileStore } from "../../src/store/file-store.ts";
import { saveAccount } from "../../src/credentials/accounts.ts";
import { testBotConfig } from "../../src/testing.ts";
import { captureLogs } from "../helpers/log.ts";

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

const cfg = (name: string, plan: "pro" | "basic", account?: { token: string; token_secret: string }) =>
  testBotConfig({ name, plan, ...(account ? { account } : {}), triggers: { mentions: {} }, plugins: {} }, {});

describe("resolveService", () => {
  it("names every missing setting at once, and how to give it", () => {
    const bots = [cfg("a", "pro"), cfg("b", "basic")];
    expect(() => resolveService({}, ".env", bots, createMemoryStore())).toThrow(
      new RegExp(
        [
          "POSTBOT_BASE_URL is not set: it is the address of the service. Set it \\(export POSTBOT_BASE_URL=...\\) or add a line POSTBOT_BASE_URL=... to .env",
          "POSTBOT_CONSUMER_KEY is not set",
          "POSTBOT_CONSUMER_SECRET is not set",
          "the bots that name no app share one \\(POSTBOT_CONSUMER_KEY\\), and an app has one plan, but they name several \\(pro: a; basic: b\\)",
          'bot a uses the stored account "a", which is not stored; sign it in with `bot auth login --account a`',
        ].join("[\\s\\S]*"),
      ),
    );
  });

  it("refuses plain HTTP to a host that is not loopback", () => {
    const vars = {
      POSTBOT_BASE_URL: "http://api.example.com",
      POSTBOT_CONSUMER_KEY: "k",
      POSTBOT_CONSUMER_SECRET: "s",
    };
    expect(() =>
      resolveService(vars, ".env", [cfg("a", "pro", { token: "t", token_secret: "ts" })], createMemoryStore()),
    ).toThrow(/https/i);
  });
});

describe("bot start against a configured service", () => {
  it("runs the bots with the app's keys and the tokens of their files", async () => {
    const clock = createClock({ frozen: true, start: Date.parse("2026-03-02T12:00:00Z") });
    const sandbox = await createSandbox({ clock });
    const app = await sandbox.admin.createApp({ plan: "pro" });
    const user = await sandbox.admin.createUser({ username: "answerer" });
    const token = await sandbox.admin.createToken({ consumer_key: app.consumer_key, user_id: user.id });
    const dir = await mkdtemp(join(tmpdir(), "postbot-service-"));
    dirs.push(dir);
    await writeFile(
      join(dir, "answerer.yaml"),
      [
        "name: answerer",
        "plan: pro",
        "account:",
        "  token: ${ANSWERER_TOKEN}",
        "  token_secret: ${ANSWERER_SECRET}",
        "triggers:",
        "  mentions: {}",
        "plugins:",
        "  reply:",
        '    text: "Thanks @{author.username}!"',
      ].join("\n"),
    );
    const lines: string[] = [];
    const logger = createLogger({
      level: "info",
      destination: new Writable({ write: (c, _e, done) => (lines.push(String(c)), done()) }),
    });
    const env = {
      POSTBOT_BASE_URL: sandbox.url,
      POSTBOT_CONSUMER_KEY: app.consumer_key,
      POSTBOT_CONSUMER_SECRET: app.consumer_secret,
      ANSWERER_TOKEN: token.token,
      ANSWERER_SECRET: token.token_secret,
    };
    const started = await start({ bots: dir, plugins: "plugins", data: join(dir, "data"), clock, logger, env });
    expect(started.sandbox).toBeUndefined();
    expect(JSON.parse(lines[0]!).msg).toBe(`starting 1 bot against ${sandbox.url}`);
    const alice = await sandbox.admin.createUser({ username: "alice" });
    await sandbox.admin.createPost({ author_id: alice.id, text: "@answerer a question" });
    await clock.advance(3_000);
    await started.runtime.idle();
    const replies = Object.values(sandbox.context.data.world.posts).filter((p) => p.author_id === user.id);
    expect(replies.map((p) => p.text)).toEqual(["Thanks @alice!"]);
    await started.stop();
    await sandbox.close();
    // No secret reached the log.
    expect(lines.join("")).not.toContain(token.token_secret);
    expect(lines.join("")).not.toContain(app.consumer_secret);
  });
});

describe("bot start: who each account is", () => {
  const botFile = (name: string, account: string[]) =>
    [
      `name: ${name}`,
      "plan: pro",
      ...account,
      "triggers:",
      "  mentions: {}",
      "plugins:",
      "  reply:",
      `    text: "${name} says hi to @{author.username}"`,
    ].join("\n");

  it("a bot whose stored account knows who it is starts without asking GET /2/users/me; one with a token in its file asks once, and not again at a restart", async () => {
    const clock = createClock({ frozen: true, start: Date.parse("2026-03-02T12:00:00Z") });
    const sandbox = await createSandbox({ clock });
    try {
      const app = await sandbox.admin.createApp({ plan: "pro" });
      const signedIn = await sandbox.admin.createUser({ username: "signed_in" });
      const inFile = await sandbox.admin.createUser({ username: "in_file" });
      const signedInToken = await sandbox.admin.createToken({ consumer_key: app.consumer_key, user_id: signedIn.id });
      const inFileToken = await sandbox.admin.createToken({ consumer_key: app.consumer_key, user_id: inFile.id });
      const dir = await mkdtemp(join(tmpdir(), "postbot-identity-"));
      dirs.push(dir);
      // What `bot auth login --account signed-in` leaves in the state: the token and who it is.
      const data = join(dir, "data");
      const store = await openFileStore(data);
      saveAccount(store, {
        name: "signed-in",
        base_url: sandbox.url,
        user_id: signedIn.id,
        username: signedIn.username,
        oauth1: { token: signedInToken.token, secret: signedInToken.token_secret, consumer_key: app.consumer_key },
        updated_at: new Date(clock.now()).toISOString(),
      });
      await store.close();
      await writeFile(join(dir, "signed-in.yaml"), botFile("signed-in", []));
      await writeFile(
        join(dir, "in-file.yaml"),
        botFile("in-file", ["account:", "  token: ${IN_FILE_TOKEN}", "  token_secret: ${IN_FILE_SECRET}"]),
      );
      const env = {
        POSTBOT_BASE_URL: sandbox.url,
        POSTBOT_CONSUMER_KEY: app.consumer_key,
        POSTBOT_CONSUMER_SECRET: app.consumer_secret,
        IN_FILE_TOKEN: inFileToken.token,
        IN_FILE_SECRET: inFileToken.token_secret,
      };
      const asked = async () => (await sandbox.admin.stats()).routes["GET /2/users/me"] ?? {};
      const { logger } = captureLogs("info");
      const repliesBy = (id: string) =>
        Object.values(sandbox.context.data.world.posts)
          .filter((p) => p.author_id === id)
          .map((p) => p.text);

      for (const round of [1, 2]) {
        const started = await start({ bots: dir, plugins: "plugins", data, clock, logger, env });
        try {
          // Only the bot whose token came without its user was asked about, and only the first time.
          expect(await asked()).toEqual({ "200": 1 });
          const ids = Object.fromEntries(started.runtime.status().map((s) => [s.bot, `${s.userId} ${s.username}`]));
          expect(ids).toEqual({ "signed-in": `${signedIn.id} signed_in`, "in-file": `${inFile.id} in_file` });
          // A new asker each round (a bot does not answer one author twice within its cooldown).
          const asker = await sandbox.admin.createUser({ username: `asker${round}` });
          await sandbox.admin.createPost({ author_id: asker.id, text: `@signed_in @in_file question ${round}` });
          await clock.advance(3_000);
          await started.runtime.idle();
        } finally {
          await started.stop();
        }
        expect(repliesBy(signedIn.id)).toHaveLength(round);
        expect(repliesBy(inFile.id)).toHaveLength(round);
      }
    } finally {
      await sandbox.close();
    }
  });
});

/** A port nothing listens on (taken from the system, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Polls (real time, bounded) until `check` holds: for log lines written by async work. */
async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 500 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
  if (!check()) throw new Error(`never happened: ${what}`);
}

describe("checkService: the service and the app's keys, before any bot starts", () => {
  it("says the service cannot be reached and tries again, 1 s then 2 s, until it answers", async () => {
    const clock = createClock({ frozen: true, start: Date.parse("2026-03-02T12:00:00Z") });
    const port = await closedPort();
    const { lines, logger } = captureLogs("info");
    const app = { id: "app", key: "key", secret: "secret", plan: "pro" as const };
    let done = false;
    const checked = checkService({ baseUrl: `http://127.0.0.1:${port}`, app, envFile: ".env", clock, logger }).then(
      () => (done = true),
    );
    const waits = () =>
      lines.filter((l) => String(l.msg).startsWith(`cannot reach the service at http://127.0.0.1:${port}`));
    await until(() => waits().length === 1, "the first retry");
    expect(waits()[0]!.msg).toMatch(
      /\(connection refused: is the service \(or the sandbox\) running at this address\?\); trying again in 1 s \(Ctrl-C stops\)$/,
    );
    expect(waits()[0]!.level).toBe(40);
    await clock.advance(1_000);
    await until(() => waits().length === 2, "the second retry");
    expect(waits()[1]!.msg).toMatch(/trying again in 2 s/);
    expect(done).toBe(false);
    // The service comes up; the next try finds it and its keys good.
    const sandbox = await createSandbox({ clock, port });
    try {
      const real = await sandbox.admin.createApp({ plan: "pro" });
      app.key = real.consumer_key;
      app.secret = real.consumer_secret;
      await clock.advance(2_000);
      await checked;
      expect(lines.at(-1)!.msg).toBe(`the service at http://127.0.0.1:${port} answers; starting the bots`);
    } finally {
      await sandbox.close();
    }
  });

  it("a clock hours off the service's: signed again with the service's time (its Date), not refused", async () => {
    const sandbox = await createSandbox({ clock: createClock() });
    try {
      const real = await sandbox.admin.createApp({ plan: "pro" });
      const app = { id: "app", key: real.consumer_key, secret: real.consumer_secret, plan: "pro" as const };
      const { logger } = captureLogs("info");
      for (const offset of [2 * 3_600_000, -10 * 60_000]) {
        const clock = createClock({ frozen: true, start: Date.now() + offset });
        await checkService({ baseUrl: sandbox.url, app, envFile: ".env", clock, logger });
      }
      const stats = sandbox.context.data.meter.stats["POST /oauth/request_token"] ?? {};
      expect(stats["401"]).toBe(2); // each refused once for its time, then accepted
    } finally {
      await sandbox.close();
    }
  });

  it("stops waiting when its signal aborts (Ctrl-C)", async () => {
    const clock = createClock({ frozen: true });
    const stop = new AbortController();
    const { lines, logger } = captureLogs("info");
    const checked = checkService({
      baseUrl: `http://127.0.0.1:${await closedPort()}`,
      app: { id: "a", key: "k", secret: "s", plan: "pro" },
      envFile: ".env",
      clock,
      logger,
      signal: stop.signal,
    });
    await until(() => lines.length === 1, "the first retry");
    stop.abort(new Error("SIGINT"));
    await expect(checked).rejects.toThrow("SIGINT");
  });
});

describe("bot start: what the service refuses", () => {
  async function setup() {
    const clock = createClock({ frozen: true, start: Date.parse("2026-03-02T12:00:00Z") });
    const sandbox = await createSandbox({ clock });
    const app = await sandbox.admin.createApp({ plan: "pro" });
    const dir = await mkdtemp(join(tmpdir(), "postbot-refused-"));
    dirs.push(dir);
    return { clock, sandbox, app, dir };
  }
  const botFile = (name: string, tokenVar: string) =>
    [
      `name: ${name}`,
      "plan: pro",
      "account:",
      `  token: \${${tokenVar}_TOKEN}`,
      `  token_secret: \${${tokenVar}_SECRET}`,
      "triggers:",
      "  mentions: {}",
      "plugins:",
      "  reply:",
      `    text: "${name} says hi"`,
    ].join("\n");

  it("a wrong API key secret is a UserError naming the variables to check, and no bot starts", async () => {
    const { clock, sandbox, app, dir } = await setup();
    try {
      await writeFile(join(dir, "a.yaml"), botFile("a", "A"));
      const { logger } = captureLogs("info");
      const env = {
        POSTBOT_BASE_URL: sandbox.url,
        POSTBOT_CONSUMER_KEY: app.consumer_key,
        POSTBOT_CONSUMER_SECRET: "wrong",
        A_TOKEN: "t",
        A_SECRET: "s",
      };
      const failed = start({ bots: dir, plugins: "plugins", data: join(dir, "data"), clock, logger, env });
      await expect(failed).rejects.toBeInstanceOf(UserError);
      await expect(failed).rejects.toThrow(
        /^the service at http:\/\/127\.0\.0\.1:\d+ refused the app's keys \(401, code 32 "Could not authenticate you"\); check POSTBOT_CONSUMER_KEY and POSTBOT_CONSUMER_SECRET \(the environment, then \S+\.env\)/,
      );
      expect((await sandbox.admin.stats()).routes["GET /2/users/me"]).toBeUndefined();
    } finally {
      await sandbox.close();
    }
  });

  it("a bot whose token the service does not know is paused with advice about its file; the others go on", async () => {
    const { clock, sandbox, app, dir } = await setup();
    try {
      const good = await sandbox.admin.createUser({ username: "good" });
      const token = await sandbox.admin.createToken({ consumer_key: app.consumer_key, user_id: good.id });
      await writeFile(join(dir, "good.yaml"), botFile("good", "GOOD"));
      await writeFile(join(dir, "bad.yaml"), botFile("bad", "BAD"));
      const { lines, logger } = captureLogs("info");
      const env = {
        POSTBOT_BASE_URL: sandbox.url,
        POSTBOT_CONSUMER_KEY: app.consumer_key,
        POSTBOT_CONSUMER_SECRET: app.consumer_secret,
        GOOD_TOKEN: token.token,
        GOOD_SECRET: token.token_secret,
        BAD_TOKEN: "no-such-token",
        BAD_SECRET: "no-such-secret",
      };
      const started = await start({ bots: dir, plugins: "plugins", data: join(dir, "data"), clock, logger, env });
      try {
        const bad = started.runtime.status().find((s) => s.bot === "bad")!;
        expect(bad.paused?.reason).toBe(
          `the service refused the account's token (401, code 32); its token comes from account.token and account.token_secret in ${join(dir, "bad.yaml")}: check them (and the environment variables or .env lines they read) and restart`,
        );
        expect(bad.paused?.reason).not.toMatch(/bot auth login/);
        expect(
          lines.some((l) => l.bot === "bad" && /^bot bad is paused: .*; the other bots go on$/.test(String(l.msg))),
        ).toBe(true);
        const alice = await sandbox.admin.createUser({ username: "alice" });
        await sandbox.admin.createPost({ author_id: alice.id, text: "@good hello" });
        await clock.advance(3_000);
        await started.runtime.idle();
        expect(
          Object.values(sandbox.context.data.world.posts)
            .filter((p) => p.author_id === good.id)
            .map((p) => p.text),
        ).toEqual(["good says hi"]);
      } finally {
        await started.stop();
      }
    } finally {
      await sandbox.close();
    }
  });
});
