/**
 * What `bot start` does, apart from the process's signals: load and check every bot (the
 * bots directory's files, and the bots kept in the state: ../store/dynamic-bots.ts), open
 * the state store, find the service (or start the embedded sandbox with a crowd of simulated
 * users when none is configured), start the runtime, and keep the fleet live: the bots
 * directory is watched (./bot-watcher.ts), and with the state in Redis what other processes
 * change in the fleet is followed. Returns a handle whose `stop` persists everything.
 */
import { join } from "node:path";
import type { AdjustableClock } from "../clock.ts";
import {
  countOf,
  formatProblem,
  loadBots,
  loadBotText,
  PluginCache,
  shadowNotes,
  type BotConfig,
  type BotEnv,
  type CompiledIndex,
  type OtherBots,
} from "../config/index.ts";
import { ACCOUNTS_NAMESPACE, getAccount } from "../credentials/accounts.ts";
import { UserError } from "../errors.ts";
import type { Logger } from "../log.ts";
import type { FleetChange, RuntimeObserver } from "./observer.ts";
import type { Sandbox } from "../sandbox/index.ts";
import { redisBotIndex } from "../redis/bot-index.ts";
import { redisDynamicBots } from "../redis/dynamic-bots.ts";
import { joinSharedState, openSharedState, type JoinedRedis } from "../redis/shared-state.ts";
import { waitingEvents } from "../runtime/inbox.ts";
import { storeDynamicBots, type DynamicBots } from "../store/dynamic-bots.ts";
import { hasState, openFileStore, StateNotSavedError, type FileStore } from "../store/index.ts";
import type { OpenJournal } from "../store/journal.ts";
import type { Store } from "../store/store.ts";
import { watchBotFiles } from "./bot-watcher.ts";
import { Fleet, stateFile } from "./fleet.ts";
import { provisionBots, type ProvisionedBot } from "./provision.ts";
import { startRuntime } from "./runtime.ts";
import type { FleetBot, HostedBot, Runtime } from "./types.ts";
import { ReviewDesk } from "./review-desk.ts";
import { watchReviewRequests } from "./review-requests.ts";
import { accountOf, checkService, hasService, resolveService } from "./service.ts";
import { webAccounts, type WebAccounts } from "./web-accounts.ts";

export interface StartOptions {
  bots: string;
  plugins: string;
  data: string;
  /**
   * `redis://HOST:PORT/DB`: the state is in Redis, shared with other `bot start` processes,
   * each running the bots it claims (src/redis). Without it, the state directory in `data`.
   */
  state?: { url: string; source: string };
  /**
   * With `state`: how long this process's leases (its bots', its apps' streams') last once
   * it stops renewing them, in ms; renewed every third of it. Default: 9 s (src/redis/bot-claims.ts).
   */
  leaseMs?: number;
  only?: string[];
  /** Bots to start afresh although their state is missing while their status says they ran (./kept-state.ts). */
  afresh?: string[];
  dryRun?: boolean;
  /** Shared with the embedded sandbox, whose `POST /_sandbox/clock` moves it. */
  clock: AdjustableClock;
  logger: Logger;
  /** Default `process.env` (plus `.env`). */
  env?: Readonly<Record<string, string | undefined>>;
  /** Told what the runtime does (`bot start --http`). */
  observer?: RuntimeObserver;
  /** Stops the start while it waits for a service that cannot be reached (SIGINT). */
  signal?: AbortSignal;
  /** Whether the bots directory is watched while the bots run (default: yes). */
  watch?: boolean;
  /** Where relative directories and `.env` are found (default `process.cwd()`). */
  cwd?: string;
  /** Told of every change of the fleet while the bots run. */
  onFleetChange?(change: FleetChange): void;
  /** How the state directory's journal is opened (a test's disk that fills up); default Node's file system. */
  openJournal?: OpenJournal;
}

