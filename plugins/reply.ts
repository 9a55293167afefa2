/**
 * `reply`: answers mentions (and, if asked, replies to the bot's own posts) with a text.
 *
 * ```yaml
 * plugins:
 *   reply:
 *     text: "Hello @{author.username}! I'm a bot made with postbot."
 *     events: [mention]            # mention (default) and/or reply
 * ```
 *
 * `text` may be a list: the bot uses its texts in turn. That is worth doing for a bot that
 * meets the same people often, because the service refuses the same text from one account
 * twice within 24 hours.
 *
 * Placeholders: `{author.username}`, `{author.name}`, `{post.text}`, `{post.id}`, and
 * `{post.body}`: the text without the @mentions it starts with (who it was addressed to), to
 * quote what someone said. Any other placeholder is refused when the bot file is loaded
 * (`bot validate` shows where). Quoting a long post can make the reply longer than the
 * service allows (280 characters); such a reply is refused by the service and logged.
 *
 * What the plugin does not need to do, because every action goes through the action layer:
 * answer the same post twice (even across a crash), answer itself or another bot of the
 * process, answer twice in one conversation within the bot's `reply_cooldown`, exceed the
 * plan's limits, or answer a reply that the `moderate` plugin hid.
 */
import { definePlugin, type MentionContext, type ReplyContext } from "postbot";
import { z } from "zod";
import { nextText, render, templates } from "./lib/template.ts";

/** The placeholders a reply text may use. */
export const REPLY_PLACEHOLDERS = ["author.username", "author.name", "post.text", "post.body", "post.id"] as const;

/** A post's text without the @mentions it starts with. */
export const bodyOf = (text: string) => text.replace(/^(?:@\w+\s+)+/, "");

/** The options of `reply` (exported so a bot's own tests, or a plugin built on this one, can reuse them). */
export const replyOptions = z.strictObject({
  text: templates(REPLY_PLACEHOLDERS, "the reply"),
  events: z
    .array(z.enum(["mention", "reply"]))
    .min(1, { error: "needs at least one event: mention or reply" })
    .default(["mention"])
    .meta({
      description:
        "What to answer: mention (posts mentioning the bot) and/or reply (replies to the bot's own posts); default [mention]",
    }),
});

/** Where the bot keeps its place in the list of texts (so a restart goes on with the next one). */
const NEXT_TEXT = "reply.next";

export default definePlugin({
  name: "reply",
  options: replyOptions,
  setup(bot, options) {
    const answer = async (ctx: MentionContext | ReplyContext) => {
      const text = render(nextText(bot.store, NEXT_TEXT, options.text), {
        "author.username": ctx.author.username,
        "author.name": ctx.author.name,
        "post.text": ctx.post.text,
        "post.body": bodyOf(ctx.post.text),
        "post.id": ctx.post.id,
      });
      // The action layer logs how it ended (sent, refused by a rule, waiting for the budget...).
      await ctx.reply(text);
    };
    for (const event of new Set(options.events)) bot.on(event, answer);
  },
});
