/**
 * `bot say --as USER "text"`: post as a person in the running demo (`npm start`), so you can
 * mention your own bot and watch it answer. It talks to the demo's embedded sandbox, found
 * through `DATA/demo.json`; the post goes through the service's API like anyone's. With
 * `--wait`, it stays until a bot answers and prints the answers.
 */
import type { Command } from "commander";

/** How long `--wait` alone waits for an answer, and the longest it may be told to (seconds). */
const DEFAULT_WAIT_S = 60;
const MAX_WAIT_S = 600;

export default function register(program: Command): void {
  program
    .command("say")
    .description('post as a user of the running demo (npm start): bot say --as alice "@greeter hi"')
    .argument("<text>", "what the user posts (mention a bot with @name)")
    .requiredOption("--as <username>", "the user who posts (created in the demo on first use)")
    .option("--reply-to <id>", "post it as a reply to this post id")
    .option("--data <dir>", "the demo's data directory", ".postbot")
    .option(
      "--wait [seconds]",
      `wait for the bots' answers and print them (default ${DEFAULT_WAIT_S} s, at most ${MAX_WAIT_S})`,
    )
    .action(async (text: string, options: { as: string; replyTo?: string; data: string; wait?: true | string }) => {
      const [{ readDemo }, { withDemoUsers }, { systemClock }, { UserError }, { ApiError }, { awaitReplies }] =
        await Promise.all([
          import("../demo-access.ts"),
          import("../demo-users.ts"),
          import("../../clock.ts"),
          import("../../errors.ts"),
          import("../../api/errors.ts"),
          import("../await-replies.ts"),
        ]);
      if (options.replyTo !== undefined && !/^\d{1,19}$/.test(options.replyTo))
        throw new UserError(`--reply-to ${options.replyTo}: expected a post id (digits)`, { exitCode: 2 });
      const waitS =
        options.wait === undefined ? undefined : options.wait === true ? DEFAULT_WAIT_S : Number(options.wait);
      if (waitS !== undefined && !(Number.isInteger(waitS) && waitS >= 1 && waitS <= MAX_WAIT_S)) {
        throw new UserError(
          `--wait ${String(options.wait)}: expected whole seconds from 1 to ${MAX_WAIT_S} (or --wait alone for ${DEFAULT_WAIT_S})`,
          { exitCode: 2 },
        );
      }
      const access = await readDemo(options.data);
      const answers = await withDemoUsers(options.data, access, systemClock, async (users) => {
        const { client } = await users.as(options.as);
        const post = await client.posts.create({
          text,
          ...(options.replyTo ? { reply: { in_reply_to_post_id: options.replyTo } } : {}),
        });
        const id = post.data?.id ?? "?";
        process.stdout.write(`@${options.as} posted ${id}: ${JSON.stringify(text)}\n`);
        if (waitS === undefined) {
          process.stdout.write(
            "The bots see it at their next poll (watch the demo's log, or add --wait); answer a reply with --reply-to ITS_ID.\n",
          );
          return undefined;
        }
        return awaitReplies({ client, clock: systemClock, postId: id, timeoutMs: waitS * 1000 });
      }).catch((err: unknown) => {
        if (err instanceof ApiError)
          throw new UserError(`@${options.as} could not post or look for answers: ${err.message}`, { cause: err });
        throw err;
      });
      if (answers === undefined) return;
      if (answers.length === 0) {
        throw new UserError(
          `no answer within ${waitS} s: does a bot of the demo have a mentions trigger and a plugin that replies, and did the post mention it? Watch the demo's log`,
        );
      }
      for (const a of answers) process.stdout.write(`@${a.username} answered ${a.id}: ${JSON.stringify(a.text)}\n`);
      process.stdout.write("Answer a reply with --reply-to ITS_ID.\n");
    });
}
