/**
 * `bot say --as USER "text"`: post as a person in the running demo (`npm start`), so you can
 * mention your own bot and watch it answer. It talks to the demo's embedded sandbox, found
 * through `DATA/demo.json`; the post goes through the service's API like anyone's.
 */
import type { Command } from "commander";

export default function register(program: Command): void {
  program
    .command("say")
    .description("post as a user of the running demo (npm start): bot say --as alice \"@greeter hi\"")
    .argument("<text>", "what the user posts (mention a bot with @name)")
    .requiredOption("--as <username>", "the user who posts (created in the demo on first use)")
    .option("--reply-to <id>", "post it as a reply to this post id")
    .option("--data <dir>", "the demo's data directory", ".postbot")
    .action(async (text: string, options: { as: string; replyTo?: string; data: string }) => {
      const [{ readDemo }, { withDemoUsers }, { systemClock }, { UserError }, { ApiError }] = await Promise.all([
        import("../demo-access.ts"),
        import("../demo-users.ts"),
        import("../../clock.ts"),
        import("../../errors.ts"),
        import("../../api/errors.ts"),
      ]);
      if (options.replyTo !== undefined && !/^\d{1,19}$/.test(options.replyTo)) throw new UserError(`--reply-to ${options.replyTo}: expected a post id (digits)`, { exitCode: 2 });
      const access = await readDemo(options.data);
      const post = await withDemoUsers(options.data, access, systemClock, async (users) => {
        const { client } = await users.as(options.as);
        return client.posts.create({ text, ...(options.replyTo ? { reply: { in_reply_to_post_id: options.replyTo } } : {}) });
      }).catch((err: unknown) => {
        if (err instanceof ApiError) throw new UserError(`@${options.as} could not post: ${err.message}`, { cause: err });
        throw err;
      });
      const id = post.data?.id ?? "?";
      process.stdout.write(`@${options.as} posted ${id}: ${JSON.stringify(text)}\nThe bots see it at their next poll (watch the demo's log); answer a reply with --reply-to ITS_ID.\n`);
    });
}
