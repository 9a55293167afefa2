/**
 * `bot start`: runs every bot of the bots directory in this process until SIGINT or SIGTERM,
 * then stops the triggers, lets actions in flight finish (bounded), saves the state and
 * exits 0, all within 10 seconds. With no POSTBOT_BASE_URL it runs against an embedded
 * sandbox with simulated users: that is `npm start`.
 *
 * While it runs, the bots directory is watched (a file added, changed or removed starts,
 * restarts or stops its bot alone) and SIGHUP reads it all again; with `--http` and
 * POSTBOT_ADMIN_TOKEN, the admin API changes the fleet from outside (src/observe/admin-api.ts).
 *
 * Exit codes of a stop: 0, stopped and saved; 3, stopped, but the state's Redis was
 * unreachable (`--state`) or the disk of `--data` refused the last writes (full): what could
 * not be saved is logged, and nothing sent is lost; 1, the stop did not end within
 * {@link HARD_STOP_MS} (or a second signal came).
 */
import type { Command } from "commander";
import { UserError } from "../../errors.ts";

/** Stopping must end before a service manager's 10 s; past this, the process exits anyway. */
const HARD_STOP_MS = 9_500;

/** The exit code of a stop that could not save the state: its Redis was unreachable, or its disk full. */
export const EXIT_UNSAVED = 3;

