/**
 * `bot follow --as USER NAME`: a user of the running demo (`npm start`) follows an account,
 * a bot as a rule, so its followers trigger (follow back, welcome DM) can be watched.
 */
import type { Command } from "commander";

export default function register(program: Command): void {
  program
    .command("follow")
    .description("follow an account as a user of the running demo (npm start): bot follow --as alice friendly")
    .argument("<username>", "the account to follow (a bot's name, or any user of the demo)")
    .requiredOption("--as <username>", "the user who follows (created in the demo on first use)")
    .option("--data <dir>", "the demo's data directory", ".postbot")
    .action(async (target: string, options: { as: string; data: string }) => {
      const [{ botNamed, readDemo, usernameOf }, { demoClock, withDemoUsers }, { UserError }, { ApiError }] =
        await Promise.all([
          import("../demo-access.ts"),
          import("../demo-users.ts"),
          import("../../errors.ts"),
          import("../../api/errors.ts"),
        ]);
      const access = await readDemo(options.data);
      // A bot by its name or its account's username (a connected account's bot: `maya_codes`); anyone else as written.
      const bot = botNamed(access, target);
      const name = bot === undefined ? target.replace(/^@/, "") : usernameOf(access, bot);
      await withDemoUsers(options.data, access, await demoClock(access), async (users) => {
        const { id, client } = await users.as(options.as);
        await client.users.follow(id, await users.idOf(name));
      }).catch((err: unknown) => {
        if (err instanceof ApiError)
          throw new UserError(`@${options.as} could not follow @${name}: ${err.message}`, { cause: err });
        throw err;
      });
      process.stdout.write(
        `@${options.as} follows @${name}; a bot with a followers trigger sees it at its next poll.\n`,
      );
    });
}
