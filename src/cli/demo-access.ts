/**
 * How `bot say` and `bot follow` find the demo's embedded sandbox: `bot start` (with no
 * service configured) writes its address and admin token to `DATA/demo.json` (mode 0600: the
 * admin token is a secret, so it goes only to the state directory, never to the log) and
 * removes the file when it stops. A second process reads it to act as a user of the demo.
 */
import { readFile, rm } from "node:fs/promises";
import { join, resolve } from "node:path";
import { UserError } from "../errors.ts";
import type { Logger } from "../log.ts";
import type { BotRuntime } from "../runtime/bot.ts";
import { PERSONAS } from "../sandbox/crowd/content.ts";
import { TRIGGER_OF } from "../triggers/events.ts";
import type { EventName } from "../plugins/plugin.ts";
import { writeFileAtomic } from "../store/atomic-file.ts";

/** The file, in the data directory, that says where the running demo's sandbox is. */
export const DEMO_FILE = "demo.json";

/** What a bot of the demo answers, and how soon it can: what `bot say --wait` waits for. */
export interface DemoAnswerer {
  /** The events of a post that some plugin of the bot handles: `mention`, `reply` (to its own post). */
  events: Array<"mention" | "reply">;
  /** How its mentions (and replies to it) reach it: through the app's stream, or polled. */
  via: "poll" | "stream";
  /** Its mentions poll interval (ms; on the stream, the catch-up poll's). */
  every_ms: number;
}

/** A bot of the running demo as `bot start` describes it when it publishes the demo. */
export interface DemoBot {
  name: string;
  /** Its account's username (a connected account's bot, `greeter-for-maya-codes`, is `maya_codes`). */
  username: string;
  /** The events some plugin of the bot handles (`mention`, `follow`, ...). */
  handles: string[];
  /** How its mentions reach it; absent when its file has no mentions trigger. */
  mentions?: { via: "poll" | "stream"; everyMs: number };
  /** How often it reads its direct messages; absent when its file has no dms trigger. */
  dms?: { everyMs: number };
}

/** A bot of the demo that answers direct messages, and how soon it can: what `bot say --dm --wait` waits for. */
export interface DemoDmAnswerer {
  /** How often it reads its direct messages (ms). */
  every_ms: number;
}

export interface DemoAccess {
  /** The embedded sandbox's base URL (loopback). */
  url: string;
  /** Its admin token (`Authorization: Bearer ...` on `/_sandbox/*`). */
  admin_token: string;
  /** The `bot start` process serving it. */
  pid: number;
  /** The bots of the demo, by name (their accounts have the same usernames). */
  bots: string[];
  /** The bots directory it watches (absolute): a bot file saved there starts in the demo. */
  bots_dir?: string;
  /** The bots that answer posts (a mentions trigger and a plugin handling mentions or replies), by name. */
  answers?: Record<string, DemoAnswerer>;
  /** The bots that answer direct messages (a dms trigger and a plugin handling `dm`), by name. */
  dm_answers?: Record<string, DemoDmAnswerer>;
  /** Each bot's account username, by bot name, where it is not the bot's name (a connected account's). */
  usernames?: Record<string, string>;
}

/** The username of bot `name`'s account in the demo (its name, unless the demo says otherwise). */
export const usernameOf = (access: DemoAccess, name: string): string => access.usernames?.[name] ?? name;

/**
 * The bot of the demo that `word` names: a bot's name, or its account's username (`@maya_codes`
 * is the bot `greeter-for-maya-codes`), either case; undefined when it names none.
 */
export function botNamed(access: DemoAccess, word: string): string | undefined {
  const w = word.replace(/^@/, "").toLowerCase();
  return (
    access.bots.find((b) => usernameOf(access, b).toLowerCase() === w) ?? access.bots.find((b) => b.toLowerCase() === w)
  );
}