export default function register(program: Command): void {
  program
    .command("start")
    .description("run every bot in one process (against an embedded sandbox when POSTBOT_BASE_URL is not set)")
    .option("--bots <dir>", "directory of bot files (one bot per *.yaml file)", "bots")
    .option("--plugins <dir>", "directory of local plugins", "plugins")
    .option("--data <dir>", "directory of the state store (cursors, ledger, budgets, tokens)", ".postbot")
    .option(
      "--state <url>",
      "keep the state in Redis (redis://HOST:PORT/DB, unix:///PATH/TO/redis.sock?db=DB for a Redis on this machine, or a Redis Cluster's nodes: redis+cluster://HOST:PORT,HOST:PORT,...) shared with other `bot start` processes, each running a share of the bots (default: POSTBOT_STATE, else the --data directory)",
    )
    .option(
      "--lease <seconds>",
      "with --state: how long a process's bots and app streams stay its own once it stops renewing them (killed, hung): the other processes take them over after it; renewed every third of it; give every process the same (default 9, from 3 to 600)",
    )
    .option("--only <names...>", "run only these bots")
    .option(
      "--afresh <names...>",
      "start these bots afresh although their state is missing while their status says they ran before (they may answer again what they answered); without it such a bot is not started",
    )
    .option(
      "--dry-run",
      "log and count every action against a simulated budget; send none, and leave the state (--data) as it was",
    )
    .option(
      "--http [host:port]",
      "serve a live status page (/), Prometheus metrics (/metrics), health (/healthz, /readyz), the pages where accounts connect themselves (/connect) and, with POSTBOT_ADMIN_TOKEN set, the admin API (/api/admin/bots) on this address (default 127.0.0.1:9464; off when not given)",
    )
    .option(
      "--public-url <url>",
      "where browsers reach the --http server (https://bots.example.com): the service sends people who connect their account back to <url>/connect/callback (default: the --http address)",
    )
    .option(
      "--templates <dir>",
      "directory of bot templates for accounts that connect themselves (NAME.yaml; default: templates next to --bots)",
    )
    .addHelpText(
      "after",
      `
The service and the app: POSTBOT_BASE_URL, POSTBOT_CONSUMER_KEY, POSTBOT_CONSUMER_SECRET (the
environment, then .env). Without POSTBOT_BASE_URL the bots run against an embedded sandbox
(state in DATA/sandbox.json; POSTBOT_SANDBOX_PORT picks its port) with simulated users.

While it runs, a bot file added, changed or removed in --bots starts, restarts or stops its
bot alone (a file with problems is reported and its bot goes on as it was); SIGHUP reads the
whole directory again. A plugin's file that changes restarts the bots that use it with its
new code; a module that plugins import is imported once (restart to use its changes).

With --http, people connect their own account at /connect/NAME: they sign in with the service,
and the bot of templates/NAME.yaml starts as their account ({account.username} in its name
and texts); /connect/NAME/disconnect undoes it. The app's settings must list the callback URL
<public-url>/connect/callback (the embedded sandbox's apps list it by themselves).

With --http, POSTBOT_ADMIN_TOKEN (at least 16 random characters) turns on the admin API:
list, add, replace, remove, pause and resume bots (Authorization: Bearer TOKEN);
POSTBOT_ADMIN_TOKEN_NAME names its holder in the log (default admin).`,
    )
    .action(
      async ({
        http,
        state,
        lease,
        publicUrl,
        templates,
        ...options
      }: {
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
      }) => {
        const [{ start }, { createLogger }, { createClock }, observe, { loadEnv }] = await Promise.all([
          import("../../hosting/start.ts"),
          import("../../log.ts"),
          import("../../clock.ts"),
          import("../../observe/index.ts"),
          import("../../config/index.ts"),
        ]);
        const { leaseOption, stateOption } = await import("../state-option.ts");
        const shared = stateOption(state, process.env);
        if (!shared) {
          // The demo holds the data directory: say what to do rather than refuse its lock.
          const { besideDemo, runningDemo } = await import("../demo-access.ts");
          const demo = await runningDemo(options.data);
          if (demo) throw new UserError(besideDemo(demo, options.data, options.bots, options.only));
        }
        const leaseMs = leaseOption(lease, shared);
        const address =
          http === undefined
            ? undefined
            : http === true
              ? observe.DEFAULT_HTTP_ADDRESS
              : observe.parseHttpAddress(http);
        const { parsePublicUrl, serveConnect } = await import("../../connect/index.ts");
        const { templatesDirOf } = await import("../../config/template.ts");
        if (publicUrl !== undefined && !address)
          throw new UserError(
            "--public-url is where browsers reach the --http server's connect pages; give --http too (--http 127.0.0.1:9464 behind a proxy, say)",
            { exitCode: 2 },
          );
        const connectUrl = publicUrl === undefined ? undefined : parsePublicUrl(publicUrl);
        const logger = createLogger();
        const clock = createClock();
        // Signals are caught from the very start: one arriving while the bots start stops them
        // as soon as they have started; a second one while stopping exits at once.
        let received: string | undefined;
        let wake: ((signal: string) => void) | undefined;
        const starting = new AbortController();
        const onSignal = (signal: string) => {
          if (received) {
            logger.warn(`${signal} again: exiting without waiting for the stop to finish`);
            process.exit(1);
          }
          received = signal;
          starting.abort();
          wake?.(signal);
        };
        process.on("SIGINT", onSignal);
        process.on("SIGTERM", onSignal);
        // SIGHUP reads the bots directory again (it would end the process otherwise).
        let reread: (() => void) | undefined;
        process.on("SIGHUP", () => {
          if (!reread) return logger.info("SIGHUP while the bots start: the bots directory is read once they run");
          reread();
        });
        // The admin API's token, from the environment or .env as the bot files' variables.
        const admin = address ? observe.adminAccess(loadEnv({ botsDir: options.bots }).vars) : undefined;
        // The status server comes first, so /healthz answers and /readyz says "starting" while the bots start.
        const server = address
          ? await observe.startObserveServer({ ...address, clock, logger, ...(admin ? { admin } : {}) })
          : undefined;
        let republish: (() => void) | undefined;
        const started = await start({
          ...options,
          ...(shared ? { state: shared } : {}),
          ...(leaseMs ? { leaseMs } : {}),
          clock,
          logger,
          signal: starting.signal,
          ...(server ? { observer: server.observer } : {}),
          onFleetChange: () => republish?.(),
        }).catch(async (err: unknown) => {
          await server?.close();
          // A signal while waiting for the service ends the start; nothing ran, nothing to save.
          if (!starting.signal.aborted) throw err;
          logger.info(`${received}: stopped before the bots started`);
          process.exit(0);
        });
        // Read where the actions keep it: a dry run's model budgets are the state's and its own uses since.
        server?.attach(observe.runtimeSource(started.runtime, clock, started.runtime.actions.store));
        server?.manage(started.fleet);
        server?.review(started.desk);
        let connectPage: string | undefined;
        if (server) {
          const { pages } = await serveConnect({
            started,
            publicUrl: connectUrl ?? server.url,
            templatesDir: templates ?? templatesDirOf(options.bots),
            clock,
            logger,
          });
          server.mount(pages);
          const link = pages.connectLink();
          if (link) connectPage = `${connectUrl ?? server.url}${link}`;
        }
        reread = () => {
          logger.info(`SIGHUP: reading ${options.bots} again`);
          void started.fleet.readFiles(undefined, "changed");
        };
        const { announceDemo, demoAccessOf, demoBots, publishDemo } = await import("../demo-access.ts");
        const sandbox = started.sandbox;
        const published = () => {
          const bots = demoBots(started.runtime.bots);
          return { bots, access: demoAccessOf(sandbox!, bots, options.bots) };
        };
        const first = sandbox ? published() : undefined;
        const unpublish = first
          ? await announceDemo(options.data, first.access, first.bots, logger, connectPage)
          : undefined;
        // `bot say` finds the bots of the demo as they are now.
        if (sandbox)
          republish = () => {
            void publishDemo(options.data, published().access).catch(() => undefined);
          };
        // Last: everything the line announces answers by now (/readyz, the admin API, /connect, `bot say`).
        started.sayStarted();
        const signal = received ?? (await new Promise<string>((resolve) => (wake = resolve)));
        logger.info(`${signal}: stopping (actions in flight may finish; state is saved)`);
        const hard = setTimeout(() => {
          logger.error(`could not stop within ${HARD_STOP_MS / 1000} s; exiting without waiting further`);
          process.exit(1);
        }, HARD_STOP_MS);
        hard.unref();
        server?.stopping();
        republish = undefined;
        await unpublish?.();
        const { saved } = await started.stop();
        await server?.close();
        clearTimeout(hard);
        if (saved) logger.info(options.dryRun ? "stopped; dry run: the state is as it was" : "stopped; state saved");
        else logger.warn(`stopped; the state could not all be saved (see above); exit ${EXIT_UNSAVED}`);
        // Whatever a plugin left running (a timer, a socket) must not keep the process alive.
        process.exit(saved ? 0 : EXIT_UNSAVED);
      },
    );
}
