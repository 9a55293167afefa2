/**
 * `llm-reply`: answers with text a language model writes, through any server speaking
 * OpenAI's `POST /v1/chat/completions` (Ollama, llama.cpp's server, vLLM, OpenAI, or the
 * sandbox's stand-in in the demo).
 *
 * ```yaml
 * plugins:
 *   llm-reply:
 *     url: ${LLM_URL:-sandbox}        # the server's base URL; /v1/chat/completions is added
 *     key: ${LLM_KEY:-}               # optional (empty: no key is sent)
 *     model: llama3.2
 *     system: "You are the help desk of a bike shop. Be brief and kind."
 *     on: [mention, dm]               # mention (default), reply, post, dm
 *     context: thread                 # thread (default) | none
 *     max_tokens: 120                 # default 120
 *     parallel: 4                     # requests in flight to the server at once (default 4)
 * budget:
 *   llm: { tokens: 50000, per: 24h, requests: 30, per_minute: true }
 * ```
 *
 * Each answer is a reply (or, for `dm`, an answer in the conversation) whose text is written
 * when the reply goes (`ctx.reply(write)`): never for a reply reply safety refuses (to another
 * bot unless `reply_to_bots`, twice in a conversation within `reply_cooldown`, to a hidden
 * post), once per post or message answered, and recorded with the reply's ledger entry before
 * it is sent, so a retry or a restart posts that text and never asks the model again. The
 * model is asked within the bot's `budget.llm` (waiting for it holds back none of the bot's
 * other actions), failures are tried again with back-off, the text is made to fit the service
 * (280 weighted characters, cut at a sentence or word; no one mentioned but the person
 * answered) and checked by the moderation classifier, and by the bot's moderation judge when
 * its `moderate` options configure one (a judge that fails or times out leaves the
 * classifier's verdict standing); a text either refuses is not posted.
 *
 * The plugins listed after it handle the same event without waiting for the model
 * (`ctx.meanwhile`): a `like` of the post goes out at once. The event still ends with the
 * reply, so it stays in the bot's inbox until the reply is done, and a crash before the text
 * is recorded handles it again (the model asked then).
 *
 * `url: sandbox` is the chat-completions stand-in of the sandbox the bot runs against (the
 * demo's embedded one, or a `bot sandbox` at POSTBOT_BASE_URL): no model, a labelled,
 * deterministic text, so the demo shows the plugin with nothing but Node; the real service
 * has no such path. `${LLM_URL:-sandbox}` keeps the demo working and points the bot at a real
 * server (Ollama, llama.cpp) by one variable.
 *
 * `context: thread` sends the earlier posts of the conversation (up to
 * {@link THREAD_TURNS}, each the post it replies to), or the DM conversation's earlier
 * messages, as messages: the bot's own as `assistant`, everyone else's as `user`. They are
 * read through the bot's budget (`ctx.read`), only when a text is to be written. The person's
 * words only ever go in `user` messages.
 */
import {
  chatMessages,
  createClassifier,
  definePlugin,
  judgeCheck,
  MODEL_PARALLEL,
  replyWriter,
  type DmContext,
  type PostContext,
  type ChatTurn,
  type WriteText,
  warmClassifier,
} from "postbot";
import { z } from "zod";

/** The `url` that means the sandbox's own chat-completions stand-in (see the module comment). */
export const SANDBOX_MODEL = "sandbox";

/** Earlier posts of a thread sent with `context: thread`. */
export const THREAD_TURNS = 6;

const EVENTS = ["mention", "reply", "post", "dm"] as const;

