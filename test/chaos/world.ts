/**
 * The world of the chaos campaign (./run.ts): a sandbox in this process on real time (the
 * service), bot files for a crowd of answering bots and one liking bot, real `bot start`
 * processes (bin/bot.js, as an operator runs them) and what they did, tallied from the
 * sandbox: each mention (and direct message) answered, answered twice or never; each matching
 * post liked or not; how late. Loopback only. Every process started here is tracked and killed by {@link closeAll}
 * (Ctrl-C included: ./run.ts calls it on SIGINT and SIGTERM).
 */
import { createWriteStream } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { compareIds } from "../../src/api/ids.ts";
import { createClock } from "../../src/clock.ts";
import { provisionBots, type ProvisionedBot } from "../../src/hosting/provision.ts";
import { createSandbox, type Sandbox } from "../../src/sandbox/index.ts";
import { testBotConfig } from "../../src/testing.ts";
import { killBots, lineReader, spawnBot, type BotChild } from "../helpers/cli.ts";
import type { RedisServer } from "../helpers/redis-server.ts";
import { closeSmallDisks } from "../helpers/small-disk.ts";

/** Where the campaign's plugins are (they import postbot from the source tree, as fixtures do). */
export const CHAOS_PLUGINS = new URL("./plugins", import.meta.url).pathname;
/** The tag of the posts the liking bot's stream rule matches. */
export const RULE = "#chaosmonkey";
/** How the echo plugin begins its answer to a direct message (the rest is the message's text). */
export const DM_ANSWER = "got it: ";
/** A reply or like this long after its post counts as late. */
export const LATE_MS = 60_000;

/** One row of the campaign's table. */
export interface ChaosRow {
  scenario: string;
  faults: string;
  /** Mentions and direct messages to the answering bots. */
  mentions: number;
  answered: number;
  twice: number;
  never: number;
  matching: number;
  liked: number;
  notLiked: number;
  late: number;
  /** The longest a mention waited for its answer or a post for its like (ms). */
  slowestMs: number;
}

/** A `bot start` process of the campaign. */
export interface BotProcess {
  child: BotChild;
  out: ReturnType<typeof lineReader>;
  err: ReturnType<typeof lineReader>;
  exit: Promise<number | null>;
  /** kill -9; resolves once it is gone. */
  kill9(): Promise<void>;
  /** SIGTERM; resolves with its exit code. */
  stop(): Promise<number | null>;
}

/** Where each process's output is kept (`npm run chaos -- --logs DIR`), if anywhere. */
let logsDir: string | undefined;
let processes = 0;
export function keepLogs(dir: string): void {
  logsDir = dir;
}

const servers = new Set<RedisServer>();
const sandboxes = new Set<Sandbox>();
const dirs = new Set<string>();

/** Tracks a Redis the campaign started, for {@link closeAll}. */
export function trackRedis(server: RedisServer): RedisServer {
  servers.add(server);
  return server;
}

/** Stops everything the campaign started: `bot start` processes (kill -9), small disks, Redis servers (thawed first), sandboxes, temp dirs. */
export async function closeAll(): Promise<void> {
  await killBots();
  await closeSmallDisks();
  for (const s of servers) {
    s.thaw();
    await s.close().catch(() => undefined);
  }
  servers.clear();
  for (const s of sandboxes) await s.close().catch(() => undefined);
  sandboxes.clear();
  for (const d of dirs) await rm(d, { recursive: true, force: true }).catch(() => undefined);
  dirs.clear();
}

export interface ChaosWorldOptions {
  /** How many answering bots (each takes its share of the mentions; pro: 100 replies per 15 minutes each). */
  answerers: number;
  /** Environment the processes get besides the service's and the bots' (POSTBOT_STATE...). */
  env?: Record<string, string>;
  /** Flags every `bot start` of the world gets besides its directories (`--lease 3`...). */
  args?: string[];
  /** Whether the answering bots answer direct messages too (each with its text). */
  dms?: boolean;
  /**
   * How many people mention the bots and write to them, in turn (default 1): a bot handles one
   * person's events one at a time, so a slow service makes one person's wait in a queue.
   */
  senders?: number;
  /** Bots of other kinds, by name: their triggers and plugins (YAML flow), e.g. a quiz's dialog. */
  others?: Record<string, { triggers: string; plugins: string }>;
}

