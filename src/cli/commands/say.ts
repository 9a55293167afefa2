/**
 * `bot say --as USER "text"`: post as a person in the running demo (`npm start`), so you can
 * mention your own bot and watch it answer. It talks to the demo's embedded sandbox, found
 * through `DATA/demo.json`; the post goes through the service's API like anyone's. With
 * `--wait`, it stays until a bot answers and prints the answers.
 */
import type { Command } from "commander";

export default function register(program: Command): void {
  program
    .command("say")
    .description('post as a user of the running demo (npm start): bot say --as alice "@greeter hi"')
    // Optional for commander, required by the action: `--wait "@greeter hi"` gives the text as --wait's value.
    .argument("[text]", "what the user posts (mention a bot with @name)")
    .requiredOption("--as <username>", "the user who posts (created in the demo on first use)")
    .option("--reply-to <id>", "post it as a reply to this post id")
    .option("--data <dir>", "the demo's data directory", ".postbot")
    .option(
      "--wait [seconds]",
      "wait for the bots' answers and print them (alone: as long as the mentioned bots need to see the post, their poll interval and a margin; at most 600 s)",
    )
    .action(
      async (
        text: string | undefined,
        options: { as: string; replyTo?: string; data: string; wait?: true | string },
      ) => {
        const { say } = await import("../say.ts");
        await say({ ...options, text });
      },
    );
}
