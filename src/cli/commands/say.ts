/**
 * `bot say --as USER "text"`: post as a person in the running demo (`npm start`), so you can
 * mention your own bot and watch it answer. It talks to the demo's embedded sandbox, found
 * through `DATA/demo.json`; the post goes through the service's API like anyone's. With
 * `--wait`, it stays until a bot answers and prints the answers. With `--dm`, the person sends
 * a bot a direct message instead (`bot say --dm --as alice friendly "hi"`), and `--wait`
 * prints the bot's answer in that conversation.
 */
import type { Command } from "commander";
import { UserError } from "../../errors.ts";

export default function register(program: Command): void {
  program
    .command("say")
    .description(
      'post as a user of the running demo (npm start): bot say --as alice "@greeter hi"; or DM a bot: bot say --dm --as alice friendly "hi"',
    )
    // Optional for commander, required by the action: `--wait "@greeter hi"` gives the text as --wait's value.
    .argument("[text]", "what the user posts (mention a bot with @name); with --dm, the bot to message")
    .argument("[dm-text]", "with --dm, the message")
    .requiredOption("--as <username>", "the user who posts (created in the demo on first use)")
    .option("--reply-to <id>", "post it as a reply to this post id")
    .option("--dm", "send the bot a direct message instead of posting: bot say --dm --as alice BOT TEXT")
    .option("--data <dir>", "the demo's data directory", ".postbot")
    .option(
      "--wait [seconds]",
      "wait for the bots' answers and print them (alone: as long as the bots need to see it, their poll interval and a margin; at most 600 s)",
    )
    .action(
      async (
        text: string | undefined,
        dmText: string | undefined,
        options: { as: string; replyTo?: string; dm?: true; data: string; wait?: true | string },
      ) => {
        const { dm, ...rest } = options;
        if (dm) {
          if (rest.replyTo !== undefined)
            throw new UserError("--reply-to answers a post; a direct message has none (drop --dm or --reply-to)", {
              exitCode: 2,
            });
          const { sayDm } = await import("../say-dm.ts");
          await sayDm({
            as: rest.as,
            data: rest.data,
            words: [text, dmText],
            ...(rest.wait ? { wait: rest.wait } : {}),
          });
          return;
        }
        if (dmText !== undefined)
          throw new UserError(
            `too many words: quote the text to post (bot say --as ${rest.as} "${text} ${dmText}"), or add --dm to send a bot a direct message`,
            { exitCode: 2 },
          );
        const { say } = await import("../say.ts");
        await say({ ...rest, text });
      },
    );
}
