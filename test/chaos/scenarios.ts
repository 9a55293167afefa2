/**
 * The chaos campaign's scenarios (the fault campaign, kept so the next change can be
 * checked the same way). Each starts its own world (./world.ts), does its harm while
 * mentions and matching posts come, waits (bounded) for the outcome, and returns its row:
 *
 * - `kill -9 loop`: one `bot start` (state in files) killed with SIGKILL every 2–6 s and
 *   started again at once, through all the mentions.
 * - `stream faults`: the app's stream dropped, refused (503), reset and stalled by the
 *   sandbox's faults while the posts come (with `--long`, a 429 too: a minute's backoff).
 * - `Redis`: three processes sharing a Redis; Redis frozen (SIGSTOP) for less than a lease,
 *   the stream's holder killed with SIGKILL (started again a lease later), Redis restarted.
 * - `journal cuts`: a state directory whose journal is cut at a random offset, started: the
 *   start must refuse it with a message (never replay a part of it without a word).
 * - `full disk`: the state on a small tmpfs (../helpers/small-disk.ts) filled up while the
 *   mentions come, freed again, filled again and the process stopped (SIGTERM) while full,
 *   then started again with space: what came while it was full is answered once space is
 *   back, the stop ends cleanly (exit 3, saying what it could not save, no lock left).
 * - `clock skew`: the bots' process with its clock hours ahead of the service's, then minutes
 *   behind, then right (each a process of its own, started on the same state, its clock read
 *   off as libfaketime would make it: ./skewed-clock.mjs), while the mentions come; each
 *   skewed process must say its clock is off.
 * - `hung process`: three processes sharing a Redis; the one running the answering bot is
 *   stopped (SIGSTOP) past its lease while its replies and DM answers are held at a slow
 *   service (a delay fault), then let go: each mention and DM answered once.
 * - `dialog edit`: a quiz's steps reordered in its bot file while the process runs, with
 *   users in the middle of it in their threads: each open quiz must finish once, on the steps
 *   it started with, no placeholder sent unfilled, and the log must say how many open dialogs
 *   the edit concerns.
 */
