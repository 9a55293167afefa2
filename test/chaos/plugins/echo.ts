// The chaos campaign's answering plugin: replies to each mention (and direct message) with its text (every answer
// differs, so the service never refuses one as a duplicate), so a tally can find each answer.
import { z } from "zod";
import { definePlugin } from "../../../src/plugins/plugin.ts";

export default definePlugin({
  name: "echo",
  options: z.strictObject({ dms: z.boolean().default(false) }),
  setup(bot, options) {
    bot.on("mention", async (ctx) => {
      await ctx.reply(`@${ctx.author.username} got it: ${ctx.post.text.replace(/@\w+\s*/g, "").slice(0, 200)}`);
    });
    // A direct message (`dms: true`, beside the bot's dms trigger): answered with its text, so a tally finds it.
    // Registered only then: a dm handler with no dms trigger is warned about at start.
    if (options.dms)
      bot.on("dm", async (ctx) => {
        await ctx.reply(`got it: ${ctx.message.text}`);
      });
  },
});