export interface ChaosWorld {
  sandbox: Sandbox;
  hosted: ProvisionedBot[];
  answerers: string[];
  liker: string;
  /** A fresh data directory (`--data`). */
  dataDir(): Promise<string>;
  /**
   * Starts `bot start` on the bots (with `--data DIR` when given; `env` added to the world's;
   * `wrap`: a program that runs node, as a small disk's `nsenter`: ../helpers/small-disk.ts).
   */
  start(data?: string, env?: Record<string, string>, wrap?: readonly string[]): BotProcess;
  /** Sender `n % senders` (alice first) mentions answerer `n % answerers` (the text carries `n`). */
  mention(n: number): Promise<{ id: string; at: number }>;
  /** Sender `n % senders` writes to answerer `n % answerers` (the text carries `n`; `id` is the text). */
  dm(n: number): Promise<{ id: string; at: number }>;
  /** Alice posts a post the liker's rule matches. */
  matching(n: number): Promise<{ id: string; at: number }>;
  /** The row for these mentions (and direct messages) and matching posts, as the sandbox has them now. */
  tally(
    scenario: string,
    faults: string,
    mentions: ReadonlyArray<{ id: string; at: number }>,
    posts: ReadonlyArray<{ id: string; at: number }>,
    dms?: ReadonlyArray<{ id: string; at: number }>,
  ): ChaosRow;
  /** Sender `i` (alice first) posts `text`, in reply to post `to` when given. */
  postFrom(i: number, text: string, to?: string): Promise<void>;
  /** Bot `name`'s replies to sender `i`'s posts so far, oldest first, without the leading @username. */
  repliesTo(i: number, name: string): Array<{ id: string; text: string; at: number }>;
  /** Writes bot `name`'s file again with these plugins (the running processes follow it). */
  rewrite(name: string, plugins: string): Promise<void>;
  /** Whether every mention and direct message is answered and every matching post liked. */
  done(
    mentions: ReadonlyArray<{ id: string }>,
    posts: ReadonlyArray<{ id: string }>,
    dms?: ReadonlyArray<{ id: string }>,
  ): boolean;
}

/** Makes the sandbox, the app, the bots' accounts and their files. */
export async function chaosWorld(options: ChaosWorldOptions): Promise<ChaosWorld> {
  const sandbox = await createSandbox({ clock: createClock() });
  sandboxes.add(sandbox);
  const answerers = Array.from({ length: options.answerers }, (_, i) => `answer${String(i + 1).padStart(2, "0")}`);
  const liker = "liker";
  const others = options.others ?? {};
  const configs = [
    ...answerers.map((name) => testBotConfig({ name, plan: "pro", triggers: { mentions: {} }, plugins: {} }, {})),
    testBotConfig({ name: liker, plan: "pro", triggers: { stream: [{ value: RULE }] }, plugins: {} }, {}),
    ...Object.keys(others).map((name) => testBotConfig({ name, plan: "pro", triggers: { dms: {} }, plugins: {} }, {})),
  ];
  const hosted = await provisionBots(sandbox, configs);
  const root = await mkdtemp(join(tmpdir(), "postbot-chaos-"));
  dirs.add(root);
  const botsDir = join(root, "bots");
  await mkdir(botsDir);
  const env: Record<string, string> = {
    POSTBOT_BASE_URL: sandbox.url,
    POSTBOT_CONSUMER_KEY: hosted[0]!.app.key,
    POSTBOT_CONSUMER_SECRET: hosted[0]!.app.secret,
    ...options.env,
  };
  const botFile = (name: string, triggers: string, plugins: string) => {
    const up = name.toUpperCase();
    return `name: ${name}\nplan: pro\naccount:\n  token: \${${up}_TOKEN}\n  token_secret: \${${up}_SECRET}\ntriggers: ${triggers}\nplugins: ${plugins}\n`;
  };
  for (const h of hosted) {
    const up = h.config.name.toUpperCase();
    env[`${up}_TOKEN`] = h.token.token;
    env[`${up}_SECRET`] = h.token.secret;
    const other = others[h.config.name];
    if (other) {
      await writeFile(join(botsDir, `${h.config.name}.yaml`), botFile(h.config.name, other.triggers, other.plugins));
      continue;
    }
    const triggers =
      h.config.name === liker
        ? `{ stream: [{ value: "${RULE}" }] }`
        : options.dms
          ? "{ mentions: {}, dms: {} }"
          : "{ mentions: {} }";
    const plugins =
      h.config.name === liker ? "{ liker: {} }" : options.dms ? "{ echo: { dms: true } }" : "{ echo: {} }";
    await writeFile(join(botsDir, `${h.config.name}.yaml`), botFile(h.config.name, triggers, plugins));
  }
  const senders = [await sandbox.admin.createUser({ username: "alice", name: "alice" })];
  for (let i = 2; i <= (options.senders ?? 1); i++)
    senders.push(await sandbox.admin.createUser({ username: `sender${i}`, name: `sender${i}` }));
  const botIds = new Map(hosted.map((h) => [h.config.name, h.user.id]));
  const userOf = new Map(hosted.map((h) => [h.user.id, h.config.name]));
  const likerId = hosted.find((h) => h.config.name === liker)!.user.id;
  let dataDirs = 0;
  let posted = 0;

  const world: ChaosWorld = {
    sandbox,
    hosted,
    answerers,
    liker,
    async dataDir() {
      const dir = join(root, `data-${++dataDirs}`);
      await mkdir(dir);
      return dir;
    },
    start(data, more, wrap) {
      const child = spawnBot(
        [
          "start",
          "--bots",
          botsDir,
          "--plugins",
          CHAOS_PLUGINS,
          ...(data ? ["--data", data] : []),
          ...(options.args ?? []),
        ],
        { env: { ...env, ...more }, ...(wrap ? { wrap } : {}) },
      );
      const exit = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
      if (logsDir) {
        const file = createWriteStream(join(logsDir, `bot-start-${++processes}.log`));
        child.stdout.pipe(file);
        child.stderr.pipe(file);
      }
      return {
        child,
        out: lineReader(child.stdout),
        err: lineReader(child.stderr),
        exit,
        async kill9() {
          if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
          await exit;
        },
        async stop() {
          if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
          return await exit;
        },
      };
    },
    async mention(n) {
      const bot = answerers[n % answerers.length]!;
      const author = senders[n % senders.length]!;
      const post = await sandbox.admin.createPost({
        author_id: author.id,
        text: `@${bot} question ${n} (${++posted})`,
      });
      return { id: post.id, at: Date.now() };
    },
    async dm(n) {
      const bot = answerers[n % answerers.length]!;
      const text = `message ${n} (${++posted})`;
      await sandbox.admin.sendDm({ sender_id: senders[n % senders.length]!.id, recipient_id: botIds.get(bot)!, text });
      return { id: text, at: Date.now() };
    },
    async postFrom(i, text, to) {
      await sandbox.admin.createPost({ author_id: senders[i]!.id, text, ...(to ? { in_reply_to_post_id: to } : {}) });
    },
    repliesTo(i, name) {
      const { posts } = sandbox.context.data.world;
      const from = botIds.get(name)!;
      const to = senders[i]!.id;
      return Object.values(posts)
        .filter((p) => p.author_id === from && posts[p.in_reply_to_post_id ?? ""]?.author_id === to)
        .sort((a, b) => compareIds(a.id, b.id))
        .map((p) => ({ id: p.id, text: p.text.replace(/^@\w+ /, ""), at: p.created_at }));
    },
    async rewrite(name, plugins) {
      await writeFile(join(botsDir, `${name}.yaml`), botFile(name, others[name]!.triggers, plugins));
    },
    async matching(n) {
      const post = await sandbox.admin.createPost({
        author_id: senders[0]!.id,
        text: `${RULE} picture ${n} (${++posted})`,
      });
      return { id: post.id, at: Date.now() };
    },
    tally(scenario, faults, mentions, posts, dms = []) {
      const { replies, likes } = index(sandbox, userOf, likerId);
      let answered = 0;
      let twice = 0;
      let late = 0;
      let slowest = 0;
      for (const m of [...mentions, ...dms]) {
        const at = replies.get(m.id) ?? [];
        if (at.length > 0) answered++;
        if (at.length > 1) twice++;
        if (at.length > 0) {
          const wait = Math.min(...at) - m.at;
          slowest = Math.max(slowest, wait);
          if (wait > LATE_MS) late++;
        }
      }
      let liked = 0;
      for (const p of posts) {
        const at = likes.get(p.id);
        if (at === undefined) continue;
        liked++;
        slowest = Math.max(slowest, at - p.at);
        if (at - p.at > LATE_MS) late++;
      }
      return {
        scenario,
        faults,
        mentions: mentions.length + dms.length,
        answered,
        twice,
        never: mentions.length + dms.length - answered,
        matching: posts.length,
        liked,
        notLiked: posts.length - liked,
        late,
        slowestMs: slowest,
      };
    },
    done(mentions, posts, dms = []) {
      const { replies, likes } = index(sandbox, userOf, likerId);
      return [...mentions, ...dms].every((m) => replies.has(m.id)) && posts.every((p) => likes.has(p.id));
    },
  };
  return world;
}

