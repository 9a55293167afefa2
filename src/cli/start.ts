/**
 * What `bot start` does once its options are read: check them, serve the status page first
 * (so /healthz answers while the bots start), start the bots, serve the admin API, the connect
 * pages and, with the embedded sandbox, the demo's file for `bot say`, say that it runs, and
 * on a signal stop within {@link HARD_STOP_MS} and exit with what the stop saved.
 */
import { createClock, type Clock } from "../clock.ts";
import { loadEnv } from "../config/index.ts";
import { templatesDirOf } from "../config/template.ts";
import { parsePublicUrl, serveConnect } from "../connect/index.ts";
import { UserError } from "../errors.ts";
import { start, type Started } from "../hosting/start.ts";
import { createLogger, type Logger } from "../log.ts";
import {
  adminAccess,
  DEFAULT_HTTP_ADDRESS,
  type HttpAddress,
  type ObserveServer,
  parseHttpAddress,
  runtimeSource,
  startObserveServer,
} from "../observe/index.ts";
import { announceDemo, besideDemo, demoAccessOf, demoBots, publishDemo, runningDemo } from "./demo-access.ts";
import { keepHeapNearLive } from "./heap-growth.ts";
import { catchSignals } from "./start-signals.ts";
import { leaseOption, stateOption } from "./state-option.ts";

/** Stopping must end before a service manager's 10 s; past this, the process exits anyway. */
const HARD_STOP_MS = 9_500;

/** The exit code of a stop that could not save the state: its Redis was unreachable, or its disk full. */
export const EXIT_UNSAVED = 3;

/** `bot start`'s options, as commander gives them. */
export interface StartCommandOptions {
  bots: string;
  plugins: string;
  data: string;
  state?: string;
  lease?: string;
  only?: string[];
  afresh?: string[];
  dryRun?: boolean;
  http?: string | true;
  publicUrl?: string;
  templates?: string;
}

/** Where the state is, how long its leases last, and where to serve (see {@link settingsOf}). */
interface StartSettings {
  shared: { url: string; source: string } | undefined;
  leaseMs: number | undefined;
  address: HttpAddress | undefined;
  connectUrl: string | undefined;
}

/** Runs the bots until a signal, then stops them and exits the process with the stop's code. */
export async function startCommand(o: StartCommandOptions): Promise<never> {
  const { http, state, lease, publicUrl, templates, ...options } = o;
  const { shared, leaseMs, address, connectUrl } = await settingsOf(o);
  keepHeapNearLive({ shared: shared !== undefined });
  const logger = createLogger();
  const clock = createClock();
  const signals = catchSignals(logger);
  // The admin API's token, from the environment or .env as the bot files' variables.
  const admin = address ? adminAccess(loadEnv({ botsDir: options.bots }).vars) : undefined;
  // The status server comes first, so /healthz answers and /readyz says "starting" while the bots start.
  const server = address
    ? await startObserveServer({ ...address, clock, logger, ...(admin ? { admin } : {}) })
    : undefined;
  let republish: (() => void) | undefined;
  const started = await start({
    ...options,
    ...(shared ? { state: shared } : {}),
    ...(leaseMs ? { leaseMs } : {}),
    clock,
    logger,
    signal: signals.starting,
    ...(server ? { observer: server.observer } : {}),
    onFleetChange: () => republish?.(),
  }).catch(async (err: unknown) => {
    await server?.close();
    // A signal while waiting for the service ends the start; nothing ran, nothing to save.
    if (!signals.starting.aborted) throw err;
    logger.info(`${signals.received}: stopped before the bots started`);
    process.exit(0);
  });
  const templatesDir = templates ?? templatesDirOf(options.bots);
  const connectPage = server
    ? await serveAround(server, started, { connectUrl, templatesDir, clock, logger })
    : undefined;
  signals.onReread(() => {
    logger.info(`SIGHUP: reading ${options.bots} again`);
    void started.fleet.readFiles(undefined, "changed");
  });
  const demo = await announceSandbox(started, options, logger, connectPage);
  // `bot say` finds the bots of the demo as they are now.
  republish = demo.republish;
  // Last: everything the line announces answers by now (/readyz, the admin API, /connect, `bot say`).
  started.sayStarted();
  const signal = await signals.stopped();
  republish = undefined;
  return await stopAndExit(signal, { started, server, unpublish: demo.unpublish, dryRun: options.dryRun, logger });
}

