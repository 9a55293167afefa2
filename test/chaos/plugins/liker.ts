// The chaos campaign's liking plugin: likes every post the bot's stream rules deliver.
import { z } from "zod";
import { definePlugin } from "../../../src/plugins/plugin.ts";

export default definePlugin({
  name: "liker",
  options: z.strictObject({}),
  setup(bot) {
    bot.on("post", async (ctx) => {
      await ctx.like();
    });
  },
});