/** The hosted bots as the demo describes them: what each handles, and how its mentions reach it. */
export function demoBots(
  bots: ReadonlyMap<string, Pick<BotRuntime, "handles" | "mentionsDelivery" | "dmsDelivery" | "identity">>,
): DemoBot[] {
  return [...bots].map(([name, bot]) => {
    const mentions = bot.mentionsDelivery();
    const dms = bot.dmsDelivery();
    return {
      name,
      username: bot.identity.username,
      handles: (Object.keys(TRIGGER_OF) as EventName[]).filter((e) => bot.handles(e)),
      ...(mentions ? { mentions } : {}),
      ...(dms ? { dms } : {}),
    };
  });
}

/** The bots of `bots` that answer posts, and how soon (see {@link DemoAccess.answers}). */
export function answerers(bots: readonly DemoBot[]): Record<string, DemoAnswerer> {
  const out: Record<string, DemoAnswerer> = {};
  for (const bot of bots) {
    const events = (["mention", "reply"] as const).filter((e) => bot.handles.includes(e));
    if (bot.mentions && events.length > 0)
      out[bot.name] = { events, via: bot.mentions.via, every_ms: bot.mentions.everyMs };
  }
  return out;
}

/** The bots of `bots` that answer direct messages, and how soon (see {@link DemoAccess.dm_answers}). */
export function dmAnswerers(bots: readonly DemoBot[]): Record<string, DemoDmAnswerer> {
  const out: Record<string, DemoDmAnswerer> = {};
  for (const bot of bots) if (bot.dms && bot.handles.includes("dm")) out[bot.name] = { every_ms: bot.dms.everyMs };
  return out;
}

/**
 * What `DATA/demo.json` says of the running demo: where its sandbox is, its bots, their
 * accounts' usernames, which answer what and how soon, and the bots directory it watches.
 */
export function demoAccessOf(
  sandbox: { url: string; adminToken: string },
  bots: readonly DemoBot[],
  botsDir: string,
): DemoAccess {
  const usernames = Object.fromEntries(bots.filter((b) => b.username !== b.name).map((b) => [b.name, b.username]));
  return {
    url: sandbox.url,
    admin_token: sandbox.adminToken,
    pid: process.pid,
    bots: bots.map((b) => b.name),
    bots_dir: resolve(botsDir),
    answers: answerers(bots),
    dm_answers: dmAnswerers(bots),
    usernames,
  };
}

/** Writes `DATA/demo.json` and returns what removes it (at stop). */
export async function publishDemo(dataDir: string, access: DemoAccess): Promise<() => Promise<void>> {
  const file = join(dataDir, DEMO_FILE);
  await writeFileAtomic(file, `${JSON.stringify(access, null, 2)}\n`);
  return () => rm(file, { force: true });
}

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
};

/** Reads `DATA/demo.json`; a {@link UserError} saying to start the demo when none runs there. */
export async function readDemo(dataDir: string): Promise<DemoAccess> {
  const file = join(dataDir, DEMO_FILE);
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch {
    throw new UserError(
      `no demo is running with the data directory ${dataDir} (no ${file}): start it with \`npm start\` (or \`bot start\` without POSTBOT_BASE_URL), or give --data DIR`,
    );
  }
  let access: DemoAccess;
  try {
    access = JSON.parse(text) as DemoAccess;
  } catch {
    throw new UserError(`${file} is not JSON; restart the demo (npm start) to write it again`);
  }
  if (typeof access.url !== "string" || typeof access.admin_token !== "string")
    throw new UserError(`${file} lacks url or admin_token; restart the demo (npm start) to write it again`);
  if (typeof access.pid === "number" && !isAlive(access.pid)) {
    throw new UserError(
      `the demo that wrote ${file} (pid ${access.pid}) is not running any more: start it with \`npm start\``,
    );
  }
  return access;
}

/**
 * The demo running with `dataDir` (its `demo.json`, written by a live process other than this
 * one), or undefined. Another `bot start` on the same data directory would be refused its
 * lock: {@link besideDemo} says what to do instead.
 */
