/**
 * `like`: likes the posts the bot's stream rules deliver (the `post` event).
 *
 * ```yaml
 * triggers:
 *   stream:
 *     - { value: "#postbot -is:repost", tag: postbot }
 *     - { value: "typescript bots", tag: ts }
 * plugins:
 *   like: { tags: [postbot] }      # leave tags out to like what every rule delivers
 * ```
 *
 * The bot's own posts are never liked. The action layer keeps each like to one per post
 * (even across a crash) and within the plan's limits: on the pro plan, 1000 likes per
 * 24 hours per account; a like that cannot be sent before its time-to-live is dropped, not
 * sent late.
 */
import { definePlugin } from "postbot";
import { z } from "zod";
import { ruleTags, wanted } from "./lib/rule-tags.ts";

/** The options of `like` (exported so a bot's own tests, or a plugin built on this one, can reuse them). */
export const likeOptions = z.strictObject({ tags: ruleTags });

export default definePlugin({
  name: "like",
  options: likeOptions,
  setup(bot, options) {
    bot.on("post", async (ctx) => {
      if (wanted(ctx, options.tags)) await ctx.like();
    });
  },
});
