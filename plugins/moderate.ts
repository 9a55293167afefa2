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
 * The plugin registers a filter, not a handler: filters run before every handler whatever
 * the order of plugins in the bot file, so `reply` listed before `moderate` still never sees
 * a hidden reply. Each decision is logged with the rule that decided it (and, for a phrase
 * rule, its `pattern`: one of the family's patterns, as in `threat:dox/found-your-details`)
 * and the words that matched (the reply is public; the rest of its text stays out of the log).
 *
 * With `events: [mention]` too, abusive mentions are not answered either. Only a reply in a
 * conversation the bot started can be hidden (the service's rule); other abusive mentions
 * are left alone, unanswered.
 */
import { createClassifier, definePlugin, ModerationOptionError, type MentionContext, type ReplyContext } from "postbot";
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

export default definePlugin({
  name: "moderate",
  options: moderateOptions,
  setup(bot, options) {
    const classifier = createClassifier(options);

    const check = async (ctx: ReplyContext | MentionContext): Promise<boolean> => {
      const verdict = classifier.classify(ctx.post.text);
      const offending = options.hide === "flagged" ? verdict.rules.length > 0 : verdict.abusive;
      if (!offending) return true;
      // The rule that decided: the heaviest that fired (the first of those, on a tie).
      const top = verdict.rules.reduce((best, hit) => (hit.weight > best.weight ? hit : best));
      const fields = {
        rule: top.rule,
        pattern: top.pattern, // the one phrase rule of the family that fired; absent for others
        match: top.match,
        score: Number(verdict.score.toFixed(3)),
        rules: verdict.rules.map((r) => r.rule),
        author: ctx.author.username,
      };
      const what = `${ctx.event} ${ctx.post.id} by @${ctx.author.username}: ${top.rule} matched "${top.match}"`;

      if (options.hide === "never") {
        ctx.log.info(fields, `would hide ${what} (hide: never); not answered`);
        return false;
      }
      const isReply = ctx.event === "reply" || (ctx.post.referenced_posts ?? []).some((r) => r.type === "replied_to");
      if (!isReply) {
        ctx.log.info(fields, `not answering ${what}; a post that is not a reply cannot be hidden`);
        return false;
      }
      const outcome = await ctx.hide();
      if (outcome.status === "sent" || outcome.status === "duplicate" || outcome.status === "dry-run") {
        ctx.log.info(fields, `hid ${what}`);
      } else {
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
