/**
 * `moderate`: hides abusive replies to the bot's posts, so the bot's other plugins never
 * answer them and its threads stay readable.
 *
 * ```yaml
 * plugins:
 *   moderate:
 *     hide: abusive                # abusive (default) | flagged | never
 *     threshold: 0.5               # from 0 (exclusive) to 1; default 0.5
 *     block: ["crypto giveaway"]   # always abusive here (leetspeak and spacing included)
 *     allow: ["Cockburn Street"]   # never counts (a word, a phrase, a rule such as profanity:damn or model:abuse, or one pattern such as threat:dox/found-your-details)
 *     events: [reply]              # reply (default) and/or mention
 *     also: mute                   # where the bot cannot hide (a conversation it did not start), mute the author
 *     judge:                       # a second opinion for the replies the built-in is unsure of
 *       kind: chat                 # chat (a Llama Guard style safety model) | openai-moderation
 *       url: http://127.0.0.1:11434
 *       model: llama-guard3:8b
 *       key: ${JUDGE_KEY}          # when the server wants one
 *       when: unsure               # unsure (default) | always
 *       timeout: 3s
 * ```
 *
 * Each reply goes through postbot's offline abuse classifier (`createClassifier`): a
 * profanity matcher that sees through obfuscation ("f u c k", "1d10t") without flagging
 * "Scunthorpe" or "cocktail", phrase rules for threats, insults and harassment that use no
 * swear word ("nobody would miss you"), a trained model for the abuse no rule lists (rule
 * `model:abuse`; `allow: ["model:abuse"]` turns it off), and the bot's `block` and `allow` lists.
 *
 * `hide` says what to do with what it finds:
 * - `abusive`: hide replies whose score reaches `threshold` (threats, slurs, insults and
 *   harassment; swearing for emphasis, "this is fucking awesome", stays visible);
 * - `flagged`: hide replies on which any rule fires, swearing for emphasis included;
 * - `never`: hide nothing, only log what would have been hidden, to tune `threshold`,
 *   `block` and `allow` before hiding for real.
 * Whatever `hide` says, a reply found abusive is never answered by the bot's other plugins.
 *
 * Around the classifier (docs/moderation.md says it all, with the figures):
 * - **A judge** (`judge`), when configured, is asked about the replies in the classifier's
 *   unsure band (or about all with `when: always`) and decides those; when it fails or is
 *   slow, the classifier's verdict stands. The replies it is asked about leave the machine.
 * - **The author and the thread**: an author whose reply the bot hid in the last 30 days,
 *   or a reply in a pile-on, needs less evidence; an author the bot follows back needs more.
 * - **A person's review**: the unsure and hidden replies are listed in the bot's review
 *   queue (`bot.review`), which `bot review` and the status page's `/review` show; a decision
 *   made there is followed by later near-identical replies and by the author's later unsure
 *   ones.
 * - **Hides the service allows**: only a reply in a conversation the bot started can be
 *   hidden; elsewhere the plugin sends nothing, leaves the reply unanswered, says why, and
 *   with `also: mute` mutes its author.
 *
 * The plugin registers a filter, not a handler: filters run before every handler whatever
 * the order of plugins in the bot file, so `reply` listed before `moderate` still never sees
 * a hidden reply. Each decision is one log line with what decided it (a rule and, for a
 * phrase rule, its `pattern`: `threat:dox/found-your-details`; the judge and its
 * categories; or a person's decision), the words that matched and every reason (the reply is
 * public; the rest of its text stays out of the log).
 */
import {
  createClassifier,
  definePlugin,
  DURATION_HINT,
  moderation,
  ModerationOptionError,
  parseDuration,
  ReadError,
  type MentionContext,
  type ReplyContext,
  type ReplyState,
  warmClassifier,
} from "postbot";
import { z } from "zod";

const terms = (list: "block" | "allow", does: string) =>
  z
    .array(
      z
        .string()
        .trim()
        .min(1, { error: `must be a word or phrase; remove the empty entry from ${list}` }),
      {
        error: `expected a list of words or phrases (- item lines)`,
      },
    )
    .default([])
    .meta({ description: does });

const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]", "::1"]);

