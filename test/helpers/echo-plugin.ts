/**
 * The plugin of the multi-process tests: answers each mention with the mention's text, so
 * every answer differs (the service refuses the same text twice from one account) and says
 * which bot answered.
 */
import { z } from "zod";
import { definePlugin } from "../../src/plugins/plugin.ts";

export const echo = definePlugin({
  name: "echo",
  options: z.object({}),
  setup(bot) {
    bot.on("mention", async (ctx) => {
      await ctx.reply(`hi @${ctx.author.username} from ${bot.name}: ${ctx.post.text}`);
    });
  },
});
