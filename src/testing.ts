/**
 * `postbot/testing`: test your bots and plugins against the sandbox, in-process, with a
 * frozen clock. Write the bot as you would in YAML (as an object), give the plugins, and a
 * test bed starts the sandbox, creates the bots' accounts, runs the runtime, and lets you
 * act as other users and move time.
 *
 * @example
 * ```ts
 * import { createTestBed } from "postbot/testing";
 * import reply from "../plugins/reply.ts";
 *
 * const bed = await createTestBed({
 *   bots: [{ name: "greeter", plan: "basic", triggers: { mentions: {} }, plugins: { reply: { text: "Hi @{author.username}!" } } }],
 *   plugins: { reply },
 * });
 * const alice = await bed.user("alice");
 * await bed.post(alice, "@greeter hello");
 * await bed.advance(90_000);                     // the next mentions poll
 * expect(bed.postsBy("greeter")[0].text).toBe("Hi @alice!");
 * await bed.close();
 * ```
 */
import { Writable } from "node:stream";
import { createClock, type AdjustableClock } from "./clock.ts";
import { botFileSchema, type BotConfig, type BotFileInput } from "./config/index.ts";
import { createLogger, type Logger } from "./log.ts";
import type { Plugin } from "./plugins/plugin.ts";
import { provisionBots, sandboxUsername } from "./hosting/provision.ts";
import { startRuntime } from "./hosting/runtime.ts";
import type { Runtime, RuntimeOptions } from "./hosting/types.ts";
import { createSandbox, type Sandbox } from "./sandbox/index.ts";
import { eventsOf, oneToOneId } from "./sandbox/domain/dms.ts";
import { matchingRules } from "./sandbox/domain/streams.ts";
import { compareIds, type SandboxPost } from "./sandbox/model/index.ts";
import { createMemoryStore, type Store } from "./store/store.ts";
import { readDialog } from "./plugins/dialogs/engine.ts";
import type { ChannelKind, DialogState } from "./plugins/dialogs/types.ts";

export interface TestBedOptions {
  /** Bot files, as objects (the YAML's shape). */
  bots: BotFileInput[];
  /** The plugins the bots name, by the name the bot files use. */
  plugins: Record<string, Plugin>;
  /** Start of the frozen clock (default 2026-03-02T12:00:00Z, a Monday). */
  start?: number;
  /** The state store (default: in memory). Pass a file store to test restarts. */
  store?: Store;
  /** A sandbox to reuse (default: a new one on a frozen clock). */
  sandbox?: Sandbox;
  /**
   * Logs. Default: what the plugins log (`ctx.log`, `bot.log`, a handler that threw), on the
   * console of the test that made them; postbot's own lines stay out.
   * `POSTBOT_TEST_LOG=debug` (or another level) shows everything from that level.
   */
  logger?: Logger;
  runtime?: Partial<Pick<RuntimeOptions, "dryRun" | "handlerTimeoutMs" | "drainMs" | "statusEveryMs" | "observer">>;
}

export interface TestUser {
  id: string;
  username: string;
}

/** A direct message of a conversation, as {@link TestBed.dmsWith} shows it. */
export interface TestDm {
  id: string;
  text: string;
  /** The sender's user id and username. */
  sender_id: string;
  sender: string;
  dm_conversation_id: string;
  /** ISO time. */
  created_at: string;
}