/** The `judge` option: the server to ask, and how. */
const judgeOptions = z
  .strictObject({
    kind: z.enum(["chat", "openai-moderation"], {
      error:
        "expected chat (a Llama Guard style safety model on /v1/chat/completions) or openai-moderation (/v1/moderations)",
    }),
    url: z
      .string({ error: "expected the server's base URL, such as http://127.0.0.1:11434 or https://api.openai.com" })
      .refine(
        (u) => {
          try {
            return ["http:", "https:"].includes(new URL(u).protocol);
          } catch {
            return false;
          }
        },
        {
          error: (iss) =>
            `${JSON.stringify(iss.input)} is not an http(s) URL; write one such as https://api.openai.com`,
        },
      )
      .meta({ description: "The judge server's base URL (/v1/moderations or /v1/chat/completions is added)" }),
    key: z
      .string({ error: "expected the API key, written as ${VAR} so it stays out of the bot file" })
      .min(1, { error: "is empty: is the variable set? (write key: ${VAR})" })
      .optional()
      .meta({ description: "The API key, sent as Authorization: Bearer (write ${VAR})" }),
    model: z
      .string()
      .min(1)
      .optional()
      .meta({ description: "The model: a safety model for chat (llama-guard3:8b), omni-moderation-latest for OpenAI" }),
    when: z.enum(["unsure", "always"]).default("unsure").meta({
      description: "unsure: ask about the replies in the built-in's unsure band (default); always: every reply",
    }),
    timeout: z
      .string()
      .default("3s")
      .transform((text, ctx) => {
        const ms = parseDuration(text);
        if (ms === undefined || ms === 0) {
          ctx.addIssue({ code: "custom", message: `${JSON.stringify(text)} is not a duration; ${DURATION_HINT}` });
          return z.NEVER;
        }
        return ms;
      })
      .meta({
        description: "How long a reply waits for the judge, all included (default 3s); then the built-in decides",
      }),
    concurrency: z
      .number()
      .int()
      .min(1)
      .max(64)
      .default(4)
      .meta({ description: "Requests to the judge in flight at once, shared by the bots using it (default 4)" }),
    per_minute: z
      .number()
      .int()
      .min(1)
      .default(60)
      .meta({ description: "Requests to the judge a minute, shared by the bots using it (default 60)" }),
    prompt: z.enum(["llama-guard", "none"]).default("llama-guard").meta({
      description:
        "chat only: llama-guard sends the Llama Guard 3 prompt (default); none sends the reply alone, for servers whose chat template writes that prompt",
    }),
  })
  .superRefine((judge, ctx) => {
    if (judge.kind === "chat" && !judge.model)
      ctx.addIssue({
        code: "custom",
        path: ["model"],
        message:
          "a chat judge needs the safety model to ask (model: llama-guard3:8b, or the name your server gives it)",
      });
    const url = new URL(judge.url);
    if (judge.key && url.protocol === "http:" && !LOOPBACK.has(url.hostname))
      ctx.addIssue({
        code: "custom",
        path: ["url"],
        message: `would send the key in clear to ${url.host}; use https, or a judge on this machine (127.0.0.1)`,
      });
  })
  .meta({ description: "A second opinion for the replies the built-in is unsure of; those replies leave the machine" });

/**
 * The options of `moderate` (exported so a bot's own tests, or a plugin built on this one, can
 * reuse them). Whatever the classifier would refuse is refused here, at the option's place in
 * the bot file.
 */
