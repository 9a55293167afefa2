// The plugin of fleet.bench.ts's `bot start`: answers each mention and appends one line per
// handled mention to the file BENCH_FLEET_RECORD names (the bot, the mention's id and when it
// was made, when its reply went out), so the bench measures from outside the process.
import { appendFileSync } from "node:fs";
import { definePlugin } from "../../../src/plugins/plugin.ts";

const out = process.env.BENCH_FLEET_RECORD;

export default definePlugin({
  name: "record",
  setup(bot) {
    bot.on("mention", async (ctx) => {
      const outcome = await ctx.reply(`@${ctx.author.username} thanks (${ctx.post.id})`);
      if (!out) return;
      const line = { bot: ctx.bot.name, post: ctx.post.id, made: Date.parse(ctx.post.created_at), at: Date.now() };
      appendFileSync(out, `${JSON.stringify({ ...line, status: outcome.status })}\n`);
    });
  },
});