export interface Started {
  runtime: Runtime;
  /** The fleet: where each bot comes from, and its changes while the bots run (the admin API's). */
  fleet: Fleet;
  /** The bots kept in the state and the pauses people asked for (in Redis, every process's). */
  dynamic: DynamicBots;
  /** The service's base URL (the embedded sandbox's when it runs). */
  baseUrl: string;
  /** What accounts connecting themselves through the web need (src/connect). */
  web: WebAccounts;
  /** The embedded sandbox, when no service is configured. */
  sandbox?: Sandbox;
  store: Store;
  /** Sends a person's review decisions through the bots' action pipelines (`bot review`, `/review`). */
  desk: ReviewDesk;
  /**
   * Logs that the bots run ("all bots started; stop with Ctrl-C", and that their files are
   * watched). Not logged by {@link start} itself: its caller serves more around the bots (the
   * status page's runtime, the admin API, the connect pages, the demo's file for `bot say`),
   * and a script that waits for the line must find all of it answering; so the caller says it
   * once everything it announces is up.
   */
  sayStarted(): void;
  /** Stops the bots and saves the state; `saved: false` when the state's Redis was unreachable and the stop went on without it. */
  stop(): Promise<{ saved: boolean }>;
}

/**
 * `resumed from .postbot/ (5 bots, 3 events waiting)`: a start that continues the last run
 * says so, and how much it picks up (the bots with state from before, the events fetched and
 * not yet handled), so it is never mistaken for a start afresh.
 */
function resumedFrom(store: Store, dir: string, bots: readonly BotConfig[]): string {
  const known = bots.filter((b) => store.get("status", b.name) !== undefined).length;
  const waiting = bots.reduce((n, b) => n + waitingEvents(store, b.name).length, 0);
  return `resumed from ${dir.replace(/\/+$/, "")}/ (${countOf(known, "bot")}, ${countOf(waiting, "event")} waiting)`;
}

/** The bots to run: all, or those `--only` names (an unknown name is an error). */
function pick(bots: BotConfig[], only: string[] | undefined): BotConfig[] {
  if (!only || only.length === 0) return bots;
  const names = new Set(bots.map((b) => b.name));
  const unknown = only.filter((n) => !names.has(n));
  if (unknown.length > 0)
    throw new UserError(`--only ${unknown.join(", ")}: no such bot; the bots are ${[...names].join(", ") || "none"}`, {
      exitCode: 2,
    });
  return bots.filter((b) => only.includes(b.name));
}

export async function start(options: StartOptions): Promise<Started> {
  const { logger, clock } = options;
  const { bots: files, env, envFile, digests, sources, joined } = await loadJoining(options);
  for (const note of shadowNotes(files)) logger.info(note);
  const vars = env.vars;
  const shared = joined
    ? await openSharedState({
        url: options.state!.url,
        source: options.state!.source,
        bots: files.map((b) => b.name),
        clock,
        logger,
        joined,
        ...leaseTiming(options),
      })
    : undefined;
  // Asked before the store is opened (opening creates the directory).
  const resuming = !shared && (await hasState(options.data));
  const stateDir = shared ? undefined : await openStateDir(options);
  const store: Store = shared?.store ?? stateDir!;
  const dynamic = shared ? redisDynamicBots(shared.redis, shared.leases.prefix) : storeDynamicBots(store);
  let found: FoundService | undefined;
  let stopFollowing: (() => void) | undefined;
  try {
    // `--only` runs the bots named, from files: none kept in the state.
    const { kept, origins } = options.only?.length
      ? { kept: [], origins: new Map<string, string>() }
      : await keptBots(dynamic, files, env, options, sources);
    const bots = [...files, ...kept];
    for (const bot of kept) shared?.claims.track(bot.name);
    found = await findService(options, bots, vars, envFile, store);
    found.bots = withOrigins(found.bots, origins, sources);
    if (resuming) logger.info(resumedFrom(store, options.data, bots));
    // Sharing the state, a bot that runs elsewhere is kept as its outline, built again by the fleet when it comes here.
    let fleet: Fleet | undefined;
    const hydrate = shared ? (bot: FleetBot) => fleet!.hydrate(bot) : undefined;
    const runtime = await startRuntime(runtimeOptions(options, found, store, shared, await dynamic.pauses(), hydrate));
    if (shared) letGo(found, files, bots, sources);
    const service = found;
    const { sandbox, stopCrowd } = found;
    fleet = new Fleet(fleetOptions(options, { runtime, dynamic, found, store, vars, envFile, shared }));
    await fleet.load(digests);
    await shared?.run(runtime);
    // Processes sharing the state follow each other's changes at every lease renewal.
    if (shared) stopFollowing = fleet.followEvery(shared.claims.renewEveryMs);
    const watcher = options.watch === false ? undefined : watchBots(options, fleet);
    const desk = new ReviewDesk({ store, clock, log: logger, layerOf: (bot) => runtime.bots.get(bot)?.layer });
    const requests = watchRequests(options, desk, runtime, shared);
    return {
      runtime,
      fleet,
      dynamic,
      baseUrl: service.baseUrl,
      web: webAccounts(webOptions(options, { sandbox, vars, envFile, shared })),
      store,
      desk,
      ...(sandbox ? { sandbox } : {}),
      sayStarted: () => sayStarted(options, runtime, watcher !== undefined),
      async stop() {
        watcher?.close();
        stopFollowing?.();
        stopCrowd?.();
        await requests?.stop();
        // Writes that fail now (a full disk) are not waited for: the stop goes on without them.
        stateDir?.stopping();
        // Shared: gives the bots back, stops the runtime, closes the store (or stops without an unreachable Redis).
        const { saved } = shared ? await shared.stop() : (await runtime.stop(), { saved: true });
        await sandbox?.close();
        return stateDir ? await closeFiles(stateDir, logger) : { saved };
      },
    };
  } catch (err) {
    stopFollowing?.();
    found?.stopCrowd?.();
    await found?.sandbox?.close().catch(() => undefined);
    await store.close().catch(() => undefined);
    await joined?.leave(); // out of the members once the store's last writes went out
    throw err;
  }
}

