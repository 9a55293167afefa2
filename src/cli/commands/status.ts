/**
 * `bot status`: per bot, the last event of each trigger and its age, the cursors, the budget
 * left per action and whether the account is paused. It reads the state store without
 * writing it, so it works while `bot start` runs.
 */
import type { Command } from "commander";

export default function register(program: Command): void {
  program
    .command("status")
    .description(
      "show each bot's triggers (last event and its age), cursors, last action, budget left, the monthly read cap and paused accounts",
    )
    .option("--data <dir>", "directory of the state store", ".postbot")
    .option(
      "--state <url>",
      "read the state from Redis (redis://HOST:PORT/DB, unix:///PATH/TO/redis.sock?db=DB, or redis+cluster://HOST:PORT,HOST:PORT,...), as `bot start --state` keeps it (default: POSTBOT_STATE, else the --data directory)",
    )
    .option("--json", "print the report as JSON")
    .action(async (options: { data: string; state?: string; json?: boolean }) => {
      const [{ openFileStore, hasState }, { collectStatus, formatStatus }, { systemClock }, { UserError }] =
        await Promise.all([
          import("../../store/index.ts"),
          import("../../hosting/status-report.ts"),
          import("../../clock.ts"),
          import("../../errors.ts"),
        ]);
      const { stateOption } = await import("../state-option.ts");
      const shared = stateOption(options.state, process.env);
      if (shared) {
        const { readRedisState } = await import("../../redis/store.ts");
        const store = await readRedisState(shared.url, shared.source);
        try {
          const reports = collectStatus(store, systemClock);
          process.stdout.write(
            options.json ? `${JSON.stringify(reports, null, 2)}\n` : `${formatStatus(reports, systemClock.now())}\n`,
          );
        } finally {
          await store.close();
        }
        return;
      }
      if (!(await hasState(options.data))) {
        throw new UserError(
          `no state in ${options.data}: no bot has run with this data directory (start them with \`bot start\`, or give --data DIR)`,
        );
      }
      const store = await openFileStore(options.data, { readOnly: true });
      try {
        const reports = collectStatus(store, systemClock);
        process.stdout.write(
          options.json ? `${JSON.stringify(reports, null, 2)}\n` : `${formatStatus(reports, systemClock.now())}\n`,
        );
      } finally {
        await store.close();
      }
    });
}