import { cp, readdir, stat, truncate } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { connectRedis } from "../../src/redis/connect.ts";
import type { FaultSpec } from "../../src/sandbox/faults.ts";
import { leaseHolders } from "../helpers/lease-holders.ts";
import { startRedisServer } from "../helpers/redis-server.ts";
import { smallDisk, type SmallDisk } from "../helpers/small-disk.ts";
import {
  between,
  type BotProcess,
  LATE_MS,
  type ChaosRow,
  type ChaosWorld,
  chaosWorld,
  RULE,
  sleep,
  trackRedis,
  waitUntil,
} from "./world.ts";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** How much of everything: `tiny` (the test's), `default` (about 5 minutes), `long`. */
export interface ChaosScale {
  name: string;
  answerers: number;
  /** The kill -9 loop: mentions, one matching post per `matchingEvery` of them, mentions per second, kills (`undefined`: every 2–6 s until the mentions end). */
  kill: { mentions: number; matchingEvery: number; perSecond: number; kills?: number };
  /** The stream faults: matching posts, per second, the faults (in order, one per connection), messages each connection carries first. */
  stream: {
    posts: number;
    perSecond: number;
    faults: Array<"drop" | "503" | "reset" | "stall" | "429">;
    afterMessages: number;
  };
  /**
   * The Redis scenario: mentions, matching post per N, per second, the freeze's length (under
   * a lease: it must move no bot), and the processes' lease (`--lease`, seconds; default 9).
   */
  redis: {
    mentions: number;
    matchingEvery: number;
    perSecond: number;
    freezeMs: number;
    restart: boolean;
    leaseSeconds?: number;
  };
  /** Journal cuts at random offsets. */
  journalCuts: number;
  /** The full disk: mentions, per second, and the tmpfs's size (KB). */
  fullDisk: { mentions: number; perSecond: number; kb: number };
  /** The clock skew: mentions, per second, and the processes' clocks in turn (ms off the service's; + ahead). */
  clockSkew: { mentions: number; perSecond: number; offsetsMs: number[] };
  /**
   * The hung process: mentions and DMs to the bot (each from a person of its own), how long the
   * service holds each answer, how long the process is stopped, and the lease (seconds).
   */
  hung: { mentions: number; dms: number; delayMs: number; freezeMs: number; leaseSeconds: number };
  /** The dialog edit: how many users are in the quiz when its steps are reordered (half at each question). */
  dialog: { users: number };
  /** How long each scenario waits for the last answers and likes once the load ended. */
  drainMs: number;
}

export const SCALES: Record<string, ChaosScale> = {
  tiny: {
    name: "tiny",
    answerers: 2,
    kill: { mentions: 6, matchingEvery: 3, perSecond: 4, kills: 1 },
    stream: { posts: 6, perSecond: 4, faults: ["drop"], afterMessages: 3 },
    // A 3 s lease: the killed holder's bots and stream move after 3 s, not 9.
    redis: { mentions: 6, matchingEvery: 3, perSecond: 4, freezeMs: 1_000, restart: false, leaseSeconds: 3 },
    journalCuts: 1,
    fullDisk: { mentions: 8, perSecond: 4, kb: 2048 },
    clockSkew: { mentions: 6, perSecond: 4, offsetsMs: [2 * HOUR, -10 * MINUTE, 0] },
    hung: { mentions: 2, dms: 2, delayMs: 7_000, freezeMs: 12_000, leaseSeconds: 3 },
    dialog: { users: 4 },
    drainMs: 60_000,
  },
  default: {
    name: "default",
    // 100 answers each in 15 minutes is the pro plan's reply window: 10 bots answer 1,000.
    answerers: 10,
    kill: { mentions: 1_000, matchingEvery: 5, perSecond: 12 },
    stream: { posts: 120, perSecond: 3, faults: ["drop", "503", "reset", "stall", "drop"], afterMessages: 12 },
    redis: { mentions: 240, matchingEvery: 3, perSecond: 6, freezeMs: 5_000, restart: true },
    journalCuts: 5,
    fullDisk: { mentions: 120, perSecond: 4, kb: 4096 },
    clockSkew: { mentions: 90, perSecond: 3, offsetsMs: [2 * HOUR, -10 * MINUTE, 0] },
    // As an operator met it: a 9 s lease, stopped 15 s, answers held 25 s by the service.
    hung: { mentions: 6, dms: 6, delayMs: 25_000, freezeMs: 15_000, leaseSeconds: 9 },
    dialog: { users: 20 },
    drainMs: 60_000,
  },
  long: {
    name: "long",
    answerers: 10,
    kill: { mentions: 1_000, matchingEvery: 2, perSecond: 4 },
    stream: {
      posts: 300,
      perSecond: 3,
      faults: ["drop", "503", "reset", "stall", "429", "drop", "stall"],
      afterMessages: 12,
    },
    redis: { mentions: 600, matchingEvery: 2, perSecond: 4, freezeMs: 8_000, restart: true },
    journalCuts: 20,
    fullDisk: { mentions: 300, perSecond: 4, kb: 4096 },
    clockSkew: { mentions: 300, perSecond: 3, offsetsMs: [2 * HOUR, -10 * MINUTE, 7 * MINUTE, -3 * HOUR, 0] },
    hung: { mentions: 20, dms: 20, delayMs: 25_000, freezeMs: 15_000, leaseSeconds: 9 },
    dialog: { users: 60 },
    drainMs: 180_000,
  },
};

type Say = (line: string) => void;
type Posted = Array<{ id: string; at: number }>;

/**
 * Waits (bounded) until a process's bots started and, with `streaming`, its app's stream first
 * connected: posts made before a deployment's very first connection are none of its business
 * (a bot sees what comes once it runs), so the load starts after it. False when the process
 * died first or the time ran out.
 */
async function started(proc: BotProcess, streaming = false, ms = 60_000): Promise<boolean> {
  return await Promise.race([
    proc.out.waitFor(streaming ? /"msg":"stream connected"/ : /all bots started/).then(() => true),
    proc.exit.then(() => false),
    sleep(ms).then(() => false),
  ]);
}

/** Posts `count` mentions (and a matching post every `matchingEvery`) at `perSecond`, calling `at(i)` before each. */
async function produce(
  world: ChaosWorld,
  o: { count: number; perSecond: number; matchingEvery: number },
  at: (i: number) => Promise<void> | void = () => {},
): Promise<{ mentions: Posted; posts: Posted }> {
  const mentions: Posted = [];
  const posts: Posted = [];
  const t0 = Date.now();
  for (let i = 0; i < o.count; i++) {
    await at(i);
    mentions.push(await world.mention(i));
    if (i % o.matchingEvery === 0) posts.push(await world.matching(i));
    const due = t0 + ((i + 1) * 1000) / o.perSecond;
    if (due > Date.now()) await sleep(due - Date.now());
  }
  return { mentions, posts };
}

/** kill -9 every 2–6 s (or `kills` times, spread) through the mentions; the process is started again at once. */
export async function killLoop(scale: ChaosScale, say: Say): Promise<ChaosRow> {
  const world = await chaosWorld({ answerers: scale.answerers });
  const data = await world.dataDir();
  let proc = world.start(data);
  if (!(await started(proc, true))) say("kill -9 loop: the first bot start did not connect its stream");
  let producing = true;
  let kills = 0;
  const killOnce = async () => {
    await proc.kill9();
    kills++;
    proc = world.start(data);
  };
  const { kills: fixed } = scale.kill;
  const killer = (async () => {
    if (fixed !== undefined) return;
    while (producing) {
      await sleep(between(2_000, 6_000));
      if (producing) await killOnce();
    }
  })();
  const spread = fixed !== undefined ? Math.max(1, Math.floor(scale.kill.mentions / (fixed + 1))) : 0;
  const { mentions, posts } = await produce(
    world,
    { count: scale.kill.mentions, perSecond: scale.kill.perSecond, matchingEvery: scale.kill.matchingEvery },
    async (i) => {
      if (fixed !== undefined && i > 0 && i % spread === 0 && kills < fixed) await killOnce();
    },
  );
  producing = false;
  await killer;
  say(`kill -9 loop: ${mentions.length} mentions posted, ${kills} kills; waiting for the last answers`);
  await waitUntil(() => world.done(mentions, posts), scale.drainMs);
  const code = await proc.stop();
  if (code !== 0) say(`kill -9 loop: the last bot start exited ${code} when stopped`);
  return world.tally("kill -9 loop (state in files)", `${kills} × kill -9, every 2–6 s`, mentions, posts);
}

/**
 * What the next connection of the app's stream gets, per fault: a sandbox fault applies to the
 * connection opened after it was added (a drop or a stall once its stream opens, an error or a
 * reset to the attempt), so each stage also ends the connection after it, for the next stage.
 */
function faultStage(which: ChaosScale["stream"]["faults"][number], after: number): FaultSpec[] {
  const drop: FaultSpec = { kind: "drop", after_messages: after };
  switch (which) {
    case "drop":
      return [drop];
    case "stall":
      return [{ kind: "stall", after_messages: after }];
    case "reset":
      return [{ kind: "reset" }, drop];
    case "503":
      return [{ kind: "error", status: 503 }, drop];
    case "429":
      return [{ kind: "error", status: 429 }, drop];
  }
}

/** The app's stream dropped, refused, reset and stalled while the posts come, one fault after the other. */
export async function streamFaults(scale: ChaosScale, say: Say): Promise<ChaosRow> {
  const world = await chaosWorld({ answerers: scale.answerers });
  const route = "GET /2/posts/search/stream";
  const { faults, afterMessages } = scale.stream;
  const pending = async () => {
    const res = await fetch(new URL("/_sandbox/faults", world.sandbox.url), {
      headers: { authorization: `Bearer ${world.sandbox.adminToken}` },
    });
    return ((await res.json()) as { faults: unknown[] }).faults.length;
  };
  let applied = 0;
  const next = async () => {
    const which = faults[applied];
    if (which === undefined) return;
    for (const spec of faultStage(which, afterMessages))
      await world.sandbox.admin.addFault({ route, count: 1, ...spec });
    applied++;
  };
  await next(); // the first connection gets the first fault
  const proc = world.start(await world.dataDir());
  if (!(await started(proc, true))) say("stream faults: bot start did not connect its stream");
  const { mentions, posts } = await produce(
    world,
    { count: scale.stream.posts, perSecond: scale.stream.perSecond, matchingEvery: 1 },
    async () => {
      // The connection the last stage's faults are for has opened: the next stage is for the one after it.
      if (applied < faults.length && (await pending()) === 0) await next();
    },
  );
  const got = faults.slice(0, applied);
  say(`stream faults: ${posts.length} matching posts, faults ${got.join(", ")}; waiting for the last likes`);
  await waitUntil(() => world.done(mentions, posts), scale.drainMs);
  await proc.stop();
  return world.tally("stream faults", `${got.join(", ")} (${applied} of ${faults.length} applied)`, mentions, posts);
}

/** Three processes on one Redis: Redis frozen, the stream's holder killed, Redis restarted. */
export async function redisTrouble(scale: ChaosScale, say: Say): Promise<ChaosRow> {
  const server = trackRedis(await startRedisServer());
  const lease = scale.redis.leaseSeconds;
  const world = await chaosWorld({
    answerers: scale.answerers,
    env: { POSTBOT_STATE: server.url },
    ...(lease ? { args: ["--lease", String(lease)] } : {}),
  });
  const admin = await connectRedis(server.url);
  admin.on("error", () => undefined);
  try {
    const procs: BotProcess[] = [world.start(), world.start(), world.start()];
    for (const p of procs) if (!(await started(p))) say("Redis: a bot start did not start");
    const appStream = async () => (await admin.keys("postbot:handoff:*:state")).length > 0;
    if (!(await waitUntil(appStream, 60_000))) say("Redis: the app's stream did not connect");
    const streamHolder = async (): Promise<BotProcess | undefined> => {
      const keys = await admin.keys("postbot:lease:stream:*");
      const value = keys[0] ? await admin.get(keys[0]) : null;
      const pid = value ? Number(value.split("|")[1]?.split(":").at(-2)) : undefined;
      return procs.find((p) => p.child.pid === pid);
    };
    await waitUntil(async () => (await streamHolder()) !== undefined, 30_000);
    // The liker's rule in the app's stream too: the holder adds it once it reads that another
    // process runs the liker, and a matching post before that is none of the stream's business
    // (as posts before its first connection: started() above).
    const ruleIn = () =>
      Object.values(world.sandbox.context.data.world.stream_rules).some((r) => r.value.includes(RULE));
    if (!(await waitUntil(ruleIn, 30_000))) say("Redis: the liker's stream rule was not added");
    const count = scale.redis.mentions;
    const done: string[] = [];
    let restarted: Promise<void> | undefined;
    const { mentions, posts } = await produce(
      world,
      { count, perSecond: scale.redis.perSecond, matchingEvery: scale.redis.matchingEvery },
      async (i) => {
        if (i === Math.floor(count / 5)) {
          server.freeze();
          await sleep(scale.redis.freezeMs);
          server.thaw();
          done.push(`Redis frozen ${scale.redis.freezeMs / 1000} s`);
        } else if (i === Math.floor((2 * count) / 5)) {
          const holder = await streamHolder();
          if (holder) {
            await holder.kill9();
            done.push("the stream's holder killed (-9)");
            // Started again a lease and a second later: the others have taken its bots and the stream over by then.
            restarted = sleep(((lease ?? 9) + 1) * 1000).then(async () => {
              const again = world.start();
              procs.splice(procs.indexOf(holder), 1, again);
              await started(again);
            });
          }
        } else if (i === Math.floor((3 * count) / 5) && scale.redis.restart) {
          await server.stop();
          await sleep(3_000);
          await server.restart();
          done.push("Redis restarted (3 s away)");
        }
      },
    );
    await restarted;
    say(
      `Redis: ${mentions.length} mentions, ${posts.length} matching posts; ${done.join(", ")}; waiting for the last answers`,
    );
    await waitUntil(() => world.done(mentions, posts), scale.drainMs);
    const codes = await Promise.all(procs.map((p) => p.stop()));
    if (codes.some((c) => c !== 0)) say(`Redis: the processes exited ${codes.join(", ")} when stopped`);
    return world.tally("Redis, 3 processes", done.join("; "), mentions, posts);
  } finally {
    admin.disconnect();
  }
}

/** A state directory whose journal was cut: each start must refuse it, saying so. */
export async function journalCuts(scale: ChaosScale, say: Say): Promise<ChaosRow> {
  const world = await chaosWorld({ answerers: scale.answerers });
  const data = await world.dataDir();
  const first = world.start(data);
  if (!(await started(first, true))) say("journal cuts: bot start did not connect its stream");
  const { mentions, posts } = await produce(world, { count: 10, perSecond: 5, matchingEvery: 2 });
  await waitUntil(() => world.done(mentions, posts), scale.drainMs);
  await first.kill9(); // its journal holds the run (a clean stop would fold it into the files)
  let refused = 0;
  let silent = 0;
  for (let i = 0; i < scale.journalCuts; i++) {
    const copy = await world.dataDir();
    await cp(data, copy, { recursive: true });
    const stateDir = join(copy, "state");
    const journals = [];
    for (const name of await readdir(stateDir))
      if (/^journal-\d+\.log$/.test(name)) journals.push({ name, size: (await stat(join(stateDir, name))).size });
    const target = journals.filter((j) => j.size > 1).sort((a, b) => b.size - a.size)[0];
    if (!target) {
      say("journal cuts: no journal to cut");
      break;
    }
    await truncate(join(stateDir, target.name), between(1, target.size - 1));
    const proc = world.start(copy);
    const outcome = await Promise.race([
      proc.exit.then((code) => ({ code })),
      proc.out.waitFor(/all bots started/).then(() => ({ code: undefined })),
      sleep(60_000).then(() => ({ code: null })),
    ]);
    const message = proc.err.lines.join("\n");
    if (outcome.code !== undefined && outcome.code !== 0 && /damaged/.test(message)) refused++;
    else {
      silent++;
      say(`journal cut ${i + 1}: the start did not refuse the cut journal (${message.slice(0, 200)})`);
      await sleep(5_000); // what it answers again, it answers now
      await proc.stop();
    }
    await proc.kill9();
  }
  // The directory as the kill left it starts and answers what comes, nothing twice.
  const again = world.start(data);
  await started(again);
  const after = await produce(world, { count: 4, perSecond: 4, matchingEvery: 2 });
  await waitUntil(() => world.done(after.mentions, after.posts), scale.drainMs);
  await again.stop();
  return world.tally(
    "journal cuts",
    `${scale.journalCuts} cuts at random offsets: ${refused} refused with a message, ${silent} started without a word`,
    [...mentions, ...after.mentions],
    [...posts, ...after.posts],
  );
}

/**
 * The state on a small disk filled while the mentions come: filled at a quarter of them, freed
 * at half, filled again at three quarters and the process stopped (SIGTERM) while full, then
 * freed and started again for the rest. Counted from the service's side as every row is; the
 * stop must be clean (exit 3, what was not saved said, no "bug", no lock left behind).
 */
export async function fullDisk(scale: ChaosScale, say: Say): Promise<ChaosRow> {
  const world = await chaosWorld({ answerers: scale.answerers });
  const disk = await smallDisk(scale.fullDisk.kb);
  try {
    const data = `${disk.dir}/data`;
    let proc = world.start(data, {}, disk.wrap);
    if (!(await started(proc, true))) say("full disk: bot start did not connect its stream");
    const count = scale.fullDisk.mentions;
    const done: string[] = [];
    let stop = "no stop";
    let fullSince = 0;
    const { mentions, posts } = await produce(
      world,
      { count, perSecond: scale.fullDisk.perSecond, matchingEvery: 2 },
      async (i) => {
        if (i === Math.floor(count / 4) || i === Math.floor((3 * count) / 4)) {
          await disk.fill();
          fullSince = Date.now();
        } else if (i === Math.floor(count / 2)) {
          const told = await outageSaid(proc, 1);
          await disk.free();
          done.push(
            `full ${((Date.now() - fullSince) / 1000).toFixed(1)} s while mentions came (${told ? "said" : "NOT said"}), then freed`,
          );
        } else if (i === count - 1) {
          // Full with mentions on their way: stopped while full, then started again with space.
          if (!(await outageSaid(proc, 2)))
            say("full disk: the process did not say it could not write the second time");
          stop = await stoppedWhileFull(proc, disk, data);
          await disk.free();
          proc = world.start(data, {}, disk.wrap);
          if (!(await started(proc, true))) say("full disk: the start after the stop did not connect its stream");
        }
      },
    );
    done.push(`full again, SIGTERM while full: ${stop}; started again with space`);
    say(`full disk: ${mentions.length} mentions, ${posts.length} matching posts; waiting for the last answers`);
    await waitUntil(() => world.done(mentions, posts), scale.drainMs);
    const code = await proc.stop();
    if (code !== 0) say(`full disk: the last bot start exited ${code} when stopped`);
    return world.tally(`full disk (${scale.fullDisk.kb / 1024} MB tmpfs)`, done.join("; "), mentions, posts);
  } finally {
    await disk.close();
  }
}

/** Whether the process has said `times` times that it cannot write its state (waited for, up to 15 s). */
async function outageSaid(proc: BotProcess, times: number): Promise<boolean> {
  const said = () => proc.out.lines.filter((l) => l.includes("cannot write the state in")).length >= times;
  return await waitUntil(said, 15_000, 100);
}

/** SIGTERM while the disk is full: how the stop ended, as the row says it ("NOT CLEAN" fails the campaign). */
async function stoppedWhileFull(proc: BotProcess, disk: SmallDisk, data: string): Promise<string> {
  const code = await proc.stop();
  const said = [...proc.out.lines, ...proc.err.lines].join("\n");
  const lockLeft = (await readdir(disk.outside(data)).catch(() => [] as string[])).includes("state.lock");
  const problems = [
    ...(code === 3 ? [] : [`exit ${code}`]),
    ...(/This is a bug|unexpected error/.test(said) ? ['"bug"'] : []),
    ...(lockLeft ? ["lock left"] : []),
    ...(/stopped without saving|state saved/.test(said) ? [] : ["no word of what was saved"]),
  ];
  return problems.length === 0
    ? "exit 3, said what it could not save, lock released"
    : `NOT CLEAN (${problems.join(", ")})`;
}

/** Preloaded into a process whose clock is off (./skewed-clock.mjs). */
const SKEWED_CLOCK = fileURLToPath(new URL("./skewed-clock.mjs", import.meta.url));

/** `2 h ahead`, `10 min behind`, `right`. */
function describeOffset(ms: number): string {
  if (ms === 0) return "right";
  const abs = Math.abs(ms);
  const amount = abs >= HOUR && abs % HOUR === 0 ? `${abs / HOUR} h` : `${Math.round(abs / MINUTE)} min`;
  return `${amount} ${ms > 0 ? "ahead" : "behind"}`;
}

/**
 * The bots' process with its clock off the service's, in turns (hours ahead, minutes behind,
 * then right), each a process of its own on the same state, stopped (SIGTERM) and the next
 * started as the mentions come. Each skewed process must say its clock is off (the row says
 * whether it did; "NOT said" fails the campaign, as a harm the operator would not see).
 */
export async function clockSkew(scale: ChaosScale, say: Say): Promise<ChaosRow> {
  const world = await chaosWorld({ answerers: scale.answerers });
  const data = await world.dataDir();
  const { offsetsMs, mentions: count, perSecond } = scale.clockSkew;
  const skewed = (offsetMs: number) =>
    world.start(data, { NODE_OPTIONS: `--import ${SKEWED_CLOCK}`, CHAOS_CLOCK_OFFSET_MS: String(offsetMs) });
  let phase = 0;
  let proc = skewed(offsetsMs[0]!);
  if (!(await started(proc, true))) say("clock skew: the first bot start did not connect its stream");
  const told: string[] = [];
  /** Ends the phase under way: whether its process said its clock was off (when it was), then SIGTERM. */
  const endPhase = async () => {
    const offset = offsetsMs[phase]!;
    const said =
      offset === 0 ||
      (await waitUntil(() => proc.out.lines.some((l) => l.includes("the local clock is")), 15_000, 100));
    told.push(`${describeOffset(offset)}${offset === 0 ? "" : said ? " (said)" : " (NOT said)"}`);
    const code = await proc.stop();
    if (code !== 0) say(`clock skew: the process ${describeOffset(offset)} exited ${code} when stopped`);
  };
  const perPhase = Math.max(1, Math.ceil(count / offsetsMs.length));
  const { mentions, posts } = await produce(world, { count, perSecond, matchingEvery: 3 }, async (i) => {
    if (i > 0 && i % perPhase === 0 && phase < offsetsMs.length - 1) {
      await endPhase();
      proc = skewed(offsetsMs[++phase]!);
      if (!(await started(proc, true)))
        say(`clock skew: the process ${describeOffset(offsetsMs[phase]!)} did not start`);
    }
  });
  say(`clock skew: ${mentions.length} mentions, ${posts.length} matching posts; waiting for the last answers`);
  await waitUntil(() => world.done(mentions, posts), scale.drainMs);
  await endPhase();
  return world.tally("clock skew", `the bots' clock in turn: ${told.join(", ")}`, mentions, posts);
}

/**
 * Three processes on one Redis; the one running the answering bot is stopped (SIGSTOP) past its
 * lease while the service holds its replies and DM answers (a delay fault), then let go
 * (SIGCONT): the process that took the bot over must not send again what the stopped one had
 * at the service, nor lose any. Replies and DMs from people of their own (a bot handles one
 * person's events one at a time).
 */
export async function hungProcess(scale: ChaosScale, say: Say): Promise<ChaosRow> {
  const { mentions: m, dms: d, delayMs, freezeMs, leaseSeconds } = scale.hung;
  const server = trackRedis(await startRedisServer());
  const world = await chaosWorld({
    answerers: 1,
    dms: true,
    senders: Math.max(m, d),
    env: { POSTBOT_STATE: server.url },
    args: ["--lease", String(leaseSeconds)],
  });
  const admin = await connectRedis(server.url);
  admin.on("error", () => undefined);
  try {
    const procs: BotProcess[] = [world.start(), world.start(), world.start()];
    for (const p of procs) if (!(await started(p))) say("hung process: a bot start did not start");
    const bot = world.answerers[0]!;
    const held = async () => (await leaseHolders(admin, [bot])).get(bot);
    await waitUntil(async () => (await held()) !== undefined, 30_000);
    const routes = ["POST /2/posts", "POST /2/dm_conversations/with/:participant_id/messages"];
    for (const [i, route] of routes.entries())
      await world.sandbox.admin.addFault({ route, count: i === 0 ? m : d, kind: "delay", delay_ms: delayMs });
    const mentions: Posted = [];
    const dms: Posted = [];
    for (let i = 0; i < Math.max(m, d); i++) {
      if (i < m) mentions.push(await world.mention(i));
      if (i < d) dms.push(await world.dm(i));
    }
    // Stopped once the answers are on their way (the service holds them: its faults are used up).
    const onTheirWay = await waitUntil(async () => (await faultsLeft(world)) === 0, 60_000, 100);
    const pid = await held();
    const holder = procs.find((p) => p.child.pid === pid);
    let faults = `${m} replies and ${d} DMs held ${delayMs / 1000} s at the service${onTheirWay ? "" : " (NOT all on their way)"}`;
    if (holder) {
      holder.child.kill("SIGSTOP");
      await sleep(freezeMs);
      const after = await held();
      holder.child.kill("SIGCONT");
      faults += `; their process stopped ${freezeMs / 1000} s (lease ${leaseSeconds} s)${after !== pid ? ", the bot taken over" : ", the bot NOT taken over"}`;
    } else say("hung process: no process held the bot");
    say(`hung process: ${mentions.length} mentions, ${dms.length} DMs; waiting for the last answers`);
    await waitUntil(() => world.done(mentions, [], dms), scale.drainMs);
    // Whatever would come twice comes within the successor's wait (half a minute): let it.
    await sleep(Math.min(5_000, scale.drainMs));
    const codes = await Promise.all(procs.map((p) => p.stop()));
    if (codes.some((c) => c !== 0)) say(`hung process: the processes exited ${codes.join(", ")} when stopped`);
    return world.tally("hung process (Redis, 3 processes)", faults, mentions, [], dms);
  } finally {
    admin.disconnect();
  }
}

/** How many more requests the sandbox's faults will act on. */
async function faultsLeft(world: ChaosWorld): Promise<number> {
  const res = await fetch(new URL("/_sandbox/faults", world.sandbox.url), {
    headers: { authorization: `Bearer ${world.sandbox.adminToken}` },
  });
  return ((await res.json()) as { faults: Array<{ remaining: number }> }).faults.reduce((n, f) => n + f.remaining, 0);
}

/** The quiz's steps (as test/fixtures/quiz.yaml has them), and the same reordered: the colour first. */
const QUIZ_STEPS = [
  { ask: "What's your name?", save: "name" },
  {
    ask: "Hi {session.name}! Favourite colour: red, green or blue?",
    expect: ["red", "green", "blue"],
    retry: "Please answer red, green or blue.",
    save: "colour",
  },
  { say: "Thanks {session.name}, {session.colour} it is. Bye!" },
];
const REORDERED_STEPS = [
  { ...QUIZ_STEPS[1], ask: "Favourite colour: red, green or blue?" },
  QUIZ_STEPS[0],
  QUIZ_STEPS[2],
];
const quizPlugins = (steps: object[]) =>
  JSON.stringify({ dialog: { start: ["quiz"], timeout: "10m", cancel: ["stop"], steps } });

/**
 * The quiz's steps reordered in its bot file while the process runs, with users in the middle
 * of it in their threads (half at the colour question, half at the name's). Each open quiz must
 * finish once, on the steps it started with (`Thanks NAME, COLOUR it is. Bye!`), no post may
 * carry an unfilled placeholder, and the log must say how many open dialogs the edit concerns.
 */
export async function dialogEdit(scale: ChaosScale, say: Say): Promise<ChaosRow> {
  const n = scale.dialog.users;
  const world = await chaosWorld({
    answerers: 1,
    senders: n,
    others: { quiz: { triggers: "{ mentions: {} }", plugins: quizPlugins(QUIZ_STEPS) } },
  });
  const proc = world.start(await world.dataDir());
  if (!(await started(proc, true))) say("dialog edit: bot start did not connect its stream");
  const users = Array.from({ length: n }, (_, i) => i);
  const atColour = users.slice(0, Math.ceil(n / 2));
  const atName = users.slice(atColour.length);
  const got = (i: number, text: string) => world.repliesTo(i, "quiz").some((m) => m.text === text);
  const colourAsked = (i: number) => `Hi Name${i}! Favourite colour: red, green or blue?`;
  const allGot = (is: number[], text: (i: number) => string) =>
    waitUntil(() => is.every((i) => got(i, text(i))), scale.drainMs);
  const answeredAt = new Map<number, number>();
  /** Each user answers the quiz's last post to them (or starts it with a mention). */
  const answer = async (is: number[], text: (i: number) => string) => {
    for (const i of is) {
      await world.postFrom(i, text(i), world.repliesTo(i, "quiz").at(-1)?.id);
      answeredAt.set(i, Date.now());
    }
  };
  await answer(users, () => "@quiz quiz");
  if (!(await allGot(users, () => "What's your name?"))) say("dialog edit: not every user was asked a name");
  await answer(atColour, (i) => `Name${i}`);
  if (!(await allGot(atColour, colourAsked))) say("dialog edit: not every user was asked a colour");
  await world.rewrite("quiz", quizPlugins(REORDERED_STEPS));
  const edit = /changed since (\d+) open dialogs? started/;
  const told = await waitUntil(() => proc.out.lines.some((l) => edit.test(l)), 30_000, 100);
  const counted = told ? Number(edit.exec(proc.out.lines.find((l) => edit.test(l))!)![1]) : undefined;
  await answer(atColour, () => "red");
  await answer(atName, (i) => `Name${i}`);
  await allGot(atName, colourAsked);
  await answer(atName, () => "blue");
  const thanks = (i: number) => `Thanks Name${i}, ${atColour.includes(i) ? "red" : "blue"} it is. Bye!`;
  say(`dialog edit: ${n} users mid-quiz, steps reordered; waiting for the last answers`);
  await allGot(users, thanks);
  const code = await proc.stop();
  if (code !== 0) say(`dialog edit: bot start exited ${code} when stopped`);
  const unfilled = users.flatMap((i) => world.repliesTo(i, "quiz")).filter((m) => m.text.includes("{")).length;
  const faults = [
    `the quiz's steps reordered with ${n} users in it (${atColour.length} at the colour question)`,
    counted === undefined ? "the edit NOT said" : `said: ${counted} open dialogs`,
    unfilled === 0 ? "no placeholder sent" : `${unfilled} PLACEHOLDERS SENT`,
  ].join("; ");
  return dialogRow(
    faults,
    users.map((i) => ({
      ends: world.repliesTo(i, "quiz").filter((m) => m.text === thanks(i)),
      answeredAt: answeredAt.get(i)!,
    })),
  );
}

/** The dialog edit's row: each user's dialog finished once, twice or never (by its last words), and how long after its last answer. */
function dialogRow(faults: string, users: Array<{ ends: Array<{ at: number }>; answeredAt: number }>): ChaosRow {
  let once = 0;
  let twice = 0;
  let late = 0;
  let slowest = 0;
  for (const { ends, answeredAt } of users) {
    if (ends.length === 1) once++;
    if (ends.length > 1) twice++;
    if (ends.length === 0) continue;
    const wait = ends[0]!.at - answeredAt;
    slowest = Math.max(slowest, wait);
    if (wait > LATE_MS) late++;
  }
  return {
    scenario: "dialog edit",
    faults,
    mentions: users.length,
    answered: once + twice,
    twice,
    never: users.length - once - twice,
    matching: 0,
    liked: 0,
    notLiked: 0,
    late,
    slowestMs: slowest,
  };
}
