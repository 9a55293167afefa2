/**
 * Small plugins several tests use, so each is written once: what they do is part of what the
 * tests assert.
 */
import { definePlugin } from "../../src/plugins/plugin.ts";

/** Hides replies that say "rude" and stops them for every other plugin; handles nothing. */
export const gate = definePlugin({
  name: "gate",
  setup(bot) {
    bot.filter("reply", async (ctx) => {
      if (!ctx.post.text.includes("rude")) return true;
      await ctx.hide();
      return false;
    });
  },
});
