// The chaos campaign's answering plugin: replies to each mention (and direct message) with its text (every answer
// differs, so the service never refuses one as a duplicate), so a tally can find each answer.
import { z } from "zod";
import { definePlugin } from "../../../src/plugins/plugin.ts";

export default definePlugin({
  name: "echo",
  options: z.strictObject({}),
  setup(bot) {
    bot.on("mention", async (ctx) => {
      await ctx.reply(`@${ctx.author.username} got it: ${ctx.post.text.replace(/@\w+\s*/g, "").slice(0, 200)}`);
    });
    // A direct message (when the bot file has `dms`): answered with its text, so a tally finds it.
    bot.on("dm", async (ctx) => {
      await ctx.reply(`got it: ${ctx.message.text}`);
    });
  },
});