/**
 * The bots' answers (their times): replies by the post they answer, and direct messages by the
 * text they answer (the echo plugin's `got it: TEXT`); the liker's likes by post (the time).
 */
function index(sandbox: Sandbox, userOf: ReadonlyMap<string, string>, likerId: string) {
  const replies = new Map<string, number[]>();
  const add = (key: string, at: number) => {
    const list = replies.get(key);
    if (list) list.push(at);
    else replies.set(key, [at]);
  };
  for (const p of Object.values(sandbox.context.data.world.posts))
    if (p.in_reply_to_post_id && userOf.has(p.author_id)) add(p.in_reply_to_post_id, p.created_at);
  for (const e of Object.values(sandbox.context.data.world.dm_events))
    if (e.event_type === "MessageCreate" && userOf.has(e.sender_id) && e.text?.startsWith(DM_ANSWER))
      add(e.text.slice(DM_ANSWER.length), e.created_at);
  const likes = new Map<string, number>();
  for (const l of sandbox.context.data.world.likes) if (l.user_id === likerId) likes.set(l.post_id, l.created_at);
  return { replies, likes };
}

/** Waits (real time) until `check` holds or `ms` passed; says which. */
export async function waitUntil(check: () => boolean | Promise<boolean>, ms: number, everyMs = 250): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await sleep(everyMs);
  }
  return await check();
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** A whole number in [min, max]. */
export const between = (min: number, max: number) => min + Math.floor(Math.random() * (max - min + 1));
