/**
 * The bot of the head-of-line test and bench: a pro bot that answers every mention and likes
 * every post its stream rule (`#likeme`) matches, so its replies can fill the reply window
 * while its likes must go on.
 */
import { definePlugin } from "../../src/plugins/plugin.ts";

/** The plugin; `onLiked` hears of each like the service took. */
export function busyPlugin(onLiked: (postId: string) => void = () => {}) {
  return definePlugin({
    name: "busy",
    setup(bot) {
      bot.on("mention", async (ctx) => {
        await ctx.reply(`thanks @${ctx.author.username}: ${ctx.post.text}`);
      });
      bot.on("post", async (ctx) => {
        if ((await ctx.like()).status === "sent") onLiked(ctx.post.id);
      });
    },
  });
}

/** The bot file. */
export const busyBot = {
  name: "busy",
  plan: "pro" as const,
  triggers: { mentions: {}, stream: [{ value: "#likeme" }] },
  plugins: { busy: {} },
};