export const moderateOptions = z
  .strictObject({
    hide: z.enum(["abusive", "flagged", "never"]).default("abusive").meta({
      description:
        "abusive: hide replies scoring at least threshold (default); flagged: hide any reply a rule fires on; never: only log what would be hidden",
    }),
    threshold: z
      .number({ error: "expected a number above 0 and at most 1, such as 0.5" })
      .gt(0, {
        error: (iss) =>
          `${String(iss.input)} is too low: use a number above 0 (0 would hide every reply); 0.5, the default, hides threats, slurs, insults and harassment`,
      })
      .max(1, {
        error: (iss) =>
          `${String(iss.input)} is too high: use at most 1; 0.5, the default, hides threats, slurs, insults and harassment`,
      })
      .optional()
      .meta({ description: "Score from which a reply is abusive, in (0, 1]; default 0.5" }),
    block: terms(
      "block",
      "Words or phrases that make a reply abusive in this bot's threads, de-obfuscated like the built-in rules",
    ),
    allow: terms(
      "allow",
      "Words, phrases, rules (profanity:damn; model:abuse turns the trained model off) or one pattern of a rule (threat:dox/found-your-details) that never count",
    ),
    events: z
      .array(z.enum(["reply", "mention"]))
      .min(1, { error: "needs at least one event: reply or mention" })
      .default(["reply"])
      .meta({ description: "What to watch: reply (replies to the bot's posts, default) and/or mention" }),
    also: z.enum(["mute"], { error: "expected mute (or leave it out)" }).optional().meta({
      description:
        "mute: where the bot cannot hide an abusive reply (a conversation it did not start), mute its author instead",
    }),
    judge: judgeOptions.optional(),
  })
  .superRefine(
    (options, ctx) => {
      // The classifier has the last word on its own settings: whatever it refuses is reported
      // here, at the option's place in the bot file, rather than when the bot starts.
      // It also refuses what the schema cannot see, such as an allow entry naming a kind of
      // rule that does not exist ("treat:kys").
      try {
        createClassifier(options);
      } catch (error) {
        if (!(error instanceof ModerationOptionError)) throw error;
        const path = error.index === undefined ? [error.option] : [error.option, error.index];
        ctx.addIssue({ code: "custom", path, input: options, message: error.problem });
      }
    },
    // Only options that passed the checks above reach the classifier: one problem, one message.
    { when: (payload) => payload.issues.length === 0 },
  );

type Ctx = ReplyContext | MentionContext;

/** `make()`, or the same lookup already under way for `key`. */
function once<T>(under: Map<string, Promise<never>>, key: string, make: () => Promise<T>): Promise<T> {
  const running = under.get(key) as Promise<T> | undefined;
  if (running) return running;
  const started = make().finally(() => under.delete(key));
  under.set(key, started as Promise<never>);
  return started;
}

/** How long a reply's budgeted lookups (the conversation's starter, a mutual follow) may wait for budget. */
const LOOKUP_TTL_MS = 10_000;
/** Conversations whose starter is remembered per bot. */
const CONVERSATIONS = 5_000;

