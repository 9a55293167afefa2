/**
 * `repost`: reposts the posts the bot's stream rules deliver (the `post` event).
 *
 * ```yaml
 * triggers:
 *   stream:
 *     - { value: "#postbot -is:repost", tag: postbot }
 * plugins:
 *   repost: { tags: [postbot] }    # leave tags out to repost what every rule delivers
 * ```
 *
 * Write `-is:repost` in the rule: otherwise other accounts' reposts of a post match too,
 * and the bot would be asked to repost the same post again. The bot's own posts are never
 * reposted. Reposts are scarcer than likes on every plan (pro: 50 per 15 minutes), so a
 * busy rule is better served by `like` with `repost` kept to a narrow tag.
 */
import { definePlugin } from "postbot";
import { z } from "zod";
import { ruleTags, wanted } from "./lib/rule-tags.ts";

/** The options of `repost` (exported so a bot's own tests, or a plugin built on this one, can reuse them). */
export const repostOptions = z.strictObject({ tags: ruleTags });

export default definePlugin({
  name: "repost",
  options: repostOptions,
  setup(bot, options) {
    bot.on("post", async (ctx) => {
      if (wanted(ctx, options.tags)) await ctx.repost();
    });
  },
});