/** The options of `llm-reply`; see the module comment. */
export const llmReplyOptions = z.strictObject({
  url: z
    .string({ error: "expected the model server's base URL, such as http://127.0.0.1:11434" })
    .regex(/^(https?:\/\/[^\s/]+|sandbox$)/i, {
      error: (iss) =>
        `${JSON.stringify(iss.input)} is not an http(s) URL; give the server's base URL, such as http://127.0.0.1:11434 (Ollama) or http://127.0.0.1:8080 (llama.cpp), or ${SANDBOX_MODEL} for the sandbox's stand-in`,
    })
    .meta({
      description: `Base URL of a server speaking POST /v1/chat/completions, or ${SANDBOX_MODEL}: the stand-in of the sandbox the bot runs against (no model)`,
    }),
  key: z
    .string({ error: "expected the API key as text; write ${LLM_KEY} to read it from the environment" })
    .optional()
    .transform((k) => (k ? k : undefined))
    .meta({ description: "API key, sent as Authorization: Bearer KEY; empty or absent: none" }),
  model: z
    .string({ error: "expected the model's name, such as llama3.2" })
    .min(1, { error: "must not be empty; give the model's name, such as llama3.2" }),
  system: z
    .string({ error: "expected the system text, in quotes" })
    .optional()
    .meta({ description: "What the model is told to be (the system message); the person's words never go here" }),
  on: z
    .array(
      z.enum(EVENTS, {
        error: (iss) => `${JSON.stringify(iss.input)} is not an event it answers; use ${EVENTS.join(", ")}`,
      }),
      {
        error: "expected a list of events, such as [mention, dm]",
      },
    )
    .min(1, { error: "must name at least one event, such as [mention]" })
    .default(["mention"])
    .meta({ description: "Which events it answers: mention, reply, post, dm" }),
  context: z.enum(["thread", "none"], { error: "expected thread or none" }).default("thread").meta({
    description:
      "thread: the conversation's earlier posts (or the DM history) go as messages; none: only the post answered",
  }),
  max_tokens: z
    .number({ error: "expected a whole number of tokens, such as 120" })
    .int({ error: "expected a whole number of tokens, such as 120" })
    .min(1, { error: "must be at least 1" })
    .max(4096, { error: "is more than a post can use; 120 is about 280 characters" })
    .default(120)
    .meta({ description: "The most tokens the model may answer with (default 120)" }),
  parallel: z
    .number({ error: `expected a whole number of requests, such as ${MODEL_PARALLEL}` })
    .int({ error: `expected a whole number of requests, such as ${MODEL_PARALLEL}` })
    .min(1, { error: "must be at least 1" })
    .max(256, { error: "is more than a model server works on at once; give the number it serves in parallel" })
    .default(MODEL_PARALLEL)
    .meta({
      description: `The most requests in flight to this model server at once, over all of the process's bots (default ${MODEL_PARALLEL}); each is held until its answer is recorded, so a crash asks again for at most this many`,
    }),
});

export type LlmReplyOptions = z.output<typeof llmReplyOptions>;