export interface TestBed {
  sandbox: Sandbox;
  clock: AdjustableClock;
  runtime: Runtime;
  store: Store;
  /** A user of the sandbox to act as (created on first use). */
  user(username: string): Promise<TestUser>;
  /** Posts as a user (a reply when `inReplyTo` is given); outside every budget. */
  post(as: TestUser, text: string, inReplyTo?: string): Promise<{ id: string; text: string }>;
  /**
   * Sends a direct message as a user to a bot (by its name, or any user by username), outside
   * every budget, as `POST /_sandbox/dms` does. The bot sees it at its next dms poll.
   */
  dm(as: TestUser, to: string, text: string): Promise<TestDm>;
  /**
   * The one-to-one conversation of a user and a bot (or any user), oldest first: the
   * messages of both, as either of them reads it (a test asserts the bot's answers here).
   */
  dmsWith(user: TestUser, other: string): TestDm[];
  /**
   * Answers a bot's dialog in a thread as the user: a reply to the bot's last message to them
   * there (its question). Throws when the user has no dialog open with the bot in a thread.
   */
  answer(as: TestUser, botName: string, text: string): Promise<{ id: string; text: string }>;
  /**
   * The user's open dialog with a bot (its step, turns, deadline...), in a thread or by DM
   * (default: the thread's, else the DM's); undefined when none is open. Its answers are in the
   * user's session.
   */
  dialog(botName: string, user: TestUser, channel?: ChannelKind): DialogState | undefined;
  /** Makes a user follow a bot (or any user). */
  follow(as: TestUser, username: string): Promise<void>;
  /** Moves the clock (and so the sandbox's), running every timer due in between. */
  advance(ms: number): Promise<void>;
  /** Waits until the bots have nothing in flight: no poll, no handler, no action. */
  settle(): Promise<void>;
  /** The posts of a bot (or any user), oldest first. */
  postsBy(username: string): SandboxPost[];
  /** Stops the runtime, keeping the sandbox (to start another runtime on it: a restart). */
  stop(): Promise<void>;
  /** Stops the runtime and the sandbox. */
  close(): Promise<void>;
}

/** A bot file object to the config the runtime takes, with the given plugins resolved. */
export function testBotConfig(input: BotFileInput, plugins: Record<string, Plugin>): BotConfig {
  const file = botFileSchema.safeParse(input);
  if (!file.success)
    throw new Error(
      `bot ${String(input.name)}: ${file.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`,
    );
  const resolved = file.data.plugins.map(({ name, options: raw }) => {
    const definition = plugins[name];
    if (!definition) throw new Error(`bot ${file.data.name}: no plugin "${name}" was given to the test bed`);
    const parsed = definition.options ? definition.options.safeParse(raw ?? {}) : { success: true as const, data: {} };
    if (!parsed.success)
      throw new Error(
        `bot ${file.data.name}: options of ${name}: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`,
      );
    return { name, options: parsed.data, definition, source: `test bed (${name})` };
  });
  return { ...file.data, file: `${file.data.name}.yaml`, plugins: resolved };
}

/** Fields every log line has; what else a line carries is printed after its message. */
const LINE_FIELDS = new Set(["level", "time", "msg", "bot", "plugin", "event", "component"]);

/**
 * The test bed's logger when the test gives none: the lines that name a plugin (what it logs
 * with `ctx.log` or `bot.log`, and a handler that threw or hung), each printed with `console`
 * so the test runner shows it with the test that wrote it (`loud shout: shouted back
 * {"status":"sent"}`). postbot's own lines stay out: `POSTBOT_TEST_LOG=LEVEL` shows them all.
 */
export function pluginLines(): Logger {
  const destination = new Writable({
    write(chunk, _encoding, done) {
      const line = JSON.parse(String(chunk)) as Record<string, unknown>;
      const level = Number(line.level);
      if (line.plugin !== undefined) {
        const who = [line.bot, line.plugin].filter((v) => typeof v === "string").join(" ");
        const rest = Object.fromEntries(Object.entries(line).filter(([k]) => !LINE_FIELDS.has(k)));
        const extra = Object.keys(rest).length > 0 ? ` ${JSON.stringify(rest)}` : "";
        const text = `${who ? `${who}: ` : ""}${String(line.msg ?? "")}${extra}`;
        if (level >= 50) console.error(`ERROR ${text}`);
        else if (level >= 40) console.warn(`WARN ${text}`);
        else console.log(text);
      }
      done();
    },
  });
  return createLogger({ level: "info", pretty: false, destination });
}