/**
 * The bots to start ({@link loadRunnable}) and, with the state in Redis, the connection,
 * made and this process announced in the members before the bot files load
 * (../redis/membership.ts says why), which are read through the deployment's index of them
 * (../redis/bot-index.ts: what another process parsed, this one does not). What goes wrong with Redis is said only once the bot
 * files were found good, as when it connected after loading them: a process whose bots
 * cannot load reports their problems, leaves the members at once, and claims nothing.
 */
async function loadJoining(
  options: StartOptions,
): Promise<Awaited<ReturnType<typeof loadRunnable>> & { joined?: JoinedRedis }> {
  // A dry run with --state is refused before anything (by loadRunnable).
  const joining =
    options.state && !options.dryRun
      ? joinSharedState({
          url: options.state.url,
          source: options.state.source,
          clock: options.clock,
          logger: options.logger,
          ...leaseTiming(options),
        })
      : undefined;
  joining?.catch(() => undefined); // its failure is said once the bots are loaded
  let runnable: Awaited<ReturnType<typeof loadRunnable>>;
  try {
    // Connected first (a few ms): the deployment's index of the bot files holds what the other
    // processes parsed of them already (../redis/bot-index.ts).
    const joined = await joining?.catch(() => undefined);
    const index = joined ? redisBotIndex(joined.redis, joined.leases.keys) : undefined;
    runnable = await loadRunnable(options, index);
  } catch (err) {
    await (await joining?.catch(() => undefined))?.leave();
    throw err;
  }
  const joined = await joining;
  return joined ? { ...runnable, joined } : runnable;
}

/**
 * The state directory of `--data`. A dry run reads it as usual (cursors, inbox, credentials,
 * ledger) and keeps whatever it changes in memory over what it read: nothing reaches the
 * files, so a later real start answers what the dry run saw. It still takes the directory's
 * lock: beside a real start on the same directory it would answer the same mentions. While
 * its disk refuses writes (full), flushes wait and the writes are tried again (`retry`):
 * nothing is sent before its ledger mark is written, and nothing fetched meanwhile is lost.
 */
function openStateDir(options: StartOptions): Promise<FileStore> {
  return openFileStore(options.data, {
    logger: options.logger,
    corruptHint: "move the file away to start with an empty state",
    retry: { clock: options.clock },
    ...(options.dryRun ? { readOnly: true, lock: true } : {}),
    ...(options.openJournal ? { openJournal: options.openJournal } : {}),
  });
}