/**
 * The options checked before anything starts, in the order a person fixes them: the state
 * (and the demo that may hold its directory), the lease, the `--http` address, the public URL.
 */
async function settingsOf(o: StartCommandOptions): Promise<StartSettings> {
  const shared = stateOption(o.state, process.env);
  if (!shared) {
    // The demo holds the data directory: say what to do rather than refuse its lock.
    const demo = await runningDemo(o.data);
    if (demo) throw new UserError(besideDemo(demo, o.data, o.bots, o.only));
  }
  const leaseMs = leaseOption(o.lease, shared);
  const address = o.http === undefined ? undefined : o.http === true ? DEFAULT_HTTP_ADDRESS : parseHttpAddress(o.http);
  if (o.publicUrl !== undefined && !address)
    throw new UserError(
      "--public-url is where browsers reach the --http server's connect pages; give --http too (--http 127.0.0.1:9464 behind a proxy, say)",
      { exitCode: 2 },
    );
  const connectUrl = o.publicUrl === undefined ? undefined : parsePublicUrl(o.publicUrl);
  return { shared, leaseMs, address, connectUrl };
}

/**
 * Gives the status server what runs (the runtime's figures, the fleet for the admin API, the
 * review desk) and mounts the connect pages; returns the page where an account connects, when
 * a template offers one.
 */
async function serveAround(
  server: ObserveServer,
  started: Started,
  o: { connectUrl: string | undefined; templatesDir: string; clock: Clock; logger: Logger },
): Promise<string | undefined> {
  // Read where the actions keep it: a dry run's model budgets are the state's and its own uses since.
  server.attach(runtimeSource(started.runtime, o.clock, started.runtime.actions.store));
  server.manage(started.fleet);
  server.review(started.desk);
  const { pages } = await serveConnect({
    started,
    publicUrl: o.connectUrl ?? server.url,
    templatesDir: o.templatesDir,
    clock: o.clock,
    logger: o.logger,
  });
  server.mount(pages);
  const link = pages.connectLink();
  return link ? `${o.connectUrl ?? server.url}${link}` : undefined;
}

/**
 * With the embedded sandbox: publishes the demo for `bot say` and says how to talk to the
 * bots; returns what publishes it again (the fleet changed) and what takes it back at the stop.
 */
async function announceSandbox(
  started: Started,
  options: { data: string; bots: string },
  logger: Logger,
  connectPage: string | undefined,
): Promise<{ republish?: () => void; unpublish?: () => Promise<void> }> {
  const sandbox = started.sandbox;
  if (!sandbox) return {};
  const published = () => {
    const bots = demoBots(started.runtime.bots);
    return { bots, access: demoAccessOf(sandbox, bots, options.bots) };
  };
  const first = published();
  const unpublish = await announceDemo(options.data, first.access, first.bots, logger, connectPage);
  const republish = () => {
    void publishDemo(options.data, published().access).catch(() => undefined);
  };
  return { republish, unpublish };
}

/**
 * Stops within {@link HARD_STOP_MS}: the status page says so, the demo's file goes, the bots
 * stop and save, the server closes; exits 0, or {@link EXIT_UNSAVED} when the state could not
 * all be saved, or 1 past the hard limit.
 */
async function stopAndExit(
  signal: string,
  o: {
    started: Started;
    server: ObserveServer | undefined;
    unpublish: (() => Promise<void>) | undefined;
    dryRun: boolean | undefined;
    logger: Logger;
  },
): Promise<never> {
  const { logger } = o;
  logger.info(`${signal}: stopping (actions in flight may finish; state is saved)`);
  const hard = setTimeout(() => {
    logger.error(`could not stop within ${HARD_STOP_MS / 1000} s; exiting without waiting further`);
    process.exit(1);
  }, HARD_STOP_MS);
  hard.unref();
  o.server?.stopping();
  await o.unpublish?.();
  const { saved } = await o.started.stop();
  await o.server?.close();
  clearTimeout(hard);
  if (saved) logger.info(o.dryRun ? "stopped; dry run: the state is as it was" : "stopped; state saved");
  else logger.warn(`stopped; the state could not all be saved (see above); exit ${EXIT_UNSAVED}`);
  // Whatever a plugin left running (a timer, a socket) must not keep the process alive.
  process.exit(saved ? 0 : EXIT_UNSAVED);
}
