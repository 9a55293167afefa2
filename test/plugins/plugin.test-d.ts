import { describe, expectTypeOf, it } from "vitest";
import { z } from "zod";
import type { Outcome } from "../../src/actions/index.ts";
import type { User } from "../../src/api/types.ts";
import { definePlugin, type EventPost, type PluginBot } from "../../src/plugins/plugin.ts";

describe("definePlugin types", () => {
  it("narrows the context by event", () => {
    definePlugin({
      name: "typed",
      options: z.object({ text: z.string(), times: z.number().default(1) }),
      setup(bot, options) {
        expectTypeOf(options).toEqualTypeOf<{ text: string; times: number }>();
        expectTypeOf(bot).toEqualTypeOf<PluginBot>();
        bot.on("mention", (ctx) => {
          expectTypeOf(ctx.post).toEqualTypeOf<EventPost>();
          expectTypeOf(ctx.post.author_id).toBeString();
          expectTypeOf(ctx.author).toEqualTypeOf<User>();
          expectTypeOf(ctx.reply).parameter(0).toBeString();
          expectTypeOf(ctx.reply(options.text)).resolves.toEqualTypeOf<Outcome>();
          expectTypeOf(ctx.event).toEqualTypeOf<"mention">();
          // On a post event, publishing goes through ctx.actions.
          expectTypeOf(ctx.actions.post).parameter(0).toBeString();
        });
        bot.on("post", (ctx) => {
          expectTypeOf(ctx.rule.tag).toEqualTypeOf<string | undefined>();
          expectTypeOf(ctx.post.id).toBeString();
        });
        bot.on("reply", (ctx) => {
          expectTypeOf(ctx.inReplyTo).toBeString();
          expectTypeOf(ctx.hide).toBeFunction();
        });
        bot.on("schedule", (ctx) => {
          expectTypeOf(ctx.schedule.name).toBeString();
          // A schedule has no post to reply to.
          expectTypeOf(ctx).not.toHaveProperty("reply");
          expectTypeOf(ctx).not.toHaveProperty("author");
          expectTypeOf(ctx.post).parameter(0).toBeString(); // publishes a new post
        });
        bot.on("follow", (ctx) => {
          expectTypeOf(ctx.user).toEqualTypeOf<User>();
          expectTypeOf(ctx).not.toHaveProperty("reply");
        });
      },
    });
  });

  it("refuses unknown events and wrong options", () => {
    definePlugin({
      name: "wrong",
      options: z.object({ n: z.number() }),
      setup(bot, options) {
        // @ts-expect-error options.n is a number
        options.n.toUpperCase();
        // @ts-expect-error there is no such event
        bot.on("tweet", () => {});
        bot.on("mention", (ctx) => {
          // @ts-expect-error reply takes text
          void ctx.reply(42);
        });
      },
    });
  });
});