/** Closes the state directory: `saved: false`, said in the log, when its last changes could not be written (a full disk). */
async function closeFiles(files: FileStore, logger: Logger): Promise<{ saved: boolean }> {
  try {
    await files.close();
    return { saved: true };
  } catch (err) {
    if (!(err instanceof StateNotSavedError)) throw err;
    logger.error({ unsaved: err.unsaved, err: err.cause }, err.message);
    return { saved: false };
  }
}

/**
 * `bot review` hands decisions over in the data directory (the state has one writer: us).
 * Not with the state in Redis, and a dry run leaves them for the next real start: it would
 * send none of them, and remove them.
 */
function watchRequests(
  options: StartOptions,
  desk: ReviewDesk,
  runtime: Runtime,
  shared: SharedState | undefined,
): ReturnType<typeof watchReviewRequests> | undefined {
  if (shared || options.dryRun) return undefined;
  const { data, clock, logger: log } = options;
  return watchReviewRequests({ data, desk, clock, log, runsHere: (bot) => runtime.bots.has(bot) });
}

/** The bots with where those kept in the state came from, and what each is built again from (sharing the state). */
function withOrigins(
  bots: readonly HostedBot[],
  origins: ReadonlyMap<string, string>,
  sources: ReadonlyMap<string, string> | undefined,
): HostedBot[] {
  return bots.map((h) => {
    const origin = origins.get(h.config.name);
    const source = sources?.get(h.config.file);
    return origin || source ? { ...h, ...(origin ? { origin } : {}), ...(source ? { source } : {}) } : h;
  });
}

/**
 * Sharing the state, the runtime keeps the outline of each bot it does not run: what the start
 * read of every bot goes as soon as the runtime has them, rather than once the claims are made
 * (a minute or more at 100,000 bots, with all of it held meanwhile).
 */
function letGo(
  found: FoundService,
  files: BotConfig[],
  bots: BotConfig[],
  sources: Map<string, string> | undefined,
): void {
  found.bots = [];
  files.length = 0;
  bots.length = 0;
  sources?.clear();
}

/** The leases' time-to-live and renewal (every third of it) of `--lease`; none for the defaults. */
function leaseTiming(options: StartOptions): { ttlMs?: number; everyMs?: number } {
  return options.leaseMs ? { ttlMs: options.leaseMs, everyMs: Math.round(options.leaseMs / 3) } : {};
}

/** The state shared with other processes through Redis (`--state redis://…`). */
type SharedState = Awaited<ReturnType<typeof openSharedState>>;

/** The runtime's options: the service's accounts, the store, the pauses kept, and with Redis, the claims. */
function runtimeOptions(
  options: StartOptions,
  found: FoundService,
  store: Store,
  shared: SharedState | undefined,
  pauses: Awaited<ReturnType<DynamicBots["pauses"]>>,
  hydrate: ((bot: FleetBot) => Promise<HostedBot>) | undefined,
): Parameters<typeof startRuntime>[0] {
  return {
    ...(hydrate ? { hydrate } : {}),
    baseUrl: found.baseUrl,
    bots: found.bots,
    store,
    clock: options.clock,
    logger: options.logger,
    dryRun: options.dryRun ?? false,
    paused: new Map([...pauses].map(([name, p]) => [name, p.reason])),
    ...(options.afresh?.length ? { afresh: options.afresh } : {}),
    ...(options.observer ? { observer: options.observer } : {}),
    ...(shared
      ? {
          hosting: "claimed" as const,
          shared: {
            redis: shared.redis,
            leases: shared.leases,
            renewals: shared.renewals,
            budget: shared.budget,
            owner: shared.owner,
            leaseOf: (bot: string) => shared.claims.current(bot),
            holding: shared.claims,
            hurry: (bot: string) => shared.claims.hurry(bot),
            holdStarts: (until: Promise<void>) => shared.claims.holdStarts(until),
            ...leaseTiming(options),
          },
        }
      : {}),
  };
}

