/**
 * `welcome-dm`: sends each new follower a direct message, once (the `follow` event).
 *
 * ```yaml
 * plan: pro                        # free has no direct messages; basic allows 1 per 24 hours per app
 * triggers:
 *   followers: {}
 * plugins:
 *   welcome-dm:
 *     text: "Thanks for following, {user.name}! Mention me with a question any time."
 * ```
 *
 * Placeholders: `{user.username}`, `{user.name}`. `text` may be a list, used in turn.
 *
 * "Once" holds across polls, restarts and crashes: the message's idempotency key is the
 * follower, not the text, so the action layer never sends a second welcome to the same
 * account, even after the text was changed.
 */
import { definePlugin } from "postbot";
import { z } from "zod";
import { nextText, render, templates } from "./lib/template.ts";

/** The placeholders a welcome message may use. */
export const WELCOME_PLACEHOLDERS = ["user.username", "user.name"] as const;

/** The options of `welcome-dm` (exported so a bot's own tests, or a plugin built on this one, can reuse them). */
export const welcomeDmOptions = z.strictObject({
  text: templates(WELCOME_PLACEHOLDERS, "the welcome message"),
});

export default definePlugin({
  name: "welcome-dm",
  options: welcomeDmOptions,
  setup(bot, options) {
    bot.on("follow", async (ctx) => {
      const text = render(nextText(bot.store, "welcome-dm.next", options.text), {
        "user.username": ctx.user.username,
        "user.name": ctx.user.name,
      });
      await ctx.dm(text, { key: `welcome:${ctx.user.id}` });
    });
  },
});