export default definePlugin({
  name: "llm-reply",
  options: llmReplyOptions,
  setup(bot, options) {
    const classifier = createClassifier({}, bot.models?.abuse);
    // Its first uses are paid now, a text a turn, not by the first answers it checks.
    void warmClassifier(classifier);
    const models = bot.models ?? { bot: bot.name, clock: bot.clock };
    const url = options.url.toLowerCase() === SANDBOX_MODEL ? models.serviceUrl : options.url;
    if (url === undefined)
      throw new Error(
        `url: ${SANDBOX_MODEL} is the stand-in of the sandbox the bot runs against, and this bot runs against none; give the model server's URL`,
      );
    if (url !== options.url)
      bot.log.info(
        `llm-reply answers with the sandbox's stand-in at ${url} (no model: a made-up text, labelled "(sandbox stand-in, reply N)"); point url at a model server for real answers`,
      );
    const writerOptions = {
      bot: bot.name,
      target: { url, key: options.key, model: options.model },
      maxTokens: options.max_tokens,
      clock: models.clock,
      log: bot.log,
      classifier,
      budget: models.budget,
      observe: models.observe,
      parallel: options.parallel,
    };
    /**
     * A writer with the bot's moderation judge as its check (run by the action layer once the
     * text is recorded), read when an event is handled: `moderate` may be set up after this plugin.
     */
    const judged = (write: WriteText): WriteText => {
      const judge = models.judge?.current;
      return judge ? Object.assign(write, { check: judgeCheck(writerOptions, judge) }) : write;
    };

    /** The earlier posts of the thread, each the one the next replies to, oldest first. */
    async function threadOf(ctx: PostContext<"mention" | "reply" | "post">, signal: AbortSignal): Promise<ChatTurn[]> {
      const turns: ChatTurn[] = [];
      let parent = ctx.post.referenced_posts?.find((r) => r.type === "replied_to")?.id;
      while (parent && turns.length < THREAD_TURNS && !signal.aborted) {
        try {
          const found = await ctx.read("GET /2/posts/:id", {
            params: { id: parent },
            query: { "post.fields": ["author_id", "referenced_posts"] },
          });
          const post = found.data;
          if (!post) break;
          turns.unshift({ byBot: post.author_id === bot.identity.userId, text: post.text });
          parent = post.referenced_posts?.find((r) => r.type === "replied_to")?.id;
        } catch (err) {
          bot.log.debug({ err: String(err) }, "could not read the thread; answering without it");
          break;
        }
      }
      return turns;
    }

    const replyTo = async (ctx: PostContext<"mention" | "reply" | "post">) => {
      const write = judged(async (signal, recorded, expiresAt, stopping) => {
        const history = options.context === "thread" ? await threadOf(ctx, signal) : [];
        const messages = chatMessages({ system: options.system, history, text: ctx.post.text });
        return replyWriter(writerOptions, { messages, answered: ctx.author.username })(
          signal,
          recorded,
          expiresAt,
          stopping,
        );
      });
      const outcome = await ctx.reply(write);
      if ("reason" in outcome)
        ctx.log.info({ status: outcome.status }, `no model reply to post ${ctx.post.id}: ${outcome.reason}`);
    };
    // The plugins after this one do not wait for the model (see the module comment).
    const answerPost = (ctx: PostContext<"mention" | "reply" | "post">) => ctx.meanwhile(replyTo(ctx));

    /** The earlier messages of a DM conversation, oldest first. */
    async function historyOf(ctx: DmContext, signal: AbortSignal): Promise<ChatTurn[]> {
      if (signal.aborted) return [];
      try {
        const page = await ctx.read("GET /2/dm_conversations/:dm_conversation_id/dm_events", {
          params: { dm_conversation_id: ctx.conversation.id },
          query: {
            event_types: ["MessageCreate"],
            "dm_event.fields": ["sender_id", "text", "created_at"],
            max_results: 20,
          },
        });
        return (page.data ?? [])
          .filter(
            (e) =>
              e.id !== ctx.message.id && typeof e.text === "string" && (e.created_at ?? "") <= ctx.message.created_at,
          )
          .slice(0, THREAD_TURNS)
          .reverse()
          .map((e) => ({ byBot: e.sender_id === bot.identity.userId, text: e.text! }));
      } catch (err) {
        bot.log.debug({ err: String(err) }, "could not read the DM history; answering without it");
        return [];
      }
    }

    for (const event of options.on) {
      if (event === "dm") {
        const answerDm = async (ctx: DmContext) => {
          const write = judged(async (signal, recorded, expiresAt, stopping) => {
            const history = options.context === "thread" ? await historyOf(ctx, signal) : [];
            const messages = chatMessages({ system: options.system, history, text: ctx.message.text });
            return replyWriter(writerOptions, { messages, answered: ctx.sender.username })(
              signal,
              recorded,
              expiresAt,
              stopping,
            );
          });
          const outcome = await ctx.reply(write);
          if ("reason" in outcome)
            ctx.log.info({ status: outcome.status }, `no model answer to message ${ctx.message.id}: ${outcome.reason}`);
        };
        bot.on("dm", (ctx) => ctx.meanwhile(answerDm(ctx)));
      } else bot.on(event, answerPost);
    }
  },
});
