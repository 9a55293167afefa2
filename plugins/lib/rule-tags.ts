/**
 * Which stream posts the `like` and `repost` plugins act on: those of the rules whose tags
 * the bot file lists (all rules when it lists none), and never the bot's own posts (a bot
 * liking or reposting itself looks like spam, and a repost can match the rule again).
 */
import type { StreamPostContext } from "postbot";
import { z } from "zod";

/** The `tags` option: the rule tags to act on, as written in the bot file's `triggers.stream`. */
export const ruleTags = z
  .array(z.string().min(1, { error: "must not be empty; give a tag of one of the bot's stream rules" }))
  .min(1, { error: "needs at least one tag; leave tags out to act on every rule" })
  .optional()
  .meta({
    description:
      "Only posts delivered by the stream rules with these tags (as written in triggers.stream); default: every rule",
  });

/** Whether a delivered stream post is one to act on. */
export function wanted(ctx: StreamPostContext, tags: readonly string[] | undefined): boolean {
  if (ctx.post.author_id === ctx.bot.userId) return false;
  return tags === undefined || (ctx.rule.tag !== undefined && tags.includes(ctx.rule.tag));
}
