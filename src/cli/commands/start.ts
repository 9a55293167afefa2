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
 * 9.5 seconds (or a second signal came). The work is in `src/cli/start.ts`.
 */
import type { Command } from "commander";
import type { StartCommandOptions } from "../start.ts";

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
new code, and so does a module it imports (the plugin is bundled again; a plugin loaded
without a bundle imports such a module once: restart to use its changes).

With --http, people connect their own account at /connect/NAME: they sign in with the service,
and the bot of templates/NAME.yaml starts as their account ({account.username} in its name
and texts); /connect/NAME/disconnect undoes it. The app's settings must list the callback URL
<public-url>/connect/callback (the embedded sandbox's apps list it by themselves).

With --http, POSTBOT_ADMIN_TOKEN (at least 16 random characters) turns on the admin API:
list, add, replace, remove, pause and resume bots (Authorization: Bearer TOKEN);
POSTBOT_ADMIN_TOKEN_NAME names its holder in the log (default admin).`,
    )
    .action(async (options: StartCommandOptions) => {
      const { startCommand } = await import("../start.ts");
      await startCommand(options);
    });
}