/** The sandbox, clock, store and logger of a test bed: the test's own where given, else new ones. */
async function bedParts(options: TestBedOptions) {
  const clock =
    (options.sandbox?.context.clock as AdjustableClock | undefined) ??
    createClock({ frozen: true, start: options.start ?? Date.parse("2026-03-02T12:00:00Z") });
  const sandbox = options.sandbox ?? (await createSandbox({ clock }));
  const store = options.store ?? createMemoryStore();
  const logger =
    options.logger ??
    (process.env.POSTBOT_TEST_LOG ? createLogger({ level: process.env.POSTBOT_TEST_LOG }) : pluginLines());
  return { clock, sandbox, store, logger };
}

/**
 * Waits, on settle, for the posts made since the last settle that a connected stream must
 * deliver: a test that posts and settles then sees what its bots heard by stream too.
 */
function streamWaiter(sandbox: Sandbox, runtime: Runtime) {
  const fresh: SandboxPost[] = [];
  const onPost = (post: SandboxPost) => void fresh.push(post);
  sandbox.context.events.on("post:created", onPost);
  return {
    async streamedAll() {
      // Real time on purpose: the stream crosses a socket, whatever the clock says.
      const deadline = Date.now() + 10_000;
      while (fresh.length > 0 && Date.now() < deadline) {
        const post = fresh[0]!;
        const waiting = runtime
          .apps()
          .filter(
            (a) =>
              a.stream?.state === "connected" &&
              !runtime.streamed(a.appId, post.id) &&
              matchingRules(sandbox.context, a.appId, post).length > 0,
          );
        if (waiting.length === 0) fresh.shift();
        else await new Promise((r) => setTimeout(r, 1));
      }
      fresh.length = 0;
    },
    detach: () => sandbox.context.events.off("post:created", onPost),
  };
}

/** A user of the sandbox by username, any case. */
const userByName = (sandbox: Sandbox, username: string) =>
  Object.values(sandbox.context.data.world.users).find((u) => u.username.toLowerCase() === username.toLowerCase());

/** A bot's account by the bot's name, or any user by username; undefined when there is none. */
const accountOf = (sandbox: Sandbox, name: string) =>
  userByName(sandbox, name) ?? userByName(sandbox, sandboxUsername(name));

/** A bot's account by the bot's name, or any user by username. */
function named(sandbox: Sandbox, name: string) {
  const user = accountOf(sandbox, name);
  if (!user) throw new Error(`no user ${name} in the sandbox (a bot of the test bed, or a user made with bed.user)`);
  return user;
}

/** A DM event of the sandbox as a test sees it. */
function asTestDm(
  sandbox: Sandbox,
  e: { id: string; text?: string; sender_id: string; dm_conversation_id: string; created_at: number },
): TestDm {
  return {
    id: e.id,
    text: e.text ?? "",
    sender_id: e.sender_id,
    sender: sandbox.context.data.world.users[e.sender_id]?.username ?? "",
    dm_conversation_id: e.dm_conversation_id,
    created_at: new Date(e.created_at).toISOString(),
  };
}

/** {@link TestBed.answer}: a reply to the bot's last message in the user's open dialog in a thread. */
function answerInThread(sandbox: Sandbox, runtime: Runtime, as: TestUser, botName: string, text: string) {
  const open = readDialog(runtime.actions.store, botName, as.id, "thread");
  if (!open) throw new Error(`${as.username} has no dialog open with ${botName} in a thread`);
  const botUser = accountOf(sandbox, botName);
  // The bot's last message to them in the thread: the dialog knows it once it was sent.
  const last =
    open.lastBotPost ??
    Object.values(sandbox.context.data.world.posts)
      .filter((p) => p.author_id === botUser?.id && p.conversation_id === open.place)
      .sort((a, b) => compareIds(b.id, a.id))[0]?.id;
  if (!last) throw new Error(`${botName} has said nothing to ${as.username} in their dialog yet`);
  return sandbox.admin.createPost({ author_id: as.id, text, in_reply_to_post_id: last });
}

