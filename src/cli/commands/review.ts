/**
 * `bot review`: the replies the `moderate` plugin was unsure of and those it hid, each with
 * why, and a person's decision about one: `bot review hide|unhide|keep POST_ID`. Listing
 * reads the state without writing it (it works while `bot start` runs); a decision is handed
 * to the `bot start` of the same data directory, which sends it through the bot's action
 * pipeline within seconds (or when it next starts) and remembers it for later replies.
 */
import type { Command } from "commander";

const DECISIONS = ["hide", "unhide", "keep"] as const;

export default function register(program: Command): void {
  program
    .command("review")
    .description(
      "list the replies moderation was unsure of or hid, with why (bot review), or decide about one: bot review hide|unhide|keep POST_ID",
    )
    .argument("[decision]", "hide, unhide or keep: what to do with the reply (leave out to list)")
    .argument("[post]", "the reply's post id, as the list shows it")
    .option("--bot <name>", "only this bot's list (needed to decide when two bots list the same post)")
    .option("--open", "only the replies nobody decided about yet")
    .option("--json", "print the list as JSON")
    .option("--data <dir>", "directory of the state store", ".postbot")
    .option(
      "--state <url>",
      "read the state from Redis (redis://HOST:PORT/DB), as `bot start --state` keeps it (default: POSTBOT_STATE, else the --data directory); listing only",
    )
    .action(
      async (
        decision: string | undefined,
        post: string | undefined,
        options: { bot?: string; open?: boolean; json?: boolean; data: string; state?: string },
      ) => {
        const [{ openFileStore, hasState }, { reviewList }, { UserError }, { stateOption }] = await Promise.all([
          import("../../store/index.ts"),
          import("../../hosting/review-desk.ts"),
          import("../../errors.ts"),
          import("../state-option.ts"),
        ]);
        if (decision !== undefined && !(DECISIONS as readonly string[]).includes(decision))
          throw new UserError(
            `"${decision}" is not a decision: write bot review hide|unhide|keep POST_ID, or bot review to list`,
            { exitCode: 2 },
          );
        if (decision !== undefined && post === undefined)
          throw new UserError(`bot review ${decision} needs the reply's post id, as bot review lists it`, {
            exitCode: 2,
          });
        const bots = options.bot ? [options.bot] : undefined;
        const shared = stateOption(options.state, process.env);
        let store;
        if (shared) {
          if (decision)
            throw new UserError(
              `${shared.source}: with the state in Redis, decide on the status page's /review of the process that runs the bot; bot review lists only`,
              { exitCode: 2 },
            );
          const { readRedisState } = await import("../../redis/store.ts");
          store = await readRedisState(shared.url, shared.source);
        } else {
          if (!(await hasState(options.data)))
            throw new UserError(
              `no state in ${options.data}: no bot has run with this data directory (start them with \`bot start\`, or give --data DIR)`,
            );
          store = await openFileStore(options.data, { readOnly: true });
        }
        let items;
        try {
          items = reviewList(store, { ...(bots ? { bots } : {}), ...(options.open ? { open: true } : {}) });
        } finally {
          await store.close();
        }
        if (decision === undefined) {
          if (options.json) process.stdout.write(`${JSON.stringify(items, null, 2)}\n`);
          else {
            const { formatReviewList } = await import("../review-view.ts");
            process.stdout.write(`${formatReviewList(items, Date.now())}\n`);
          }
          return;
        }
        const listed = items.filter((i) => i.post === post);
        if (listed.length === 0)
          throw new UserError(
            `post ${post} is not on ${options.bot ? `bot ${options.bot}'s` : "any bot's"} review list; bot review lists them`,
          );
        if (listed.length > 1)
          throw new UserError(
            `post ${post} is on the lists of ${listed.map((i) => i.bot).join(" and ")}: say which with --bot NAME`,
            { exitCode: 2 },
          );
        const [{ writeReviewRequest }, { userInfo }] = await Promise.all([
          import("../../hosting/review-requests.ts"),
          import("node:os"),
        ]);
        const item = listed[0]!;
        await writeReviewRequest(options.data, {
          bot: item.bot,
          post: item.post,
          decision: decision as (typeof DECISIONS)[number],
          by: `cli:${userInfo().username}`,
          at: Date.now(),
        });
        process.stdout.write(
          `${decision} of ${item.bot}'s reply ${item.post} by @${item.author.username}: handed to bot start, which sends it within a few seconds (or when it next starts); bot review shows the outcome\n`,
        );
      },
    );
}
