import { describe, expectTypeOf, it } from "vitest";
import { z } from "zod";
import type { Outcome } from "../../src/actions/index.ts";
import type { ApiClient } from "../../src/api/client.ts";
import type { User } from "../../src/api/types.ts";
import {
  definePlugin,
  type EventPost,
  type Plugin,
  type PluginBot,
  type PluginDefinition,
  type PublishOutcome,
  type ReplyOutcome,
} from "../../src/plugins/plugin.ts";

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
          // The outcome is typed by the action: a sent reply carries the new post's id.
          expectTypeOf(ctx.reply(options.text)).resolves.toEqualTypeOf<ReplyOutcome>();
          expectTypeOf<ReplyOutcome>().toExtend<Outcome>();
          expectTypeOf(ctx.event).toEqualTypeOf<"mention">();
          // On a post event, publishing goes through ctx.publish (or ctx.actions).
          expectTypeOf(ctx.actions.post).parameter(0).toBeString();
          expectTypeOf(ctx.publish).parameter(0).toBeString();
          expectTypeOf(ctx.publish("hi")).resolves.toEqualTypeOf<PublishOutcome>();
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
          expectTypeOf(ctx.post).parameter(0).toBeString(); // publishes a new post (the old spelling)
          expectTypeOf(ctx.publish).parameter(0).toBeString(); // ... and the new one
        });
        bot.on("follow", (ctx) => {
          expectTypeOf(ctx.user).toEqualTypeOf<User>();
          expectTypeOf(ctx).not.toHaveProperty("reply");
          expectTypeOf(ctx.publish).parameter(0).toBeString();
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

  it("types the outcome of each action, and says what bypasses the action layer", () => {
    definePlugin({
      name: "typed-outcomes",
      setup(bot) {
        bot.on("mention", async (ctx) => {
          const reply = await ctx.reply("hi");
          if (reply.status === "sent") expectTypeOf(reply.result.data.id).toBeString();
          const like = await ctx.like();
          if (like.status === "sent") expectTypeOf(like.result.data.liked).toBeBoolean();
          const dm = await ctx.actions.dm("42", "hello");
          if (dm.status === "sent") expectTypeOf(dm.result.data.dm_event_id).toBeString();
          const published = await ctx.publish("news");
          if (published.status === "dry-run") expectTypeOf(published.result.data.id).toBeString();
          expectTypeOf(ctx.budget.remaining("reply")).toBeNumber();
          expectTypeOf(ctx.unbudgetedApi).toEqualTypeOf<ApiClient>();
          // The old spelling is the same client.
          expectTypeOf(ctx.api).toEqualTypeOf<ApiClient>();
        });
        bot.on("schedule", async (ctx) => {
          const outcome = await ctx.publish("good morning");
          if (outcome.status === "sent") expectTypeOf(outcome.result.data.id).toBeString();
        });
      },
    });
  });

  it("has one plugin type: any definePlugin result is a Plugin, and PluginDefinition is its old name", () => {
    const typed = definePlugin({ name: "a", options: z.object({ n: z.number() }), setup() {} });
    expectTypeOf(typed).toExtend<Plugin>();
    expectTypeOf<PluginDefinition>().toEqualTypeOf<Plugin>();
    const plugins: Record<string, Plugin> = { a: typed, b: definePlugin({ name: "b", setup() {} }) };
    expectTypeOf(plugins).toEqualTypeOf<Record<string, Plugin>>();
  });
});
