/**
 * Where a bot's moderation judge is handed to its language model's replies. The judge is
 * configured once, in the bot file's `moderate` options (`judge:`), and the `moderate` plugin
 * builds it; the model's own text must go through the same judge before it is posted (issue
 * 27: "the classifier, and the judge where one is configured"). Plugins are set up one by one
 * in the bot file's order, so `moderate` offers its judge here at setup and `llm-reply` reads
 * it each time a text is written: whichever plugin the file lists first, every text is judged.
 */
import type { JudgeResult } from "../moderation/judge/judge.ts";

/** What a writer needs of a judge: its name for logs, and its opinion (bounded by its timeout; never throws). */
export interface TextJudge {
  readonly name: string;
  opinion(text: string): Promise<JudgeResult>;
}

/** One bot's slot for its judge; see the module comment. */
export class JudgeSlot {
  private judge: TextJudge | undefined;

  /** The `moderate` plugin's judge, offered at its setup (the last offer wins: a bot has one `moderate`). */
  offer(judge: TextJudge): void {
    this.judge = judge;
  }

  /** The judge offered, if the bot file configures one. */
  get current(): TextJudge | undefined {
    return this.judge;
  }
}
