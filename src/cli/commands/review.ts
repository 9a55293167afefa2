/**
 * `bot review`: the replies the `moderate` plugin was unsure of and those it hid, each with
 * why, and a person's decision about one: `bot review hide|unhide|keep POST_ID`. Listing
 * reads the state without writing it (it works while `bot start` runs); a decision is handed
 * to the `bot start` of the same data directory, which sends it through the bot's action
 * pipeline within seconds (or when it next starts) and remembers it for later replies.
 */
import type { Command } from "commander";
import type { ReviewOptions } from "../review.ts";

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
    .action(async (decision: string | undefined, post: string | undefined, options: ReviewOptions) => {
      const { review } = await import("../review.ts");
      await review(decision, post, options);
    });
}
