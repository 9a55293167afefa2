/**
 * What a bot's plugins use to ask a language model: the bot's model budget (from its file's
 * `budget.llm`; absent when the file sets none), the clock every wait and timeout runs on,
 * and where the model's figures go (`/metrics`). Hosting makes one per bot; plugins get it as
 * `bot.models`.
 */
import type { Clock } from "../clock.ts";
import type { ModelBudget } from "./budget.ts";
import type { ModelObserver } from "./writer.ts";

export interface ModelAccess {
  readonly bot: string;
  readonly clock: Clock;
  /** The bot file's `budget.llm`, counted; absent: the model is asked without a budget. */
  readonly budget?: ModelBudget | undefined;
  readonly observe?: ModelObserver | undefined;
}
