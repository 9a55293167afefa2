/**
 * What a bot's plugins use to ask a language model: the bot's model budget (from its file's
 * `budget.llm`; absent when the file sets none), the clock every wait and timeout runs on,
 * where the model's figures go (`/metrics`), where the sandbox's stand-in is, and the bot's
 * moderation judge, when its file configures one (./judge-slot.ts), and the abuse model the
 * state taught, when it has one. Hosting makes one per bot;
 * plugins get it as `bot.models`.
 */
import type { Clock } from "../clock.ts";
import type { AbuseModel } from "../moderation/model.ts";
import type { ModelBudget } from "./budget.ts";
import type { JudgeSlot } from "./judge-slot.ts";
import type { ModelObserver } from "./writer.ts";

export interface ModelAccess {
  readonly bot: string;
  readonly clock: Clock;
  /** The bot file's `budget.llm`, counted; absent: the model is asked without a budget. */
  readonly budget?: ModelBudget | undefined;
  readonly observe?: ModelObserver | undefined;
  /**
   * The base URL of the service the bot runs against: where `url: sandbox` finds the
   * sandbox's chat-completions stand-in (the demo's embedded sandbox, or a `bot sandbox`),
   * so a bot file works in the demo without naming a port it cannot know. Absent where no
   * runtime hosts the bot.
   */
  readonly serviceUrl?: string | undefined;
  /** Where the `moderate` plugin leaves the bot's judge, which checks the model's text too. */
  readonly judge?: JudgeSlot | undefined;
  /**
   * The abuse model trained in the state on the operator's labels (`bot moderation train`),
   * for the classifiers of the bot's plugins (`createClassifier(options, bot.models?.abuse)`);
   * absent when the state has none: the shipped model.
   */
  readonly abuse?: AbuseModel | undefined;
}