/** The fleet's options: where a bot added while running gets its account (the sandbox, or the environment's). */
function fleetOptions(
  options: StartOptions,
  parts: {
    runtime: Runtime;
    dynamic: DynamicBots;
    found: FoundService;
    store: Store;
    vars: Readonly<Record<string, string | undefined>>;
    envFile: string;
    shared: SharedState | undefined;
  },
): ConstructorParameters<typeof Fleet>[0] {
  const { runtime, dynamic, found, store, vars, envFile, shared } = parts;
  const { sandbox } = found;
  return {
    runtime,
    dynamic,
    async accounts(config, fresh = true, app) {
      // Signed in by another process sharing the state (an account that connected there): read it afresh.
      if (fresh && config.account.kind === "stored") await store.reread?.(ACCOUNTS_NAMESPACE, config.account.stored);
      if (sandbox) return (await provisionBots(sandbox, [config], (name) => getAccount(store, name)))[0]!;
      return app ? accountOf(config, app, store) : resolveService(vars, envFile, [config], store).bots[0]!;
    },
    botsDir: options.bots,
    pluginsDir: options.plugins,
    ...(options.cwd ? { cwd: options.cwd } : {}),
    ...(options.env ? { env: options.env } : {}),
    clock: options.clock,
    logger: options.logger,
    ...(options.observer ? { observer: options.observer } : {}),
    ...(shared ? { claims: shared.claims } : {}),
    ...(options.only?.length ? { only: options.only } : {}),
    ...(options.onFleetChange ? { onChange: options.onFleetChange } : {}),
  };
}

/** The log lines that say the bots run: which (and which are paused), and that their files are watched. */
function sayStarted(options: StartOptions, runtime: Runtime, watching: boolean): void {
  const { logger } = options;
  logger.info(
    { bots: runtime.status().map((s) => `${s.bot}${s.paused ? " (paused)" : ""}`) },
    "all bots started; stop with Ctrl-C",
  );
  if (watching)
    logger.info(
      `changes in ${options.bots} apply as they are saved (a file added, changed or removed starts, restarts or stops its bot alone); SIGHUP reads it all again`,
    );
}

/** What accounts that connect through the web need: the sandbox or the environment's app, the shared state, the bots' files. */
function webOptions(
  options: StartOptions,
  parts: {
    sandbox: Sandbox | undefined;
    vars: Readonly<Record<string, string | undefined>>;
    envFile: string;
    shared: SharedState | undefined;
  },
): Parameters<typeof webAccounts>[0] {
  const { sandbox, vars, envFile, shared } = parts;
  return {
    ...(sandbox ? { sandbox } : {}),
    vars,
    envFile,
    ...(shared ? { shared } : {}),
    botsDir: options.bots,
    pluginsDir: options.plugins,
    ...(options.cwd ? { cwd: options.cwd } : {}),
    ...(options.env ? { env: options.env } : {}),
    clock: options.clock,
  };
}

/** Watches the bots directory while the bots run (./bot-watcher.ts). */
function watchBots(options: StartOptions, fleet: Fleet): ReturnType<typeof watchBotFiles> {
  return watchBotFiles({
    fleet,
    botsDir: options.bots,
    pluginsDir: options.plugins,
    ...(options.cwd ? { cwd: options.cwd } : {}),
    clock: options.clock,
    logger: options.logger,
  });
}

/**
 * The bots kept in the state (added through the admin API, or for a connected account),
 * checked as their files would be. One that no longer validates (a plugin gone, a variable
 * unset) is logged and left out; the others start.
 */