export async function runningDemo(dataDir: string): Promise<DemoAccess | undefined> {
  let access: DemoAccess;
  try {
    access = JSON.parse(await readFile(join(dataDir, DEMO_FILE), "utf8")) as DemoAccess;
  } catch {
    return undefined;
  }
  if (typeof access.pid !== "number" || access.pid === process.pid || !isAlive(access.pid)) return undefined;
  return access;
}

/**
 * Why `bot start` cannot run beside the demo on its data directory, and what to do: the
 * demo starts the bot files saved in its bots directory by itself, so a bot asked for with
 * `--only` usually runs in it already; to run it alone, stop the demo first.
 */
export function besideDemo(demo: DemoAccess, dataDir: string, botsDir: string, only?: readonly string[]): string {
  const head = `the demo (npm start, pid ${demo.pid}) is running with the data directory ${dataDir}, and two bot start cannot share one`;
  const stop = "stop the demo first (Ctrl-C where it runs, or kill " + demo.pid + "), then run this again";
  const sameBots = demo.bots_dir !== undefined && resolve(botsDir) === demo.bots_dir;
  if (!only || only.length === 0) return `${head}: ${stop}, or give this one another data directory (--data DIR)`;
  const running = only.filter((name) => demo.bots.includes(name));
  const missing = only.filter((name) => !demo.bots.includes(name));
  const parts: string[] = [];
  if (running.length > 0)
    parts.push(
      `${running.join(", ")} ${running.length === 1 ? "runs" : "run"} in the demo already${sameBots ? " (it starts the bot files saved in its bots directory)" : ""}: talk to ${running.length === 1 ? "it" : "them"} with npx bot say --as alice "@${usernameOf(demo, running[0]!)} hi"`,
    );
  if (missing.length > 0)
    parts.push(
      sameBots
        ? `the demo did not start ${missing.join(", ")}: its log says why (npx bot validate checks the bot files)`
        : `the demo does not run ${missing.join(", ")}`,
    );
  return `${head}. ${parts.join("; ")}. To run ${only.join(", ")} alone, ${stop}`;
}

/**
 * Publishes the running demo for `bot say` and `bot follow`, and says how to use them (the
 * log line shows the commands, never the admin token), naming a bot that answers mentions
 * and one that notices follows, and, when one answers direct messages, how to send it one.
 * Returns what unpublishes it.
 */
export async function announceDemo(
  dataDir: string,
  access: DemoAccess,
  bots: readonly DemoBot[],
  logger: Logger,
  /** The connect page (`--http` with templates): where a person connects a sandbox user. */
  connectPage?: string,
): Promise<() => Promise<void>> {
  const answers = access.answers ?? {};
  const dmAnswers = access.dm_answers ?? {};
  const unpublish = await publishDemo(dataDir, access);
  const data = dataDir === ".postbot" ? "" : ` --data ${dataDir}`;
  const answering =
    Object.keys(answers).find((name) => answers[name]!.events.includes("mention")) ?? bots[0]?.name ?? "BOT";
  const following = bots.find((b) => b.handles.includes("follow"))?.name ?? answering;
  // A post mentions an account: the bot's account's username, which a connected account's bot's name is not.
  logger.info(
    `talk to the bots as a user of the demo: npx bot say${data} --as alice "@${usernameOf(access, answering)} hello" (add --reply-to POST_ID to answer a post); npx bot follow${data} --as alice ${usernameOf(access, following)}`,
  );
  const dmBot = Object.keys(dmAnswers)[0];
  if (dmBot !== undefined) {
    logger.info(
      `send a bot a direct message as a user of the demo: npx bot say${data} --dm --as alice ${dmBot} "hello" (add --wait to see its answer)`,
    );
  }
  if (connectPage) {
    const someone = PERSONAS[0]!.username;
    logger.info(
      `connect a sandbox user in the browser: open ${connectPage}, sign in as ${someone} (every simulated user's password is sandbox), then mention it: npx bot say${data} --as alice "@${someone} hello"`,
    );
  }
  return unpublish;
}
