/**
 * `reply`: answers mentions (and, if asked, replies to the bot's own posts, or the direct
 * messages people send it) with a text.
 *
 * ```yaml
 * plugins:
 *   reply:
 *     text: "Hello @{author.username}! I'm a bot made with postbot."
 *     events: [mention]            # mention (default), reply and/or dm
 * ```
 *
 * `text` may be a list: the bot uses its texts in turn. That is worth doing for a bot that
 * meets the same people often, because the service refuses the same text from one account
 * twice within 24 hours.
 *
 * Placeholders: `{author.username}`, `{author.name}`, `{post.text}`, `{post.id}`, and
 * `{post.body}`: the text without the @mentions it starts with (who it was addressed to), to
 * quote what someone said. On a direct message (`events: [dm]`, with `triggers: { dms: {} }`),
 * `{author.*}` is its sender and `{post.*}` the message; the answer goes into that
 * conversation. Any other placeholder is refused when the bot file is loaded
 * (`bot validate` shows where). Quoting a long post can make the reply longer than the
 * service allows (280 characters); such a reply is refused by the service and logged.
 *
 * What the plugin does not need to do, because every action goes through the action layer:
 * answer the same post twice (even across a crash), answer itself or another bot of the
 * process, answer twice in one conversation within the bot's `reply_cooldown`, exceed the
 * plan's limits, or answer a reply that the `moderate` plugin hid.
 */
import { definePlugin, type DmContext, type MentionContext, type ReplyContext } from "postbot";
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
    .array(z.enum(["mention", "reply", "dm"]))
    .min(1, { error: "needs at least one event: mention, reply or dm" })
    .default(["mention"])
    .meta({
      description:
        "What to answer: mention (posts mentioning the bot), reply (replies to the bot's own posts) and/or dm (direct messages, with triggers: { dms: {} }); default [mention]",
    }),
});

/** Where the bot keeps its place in the list of texts (so a restart goes on with the next one). */
const NEXT_TEXT = "reply.next";

export default definePlugin({
  name: "reply",
  options: replyOptions,
  setup(bot, options) {
    const textFor = (author: { username: string; name: string }, text: string, id: string) =>
      render(nextText(bot.store, NEXT_TEXT, options.text), {
        "author.username": author.username,
        "author.name": author.name,
        "post.text": text,
        "post.body": bodyOf(text),
        "post.id": id,
      });
    // The action layer logs how each answer ended (sent, refused by a rule, waiting for the budget...).
    const answerPost = async (ctx: MentionContext | ReplyContext) => {
      await ctx.reply(textFor(ctx.author, ctx.post.text, ctx.post.id));
    };
    const answerDm = async (ctx: DmContext) => {
      await ctx.reply(textFor(ctx.sender, ctx.message.text, ctx.message.id));
    };
    for (const event of new Set(options.events)) {
      if (event === "dm") bot.on("dm", answerDm);
      else bot.on(event, answerPost);
    }
  },
});
