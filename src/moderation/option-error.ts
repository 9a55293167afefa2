/**
 * The error for a bad `moderate` setting. It carries the option and the list index as data,
 * so the `moderate` plugin can report the problem at the option's place in the bot file
 * (`plugins.moderate.allow[2]`) without parsing a message that may be reworded.
 */
import { UserError } from "../errors.ts";

/** The settings of {@link ClassifierOptions} the classifier checks. */
export type ModerationOption = "threshold" | "block" | "allow";

export class ModerationOptionError extends UserError {
  override name = "ModerationOptionError";

  /**
   * @param option the setting that is wrong
   * @param index the entry of a `block` or `allow` list that is wrong, if one is
   * @param problem what is wrong and what to write instead, without the option's name
   *   (the message adds it: "moderation option allow[2] ...")
   */
  constructor(
    readonly option: ModerationOption,
    readonly index: number | undefined,
    readonly problem: string,
  ) {
    super(`moderation option ${option}${index === undefined ? "" : `[${index}]`} ${problem}`);
  }
}
