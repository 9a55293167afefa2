/**
 * The plugin API's types, pinned: `npm run typecheck` (tsc over test/) checks this file, so a
 * change to what a plugin author writes against fails here first. Each `@ts-expect-error` is
 * code that must not compile (tsc fails if it does).
 */
import { describe, expectTypeOf, it } from "vitest";
import { z } from "zod";
import type { Outcome } from "../../src/actions/index.ts";
import type { ApiClient } from "../../src/api/client.ts";
import type { User } from "../../src/api/types.ts";
import type * as postbot from "../../src/index.ts";
import {
  definePlugin,
  type BotStore,
  type Dialog,
  type DmOutcome,
  type EventPost,
  type FollowOutcome,
  type HideOutcome,
  type LikeOutcome,
  type MuteOutcome,
  type Plugin,
  type PluginBot,
  type PublishOutcome,
  type ReplyOutcome,
  type RepostOutcome,
  type StartResult,
  type WriteText,
} from "../../src/plugins/plugin.ts";

const write: WriteText = async () => "a text written when the reply goes";

describe("definePlugin types", () => {
  it("narrows the context by event, ctx.post always the event's post", () => {
    definePlugin({
      name: "typed",
      options: z.object({ text: z.string(), times: z.number().default(1) }),
      setup(bot, options) {
        expectTypeOf(options).toEqualTypeOf<{ text: string; times: number }>();
        expectTypeOf(bot).toEqualTypeOf<PluginBot>();
        expectTypeOf(bot.store).toEqualTypeOf<BotStore>();
        bot.on("mention", (ctx) => {
          expectTypeOf(ctx.post).toEqualTypeOf<EventPost>();
          expectTypeOf(ctx.post.author_id).toBeString();
          expectTypeOf(ctx.author).toEqualTypeOf<User>();
          expectTypeOf(ctx.reply(options.text)).resolves.toEqualTypeOf<ReplyOutcome>();
          expectTypeOf(ctx.reply(write)).resolves.toEqualTypeOf<ReplyOutcome>();
          expectTypeOf<ReplyOutcome>().toExtend<Outcome>();
          expectTypeOf(ctx.event).toEqualTypeOf<"mention">();
          expectTypeOf(ctx.publish("hi")).resolves.toEqualTypeOf<PublishOutcome>();
        });
        bot.on("post", (ctx) => {
          expectTypeOf(ctx.rule.tag).toEqualTypeOf<string | undefined>();
          expectTypeOf(ctx.post).toEqualTypeOf<EventPost>();
        });
        bot.on("reply", (ctx) => {
          expectTypeOf(ctx.inReplyTo).toBeString();
          expectTypeOf(ctx.post).toEqualTypeOf<EventPost>();
          expectTypeOf(ctx.hide()).resolves.toEqualTypeOf<HideOutcome>();
        });
        bot.on("schedule", (ctx) => {
          expectTypeOf(ctx.schedule.name).toBeString();
          // A schedule has no post: ctx.post is not a function that publishes, it is not there.
          expectTypeOf(ctx).not.toHaveProperty("post");
          expectTypeOf(ctx).not.toHaveProperty("author");
          expectTypeOf(ctx.publish).parameter(0).toBeString();
        });
        bot.on("follow", (ctx) => {
          expectTypeOf(ctx.user).toEqualTypeOf<User>();
          expectTypeOf(ctx).not.toHaveProperty("post");
          expectTypeOf(ctx.publish).parameter(0).toBeString();
        });
        bot.on("dm", (ctx) => {
          expectTypeOf(ctx.message.text).toBeString();
          expectTypeOf(ctx.sender).toEqualTypeOf<User>();
          expectTypeOf(ctx.conversation.id).toBeString();
          expectTypeOf(ctx).not.toHaveProperty("post");
        });
      },
    });
  });

  it("types each verb's outcome by its action", () => {
    definePlugin({
      name: "typed-outcomes",
      setup(bot) {
        bot.on("mention", async (ctx) => {
          const reply = await ctx.reply("hi");
          if (reply.status === "sent") expectTypeOf(reply.result.data.id).toBeString();
          if (reply.status === "dry-run") expectTypeOf(reply.result.data.id).toBeString();
          const like = await ctx.like();
          expectTypeOf(like).toEqualTypeOf<LikeOutcome>();
          if (like.status === "sent") expectTypeOf(like.result.data.liked).toBeBoolean();
          const repost = await ctx.repost();
          expectTypeOf(repost).toEqualTypeOf<RepostOutcome>();
          if (repost.status === "sent") expectTypeOf(repost.result.data.reposted).toBeBoolean();
          const hide = await ctx.hide({ hidden: false });
          if (hide.status === "sent") expectTypeOf(hide.result.data.hidden).toBeBoolean();
          const follow = await ctx.follow();
          expectTypeOf(follow).toEqualTypeOf<FollowOutcome>();
          if (follow.status === "sent") expectTypeOf(follow.result.data.following).toBeBoolean();
          const mute = await ctx.mute();
          expectTypeOf(mute).toEqualTypeOf<MuteOutcome>();
          if (mute.status === "sent") expectTypeOf(mute.result.data.muting).toBeBoolean();
          const dm = await ctx.dm("hello");
          expectTypeOf(dm).toEqualTypeOf<DmOutcome>();
          if (dm.status === "sent") expectTypeOf(dm.result.data.dm_event_id).toBeString();
          const published = await ctx.publish("news");
          if (published.status === "sent") expectTypeOf(published.result.data.id).toBeString();
          // A refusal has a reason, a sent outcome none.
          if (reply.status === "refused") expectTypeOf(reply.reason).toBeString();
          expectTypeOf(ctx.budget.remaining("reply")).toBeNumber();
          expectTypeOf(ctx.unbudgetedApi).toEqualTypeOf<ApiClient>();
        });
        bot.on("dm", async (ctx) => {
          // Answering a DM is a DM in its conversation.
          expectTypeOf(ctx.reply("hi")).resolves.toEqualTypeOf<DmOutcome>();
          expectTypeOf(ctx.reply(write)).resolves.toEqualTypeOf<DmOutcome>();
          const answer = await ctx.reply("hi");
          if (answer.status === "sent") expectTypeOf(answer.result.data.dm_event_id).toBeString();
        });
        bot.on("schedule", async (ctx) => {
          const outcome = await ctx.publish("good morning");
          if (outcome.status === "sent") expectTypeOf(outcome.result.data.id).toBeString();
          expectTypeOf(ctx.like({ post: "1" })).resolves.toEqualTypeOf<LikeOutcome>();
        });
      },
    });
  });

  it("makes a target required where the event has none, and optional where it has one", () => {
    definePlugin({
      name: "targets",
      setup(bot) {
        bot.on("mention", async (ctx) => {
          await ctx.like();
          await ctx.like({ post: "1460323737035677698" });
          await ctx.like({ post: ctx.post }); // the post itself, which tells reply safety its author
          await ctx.reply("hi", { post: "1460323737035677698" });
          await ctx.follow({ user: "42" });
          await ctx.dm("hello", { user: ctx.author, key: "hello" });
          // @ts-expect-error a post target is an id or a post, not a number
          await ctx.like({ post: 1460323737035677698 });
          // @ts-expect-error reply takes a text or a function that writes it
          await ctx.reply(42);
        });
        bot.on("schedule", async (ctx) => {
          // @ts-expect-error a schedule has no post: like() needs { post }
          await ctx.like();
          // @ts-expect-error a schedule has no post: repost needs { post }
          await ctx.repost({});
          // @ts-expect-error a schedule has no post: reply needs { post }
          await ctx.reply("hi");
          // @ts-expect-error a schedule has no post: hide needs { post }
          await ctx.hide({ hidden: false });
          // @ts-expect-error a schedule has no user: follow() needs { user }
          await ctx.follow();
          // @ts-expect-error a schedule has no user: dm needs { user }
          await ctx.dm("hello");
          // @ts-expect-error a schedule has no user: mute needs { user }
          await ctx.mute();
          await ctx.like({ post: "1" });
          await ctx.reply("hi", { post: "1" });
          await ctx.hide({ post: "1", hidden: false });
          await ctx.follow({ user: "42" });
          await ctx.dm("hello", { user: "42" });
        });
        bot.on("follow", async (ctx) => {
          await ctx.follow(); // back
          await ctx.dm("thanks for following");
          // @ts-expect-error a follow has no post: like() needs { post }
          await ctx.like();
          // @ts-expect-error a follow has no post: reply needs { post }
          await ctx.reply("hi");
        });
        bot.on("dm", async (ctx) => {
          await ctx.reply("hi"); // answers in the conversation
          await ctx.follow(); // the sender
          // @ts-expect-error answering the sender is ctx.reply; ctx.dm names another user
          await ctx.dm("hello");
          await ctx.dm("hello", { user: "42" });
          // @ts-expect-error a DM has no post: like() needs { post }
          await ctx.like();
        });
      },
    });
  });

  it("has no removed spelling", () => {
    definePlugin({
      name: "removed",
      setup(bot) {
        bot.on("mention", (ctx) => {
          expectTypeOf(ctx).not.toHaveProperty("actions"); // the verbs, with { post } / { user }
          expectTypeOf(ctx).not.toHaveProperty("api"); // ctx.unbudgetedApi
          expectTypeOf(ctx).not.toHaveProperty("store"); // bot.store
          expectTypeOf(ctx).not.toHaveProperty("replyWith"); // ctx.reply(write)
        });
        bot.on("schedule", (ctx) => {
          expectTypeOf(ctx).not.toHaveProperty("post"); // ctx.publish
          expectTypeOf(ctx).not.toHaveProperty("store");
        });
      },
    });
    expectTypeOf<typeof postbot>().not.toHaveProperty("PluginDefinition");
    // @ts-expect-error PluginDefinition is Plugin
    type _Old = postbot.PluginDefinition;
    // @ts-expect-error PublishContext is gone: every context publishes with ctx.publish
    type _Publish = postbot.PublishContext<"schedule">;
    // @ts-expect-error ContextActions is gone: the verbs are on the context
    type _Actions = postbot.ContextActions;
  });

  it("types the session by the plugin's schema, on every event from a user", () => {
    definePlugin({
      name: "visits",
      session: z.object({ visits: z.number().default(0) }),
      setup(bot) {
        bot.on("mention", (ctx) => {
          expectTypeOf(ctx.session.visits).toBeNumber();
        });
        bot.on("dm", (ctx) => {
          expectTypeOf(ctx.session.visits).toBeNumber();
        });
        bot.on("schedule", (ctx) => {
          expectTypeOf(ctx).not.toHaveProperty("session");
        });
      },
    });
  });

  it("types a dialog: turn.session is the plugin's session, start takes a context of an event from a user", () => {
    definePlugin({
      name: "order",
      session: z.object({ size: z.string().optional() }),
      setup(bot) {
        const order = bot.dialog("order", {
          start(turn) {
            expectTypeOf(turn.session.size).toEqualTypeOf<string | undefined>();
            // A dialog's answers live in the session: it has no data of its own.
            expectTypeOf(turn).not.toHaveProperty("data");
            turn.wait("size", { say: "Which size?" });
          },
          steps: {
            size(turn) {
              turn.session.size = turn.text;
              // @ts-expect-error the session's schema says size is a string
              turn.session.size = 42;
            },
          },
          // @ts-expect-error a dialog has no data of its own (its answers are in the session)
          data: () => ({}),
        });
        expectTypeOf(order).toEqualTypeOf<Dialog>();
        bot.on("mention", async (ctx) => {
          expectTypeOf(await order.start(ctx)).toEqualTypeOf<StartResult>();
          expectTypeOf(ctx.session.size).toEqualTypeOf<string | undefined>();
        });
        bot.on("dm", (ctx) => order.start(ctx));
        bot.on("schedule", (ctx) => {
          // @ts-expect-error a schedule comes from no user: no dialog starts there
          void order.start(ctx);
        });
        // @ts-expect-error start takes a handler's context
        void order.start({});
      },
    });
    expectTypeOf<typeof postbot>().not.toHaveProperty("Conversation");
    // @ts-expect-error Conversation is Dialog
    type _Conversation = postbot.Conversation;
    // @ts-expect-error ConversationDefinition is DialogDefinition
    type _Definition = postbot.ConversationDefinition;
  });

  it("has one plugin type: any definePlugin result is a Plugin", () => {
    const typed = definePlugin({ name: "a", options: z.object({ n: z.number() }), setup() {} });
    expectTypeOf(typed).toExtend<Plugin>();
    const plugins: Record<string, Plugin> = { a: typed, b: definePlugin({ name: "b", setup() {} }) };
    expectTypeOf(plugins).toEqualTypeOf<Record<string, Plugin>>();
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
      },
    });
  });
});