export default definePlugin({
  name: "moderate",
  options: moderateOptions,
  setup(bot, options) {
    const m = moderation;
    const classifier = createClassifier(options, bot.models?.abuse);
    // Its first uses are paid now, a text a turn, not by the first replies it checks.
    void warmClassifier(classifier);
    const threshold = options.threshold ?? m.DEFAULT_THRESHOLD;
    const { clock } = bot;
    const history = new m.AuthorHistory(bot.store);
    const pileOns = new m.PileOns();
    const examples = new m.ReviewExamples(bot.review);
    const judged = new m.JudgedReplies(bot.store);
    const starters = new m.RingRecord<string>(bot.store, "moderate:starter", CONVERSATIONS);
    const judge = options.judge
      ? m.sharedJudge(
          {
            kind: options.judge.kind,
            url: options.judge.url,
            ...(options.judge.key ? { key: options.judge.key } : {}),
            ...(options.judge.model ? { model: options.judge.model } : {}),
            prompt: options.judge.prompt,
            timeoutMs: options.judge.timeout,
            concurrency: options.judge.concurrency,
            perMinute: options.judge.per_minute,
          },
          clock,
          bot.log,
        )
      : undefined;
    // The model's replies (`llm-reply`) go through the same judge.
    if (judge) bot.models?.judge?.offer(judge);
    if (judge)
      bot.log.info(
        { judge: judge.name, when: options.judge!.when },
        `moderation judge ${judge.name}: the replies it is asked about (${options.judge!.when === "always" ? "every reply" : "those the built-in is unsure of"}) are sent to it`,
      );

    /** Lookups under way, by what they look up: replies arriving together wait for one request. */
    const lookingUp = new Map<string, Promise<never>>();

    /** The judge's opinion of this reply: as recorded (a restart asks no more), or asked now. */
    const opinion = async (ctx: Ctx): Promise<moderation.JudgeResult> => {
      const recorded = judged.get(ctx.post.id);
      if (recorded) return { ok: true, opinion: recorded.opinion, cached: true };
      const result = await judge!.opinion(ctx.post.text);
      if (result.ok) judged.set(ctx.post.id, { judge: judge!.name, opinion: result.opinion, at: clock.now() });
      return result;
    };

    /**
     * Whether the author and the bot follow each other: from a lookup of the author with
     * `connection_status` (one budgeted `GET /2/users/:id`, remembered a day per author);
     * undefined when it cannot be known now.
     */
    const mutual = (ctx: Ctx): Promise<boolean | undefined> => {
      const known = history.mutual(ctx.author.id, clock.now());
      if (known !== undefined) return Promise.resolve(known);
      return once(lookingUp, `author:${ctx.author.id}`, () => lookUpMutual(ctx));
    };
    const lookUpMutual = async (ctx: Ctx): Promise<boolean | undefined> => {
      const now = clock.now();
      try {
        const { data } = await ctx.read(
          "GET /2/users/:id",
          { params: { id: ctx.author.id }, query: { "user.fields": ["connection_status"] } },
          { ttlMs: LOOKUP_TTL_MS },
        );
        const status = data?.connection_status ?? [];
        const value = status.includes("following") && status.includes("followed_by");
        history.setMutual(ctx.author.id, value, now);
        return value;
      } catch (err) {
        if (!(err instanceof ReadError)) throw err;
        ctx.log.debug({ reason: err.message }, `could not tell whether @${ctx.author.username} follows the bot back`);
        return undefined;
      }
    };

    /**
     * Who started the reply's conversation: the bot (a reply to its own root post, or a
     * starter remembered), another account, or unknown (a lookup that could not be made).
     * One budgeted `GET /2/posts/:id` per conversation not known yet, remembered.
     */
    const starter = (ctx: Ctx): Promise<"bot" | "other" | "unknown"> => {
      const conversation = ctx.post.conversation_id;
      if (ctx.event === "reply" && conversation === ctx.inReplyTo) return Promise.resolve("bot");
      const remembered = starters.get(conversation);
      if (remembered !== undefined) return Promise.resolve(remembered === bot.identity.userId ? "bot" : "other");
      return once(lookingUp, `conversation:${conversation}`, () => lookUpStarter(ctx, conversation));
    };
    const lookUpStarter = async (ctx: Ctx, conversation: string): Promise<"bot" | "other" | "unknown"> => {
      try {
        const { data } = await ctx.read(
          "GET /2/posts/:id",
          { params: { id: conversation }, query: { "post.fields": ["author_id"] } },
          { ttlMs: LOOKUP_TTL_MS },
        );
        if (!data?.author_id) return "unknown";
        starters.set(conversation, data.author_id);
        return data.author_id === bot.identity.userId ? "bot" : "other";
      } catch (err) {
        if (!(err instanceof ReadError)) throw err;
        return "unknown";
      }
    };

    const check = async (ctx: Ctx): Promise<boolean> => {
      const now = clock.now();
      const text = ctx.post.text;
      const assessment = classifier.assess(text);
      const signature = m.signatureOf(text);
      const parent =
        ctx.event === "reply" ? ctx.inReplyTo : ctx.post.referenced_posts?.find((r) => r.type === "replied_to")?.id;
      const facts: moderation.Facts = {};
      const pileOn = parent ? pileOns.observe(parent, ctx.author.id, signature, now) : undefined;
      if (pileOn) facts.pileOn = pileOn;
      const hidBefore = history.of(ctx.author.id, now);
      if (hidBefore) facts.history = hidBefore;
      const example = examples.exampleFor(signature, ctx.author.id, now);

      const asksJudge =
        judge !== undefined &&
        example?.by !== "text" &&
        (options.judge!.when === "always" || assessment.unsure) &&
        !(options.hide === "flagged" && assessment.verdict.rules.length > 0);
      const input: moderation.DecisionInput = {
        assessment,
        hide: options.hide,
        threshold,
        facts,
        ...(example ? { example } : {}),
        ...(asksJudge ? { judge: { name: judge!.name, result: await ctx.waitFor(opinion(ctx)) } } : {}),
      };
      let decision = m.decide(input);
      // A mutual follow is looked up (a budgeted read) only when it could spare the reply.
      if (
        decision.abusive &&
        decision.source === "built-in" &&
        options.hide !== "flagged" &&
        m.mutualMatters(assessment.verdict.score, threshold, facts) &&
        (await mutual(ctx)) === true
      )
        decision = m.decide({ ...input, facts: { ...facts, mutual: true } });

      const listed = (state: ReplyState) =>
        bot.review.add({
          post: ctx.post.id,
          author: { id: ctx.author.id, username: ctx.author.username },
          text,
          ...(parent ? { inReplyTo: parent } : {}),
          conversation: ctx.post.conversation_id,
          at: now,
          state,
          listed: state === "hidden" ? "hidden" : "unsure",
          source: decision.source,
          ...(decision.categories?.length ? { rule: `judge:${decision.categories.join(",")}` } : {}),
          ...(decision.top && !decision.categories?.length
            ? {
                rule: decision.top.rule,
                ...(decision.top.pattern ? { pattern: decision.top.pattern } : {}),
                match: decision.top.match,
              }
            : {}),
          score: assessment.verdict.score,
          evidence: assessment.evidence,
          reasons: decision.reasons,
        });
      const count = (verdict: string) =>
        m.moderationTallies.verdicts.inc({ bot: bot.name, verdict, source: decision.source });

      if (!decision.abusive) {
        if (assessment.unsure) {
          listed("visible");
          ctx.log.debug(
            { score: assessment.verdict.score, evidence: assessment.evidence, reasons: decision.reasons },
            `kept ${ctx.event} ${ctx.post.id} by @${ctx.author.username}: ${decision.reasons.join("; ")}`,
          );
        }
        count("kept");
        return true;
      }

      // What decided, for the log line: the judge and its categories, a person, or a rule.
      const top = decision.top;
      const why =
        decision.source === "judge"
          ? `judge ${judge!.name} found ${decision.categories!.map(m.describeCategory).join(", ")}`
          : decision.source === "review"
            ? decision.reasons.at(-1)!
            : top
              ? `${top.rule} matched "${top.match}"`
              : `score ${assessment.verdict.score}`;
      const reasons = decision.reasons.filter((r) => r !== why);
      const what = `${ctx.event} ${ctx.post.id} by @${ctx.author.username}: ${why}${reasons.length ? ` (${reasons.join("; ")})` : ""}`;
      const fields = {
        source: decision.source,
        ...(top ? { rule: top.rule, pattern: top.pattern, match: top.match } : {}),
        ...(decision.source === "judge" ? { judge: judge!.name, categories: decision.categories } : {}),
        score: assessment.verdict.score,
        cut: decision.cut,
        rules: assessment.verdict.rules.map((r) => r.rule),
        reasons: decision.reasons,
        author: ctx.author.username,
      };

      if (options.hide === "never") {
        listed("visible");
        count("would-hide");
        ctx.log.info(fields, `would hide ${what} (hide: never); not answered`);
        return false;
      }
      const isReply = ctx.event === "reply" || (ctx.post.referenced_posts ?? []).some((r) => r.type === "replied_to");
      if (!isReply) {
        count("not-hidden");
        ctx.log.info(fields, `not answering ${what}; a post that is not a reply cannot be hidden`);
        return false;
      }
      const started = await starter(ctx);
      if (started === "other") {
        listed("visible");
        count("not-hidden");
        const muted = options.also === "mute" ? await ctx.mute() : undefined;
        const after =
          muted === undefined
            ? ""
            : muted.status === "sent" || muted.status === "duplicate" || muted.status === "dry-run"
              ? `; muted @${ctx.author.username} instead`
              : `; could not mute @${ctx.author.username} either (${muted.reason})`;
        ctx.log.info(
          { ...fields, ...(muted ? { mute: muted.status } : {}) },
          `not hiding ${what}: the conversation was started by another account, and only replies in a conversation the bot started can be hidden; not answered${after}`,
        );
        return false;
      }
      const outcome = await ctx.hide();
      if (outcome.status === "sent" || outcome.status === "duplicate" || outcome.status === "dry-run") {
        history.hid(ctx.author.id, now);
        listed("hidden");
        count("hidden");
        ctx.log.info(fields, `hid ${what}`);
      } else {
        // The service's answer is the last word on who started the conversation.
        if (outcome.status === "failed" && /conversation that you started/i.test(outcome.reason))
          starters.set(ctx.post.conversation_id, "");
        listed("visible");
        count("not-hidden");
        ctx.log.warn(
          { ...fields, status: outcome.status, reason: outcome.reason },
          `could not hide ${what} (${outcome.reason}); not answered either`,
        );
      }
      return false;
    };

    for (const event of new Set(options.events)) bot.filter(event, check);
  },
});