async function keptBots(
  dynamic: DynamicBots,
  files: readonly BotConfig[],
  env: BotEnv,
  options: StartOptions,
  sources: Map<string, string> | undefined,
): Promise<{ kept: BotConfig[]; origins: Map<string, string> }> {
  const records = await dynamic.list();
  const origins = new Map<string, string>();
  const plugins = new PluginCache(options.plugins, options.cwd ?? process.cwd());
  const kept: BotConfig[] = [];
  const others = new Others(files);
  for (const record of records) {
    const checked = await loadBotText({ file: stateFile(record.name), text: record.yaml, env, others, plugins });
    if (checked.bot && checked.bot.name === record.name) {
      kept.push(checked.bot);
      others.add(checked.bot);
      origins.set(record.name, record.origin);
      if (checked.source) sources?.set(checked.bot.file, checked.source);
    } else
      options.logger.error(
        { bot: record.name, problems: checked.problems.map(formatProblem) },
        `bot ${record.name} (kept in the state, added by ${record.by}) is not started: ${checked.problems.map(formatProblem).join("; ") || "its name changed"}; replace it (PUT /api/admin/bots/${record.name}) or remove it`,
      );
  }
  if (kept.length > 0)
    options.logger.info(
      { bots: kept.map((b) => b.name) },
      `${countOf(kept.length, "bot")} kept in the state (added through the admin API or by connecting): ${kept.map((b) => b.name).join(", ")}`,
    );
  return { kept, origins };
}

/**
 * The bots a kept bot is checked beside: the files' and the kept ones before it, looked up
 * (a list of them all, made again for each kept bot, was a copy of 100,000 bots and two tables
 * of them per bot kept in the state). The first bot to name an app sets its plan.
 */
class Others implements OtherBots {
  private readonly files = new Map<string, string>();
  private readonly apps = new Map<string, { plan: string; file: string }>();
  constructor(bots: readonly BotConfig[]) {
    for (const bot of bots) this.add(bot);
  }
  add(bot: BotConfig): void {
    this.files.set(bot.name, bot.file);
    if (bot.app && !this.apps.has(bot.app.consumer_key))
      this.apps.set(bot.app.consumer_key, { plan: bot.plan, file: bot.file });
  }
  fileOf(name: string): string | undefined {
    return this.files.get(name);
  }
  appOf(consumerKey: string): { plan: string; file: string } | undefined {
    return this.apps.get(consumerKey);
  }
}

/** The bots to start, checked, and the environment they were read with. */
async function loadRunnable(
  options: StartOptions,
  index?: CompiledIndex,
): Promise<{
  bots: BotConfig[];
  env: BotEnv;
  envFile: string;
  digests: ReadonlyMap<string, string>;
  sources?: Map<string, string>;
}> {
  if (options.state && options.dryRun)
    throw new UserError(
      `--dry-run with ${options.state.source}: a dry run leaves the state as it found it, and with the state in Redis it would take its bots' leases from the processes running them; run the dry run without ${options.state.source === "--state" ? "--state" : "POSTBOT_STATE (unset it)"}: it then reads and leaves unchanged the --data directory's state`,
      { exitCode: 2 },
    );
  const loaded = await loadBots({
    botsDir: options.bots,
    pluginsDir: options.plugins,
    ...(options.env ? { env: options.env } : {}),
    ...(options.cwd ? { cwd: options.cwd } : {}),
    ...(index ? { index } : {}),
    // What a bot is built again from: sharing the state, one that runs elsewhere when it comes
    // here (./runtime.ts); always, one whose plugin's code changed (./fleet.ts), with its
    // file's text as it last validated (a file broken since is reported, not run).
    sources: true,
  });
  if (loaded.problems.length > 0) {
    throw new UserError(
      `${loaded.problems.map(formatProblem).join("\n")}\n${countOf(loaded.problems.length, "problem")} in the bot files; fix them (bot validate checks without starting)`,
    );
  }
  const bots = pick(loaded.bots, options.only);
  if (bots.length === 0)
    throw new UserError(`no bots to start in ${options.bots}: write one (see README.md, "Your first bot")`);
  const vars = loaded.env.vars;
  if (options.state && !hasService(vars)) {
    throw new UserError(
      `${options.state.source}: processes sharing a state in Redis must share one service too; set POSTBOT_BASE_URL and the app's keys (a \`bot sandbox\` will do for a try), or leave out ${options.state.source} to run against an embedded sandbox`,
      { exitCode: 2 },
    );
  }
  return {
    bots,
    env: loaded.env,
    envFile: loaded.env.suggestedFile,
    digests: loaded.digests,
    ...(loaded.sources ? { sources: loaded.sources } : {}),
  };
}