/** {@link TestBed.follow}, through the sandbox's admin API. */
async function followAs(sandbox: Sandbox, as: TestUser, username: string): Promise<void> {
  const target = accountOf(sandbox, username);
  if (!target) throw new Error(`no user ${username} in the sandbox`);
  const res = await fetch(new URL("/_sandbox/follows", sandbox.url), {
    method: "POST",
    headers: { authorization: `Bearer ${sandbox.adminToken}`, "content-type": "application/json" },
    body: JSON.stringify({ source_user_id: as.id, target_user_id: target.id }),
  });
  if (!res.ok) throw new Error(`follow ${as.username} → ${username}: ${res.status} ${await res.text()}`);
}

/** {@link TestBed.postsBy}: a user's live posts, oldest first. */
function postsOf(sandbox: Sandbox, username: string): SandboxPost[] {
  const user = accountOf(sandbox, username);
  if (!user) return [];
  return Object.values(sandbox.context.data.world.posts)
    .filter((p) => p.author_id === user.id && p.deleted_at === undefined)
    .sort((a, b) => compareIds(a.id, b.id));
}

/**
 * Starts the bots of `options` on a sandbox (the test's, or a new one on a frozen clock) and
 * returns once their first polls are done; see {@link TestBed}.
 */
export async function createTestBed(options: TestBedOptions): Promise<TestBed> {
  const { clock, sandbox, store, logger } = await bedParts(options);
  const configs = options.bots.map((b) => testBotConfig(b, options.plugins));
  const hosted = await provisionBots(sandbox, configs);
  const runtime = await startRuntime({ baseUrl: sandbox.url, bots: hosted, store, clock, logger, ...options.runtime });
  const streams = streamWaiter(sandbox, runtime);
  const bed: TestBed = {
    sandbox,
    clock,
    runtime,
    store,
    async user(username) {
      const found = userByName(sandbox, username);
      const user = found ?? (await sandbox.admin.createUser({ username, name: username }));
      return { id: user.id, username: user.username };
    },
    post: (as, text, inReplyTo) =>
      sandbox.admin.createPost({ author_id: as.id, text, ...(inReplyTo ? { in_reply_to_post_id: inReplyTo } : {}) }),
    async dm(as, to, text) {
      const sent = await sandbox.admin.sendDm({ sender_id: as.id, recipient_id: named(sandbox, to).id, text });
      return asTestDm(sandbox, {
        ...sent,
        sender_id: as.id,
        dm_conversation_id: sent.dm_conversation_id ?? "",
        created_at: Date.parse(sent.created_at ?? ""),
      });
    },
    dmsWith(user, other) {
      const conversation = oneToOneId(user.id, named(sandbox, other).id);
      return eventsOf(sandbox.context, user.id, conversation)
        .filter((e) => e.event_type === "MessageCreate")
        .reverse()
        .map((e) => asTestDm(sandbox, e));
    },
    answer: (as, botName, text) => answerInThread(sandbox, runtime, as, botName, text),
    dialog(botName, user, channel) {
      const from = runtime.actions.store;
      if (channel) return readDialog(from, botName, user.id, channel);
      return readDialog(from, botName, user.id, "thread") ?? readDialog(from, botName, user.id, "dm");
    },
    follow: (as, username) => followAs(sandbox, as, username),
    advance: (ms) => clock.advance(ms),
    async settle() {
      await streams.streamedAll();
      await runtime.idle();
    },
    postsBy: (username) => postsOf(sandbox, username),
    stop: () => {
      streams.detach();
      return runtime.stop();
    },
    async close() {
      streams.detach();
      await runtime.stop();
      if (!options.sandbox) await sandbox.close();
    },
  };
  // The triggers' first polls belong to the start: a test acts after them.
  await bed.settle();
  return bed;
}
