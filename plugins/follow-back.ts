/**
 * `follow-back`: follows the bot's new followers (the `follow` event).
 *
 * ```yaml
 * triggers:
 *   followers: {}                  # look for new followers, as often as the plan allows
 * plugins:
 *   follow-back: { min_followers: 0 }
 * ```
 *
 * Only followers who arrive while the bot runs count: the followers it had when it first
 * started are not followed back all at once. `min_followers` skips brand-new accounts with
 * no audience, which is what most follow-for-follow spam looks like.
 */
import { definePlugin } from "postbot";
import { z } from "zod";

/** The options of `follow-back` (exported so a bot's own tests, or a plugin built on this one, can reuse them). */
export const followBackOptions = z.strictObject({
  min_followers: z
    .number({ error: "expected a whole number of followers (0 follows everyone back)" })
    .int({ error: "expected a whole number of followers (0 follows everyone back)" })
    .min(0, { error: (iss) => `${String(iss.input)} is negative; use 0 or more (0 follows everyone back)` })
    .default(0)
    .meta({
      description: "Follow back only accounts with at least this many followers of their own; default 0 (everyone)",
    }),
});

export default definePlugin({
  name: "follow-back",
  options: followBackOptions,
  setup(bot, options) {
    bot.on("follow", async (ctx) => {
      const followers = ctx.user.public_metrics?.followers_count ?? 0;
      if (followers < options.min_followers) {
        ctx.log.info(
          { user: ctx.user.username, followers },
          `not following @${ctx.user.username} back: ${followers} followers, fewer than min_followers (${options.min_followers})`,
        );
        return;
      }
      await ctx.follow();
    });
  },
});