/** The service the bots run against, and their accounts there; the embedded sandbox and its crowd when none is set. */
interface FoundService {
  baseUrl: string;
  bots: HostedBot[];
  sandbox?: Sandbox;
  stopCrowd?: () => void;
}

/** The service of the environment (checked: reachable, the app's keys accepted), else an embedded sandbox. */
async function findService(
  options: StartOptions,
  bots: BotConfig[],
  vars: Readonly<Record<string, string | undefined>>,
  envFile: string,
  store: Store,
): Promise<FoundService> {
  const { logger, clock } = options;
  if (!hasService(vars)) {
    const embedded = await startEmbedded(options, bots, vars, store);
    return { ...embedded, baseUrl: embedded.sandbox.url };
  }
  const service = resolveService(vars, envFile, bots, store);
  await checkService({
    baseUrl: service.baseUrl,
    app: service.bots[0]!.app,
    envFile,
    clock,
    logger,
    ...(options.signal ? { signal: options.signal } : {}),
  });
  logger.info(
    { service: service.baseUrl, bots: bots.map((b) => b.name), dry_run: options.dryRun ?? false },
    `starting ${countOf(bots.length, "bot")} against ${service.baseUrl}`,
  );
  return service;
}

/**
 * No service configured: the sandbox runs in this process, keeps its state next to the
 * bots' (`DATA/sandbox.json`, so a restart continues), gives each bot an account, and a
 * crowd of simulated users starts mentioning, replying, following and posting.
 */
async function startEmbedded(
  options: StartOptions,
  bots: BotConfig[],
  vars: Readonly<Record<string, string | undefined>>,
  store: Store,
) {
  const { createSandbox } = await import("../sandbox/index.ts");
  const { startCrowd, DEFAULT_CROWD_SIZE } = await import("../sandbox/crowd/index.ts");
  const port = Number(vars.POSTBOT_SANDBOX_PORT ?? 0);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new UserError(
      `POSTBOT_SANDBOX_PORT is "${vars.POSTBOT_SANDBOX_PORT}": give a port number (0 for any free port)`,
    );
  const sandbox = await createSandbox({
    port,
    clock: options.clock,
    stateFile: join(options.data, "sandbox.json"),
    logger: options.logger.child({ component: "sandbox" }),
    ...(vars.POSTBOT_SANDBOX_ADMIN_TOKEN ? { adminToken: vars.POSTBOT_SANDBOX_ADMIN_TOKEN } : {}),
  });
  options.logger.info(
    { sandbox: sandbox.url, bots: bots.map((b) => b.name) },
    `no POSTBOT_BASE_URL set: running ${countOf(bots.length, "bot")} against an embedded sandbox at ${sandbox.url} with ${DEFAULT_CROWD_SIZE} simulated users (set POSTBOT_BASE_URL and the app's keys to use a real service)`,
  );
  try {
    // Accounts that connected themselves keep their own: stored with a token of this sandbox.
    const hosted = await provisionBots(sandbox, bots, (name) => getAccount(store, name));
    const crowd = await startCrowd({
      sandbox,
      clock: options.clock,
      logger: options.logger.child({ component: "crowd" }),
      bots: hosted.map(crowdTarget),
    });
    return { sandbox, bots: hosted, stopCrowd: () => crowd.stop() };
  } catch (err) {
    await sandbox.close().catch(() => undefined);
    throw err;
  }
}

/** What the crowd needs to know of a bot: whom to mention, follow, and what topics to post on. */
function crowdTarget({ config, user }: ProvisionedBot) {
  return {
    username: user.username,
    userId: user.id,
    streamRules: config.triggers.stream.map((r) => r.value),
    mentions: !!config.triggers.mentions,
    followers: !!config.triggers.followers,
    dms: !!config.triggers.dms,
    ...startWords(config),
  };
}

/** The words that start the bot's `dialog` (the crowd takes its quiz), when it has one. */
function startWords(config: ProvisionedBot["config"]): { starts?: string[] } {
  const start = (config.plugins.find((p) => p.name === "dialog")?.options as { start?: unknown } | undefined)?.start;
  return Array.isArray(start) && start.every((w) => typeof w === "string") ? { starts: start } : {};
}
