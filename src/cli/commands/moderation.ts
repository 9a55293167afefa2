/**
 * `bot moderation`: teaching the abuse model what this community hides. `teach FILE` keeps
 * an operator's labelled replies in the state (as each `bot review` decision is kept),
 * `train` trains the model on the shipped replies and those labels and keeps it in the state
 * (`bot start` uses it from its next start; `--reset` goes back to the shipped one), and
 * `score FILE` measures the state's model against a labelled file.
 */
import type { Command } from "commander";

type StateOptions = { data: string; state?: string };

/** `--data DIR` and `--state URL`, as `bot review` takes them. */
function stateOptions(command: Command): Command {
  return command
    .option("--data <dir>", "directory of the state store", ".postbot")
    .option(
      "--state <url>",
      "the state in Redis (redis://HOST:PORT/DB), as `bot start --state` keeps it (default: POSTBOT_STATE, else the --data directory)",
    );
}

export default function register(program: Command): void {
  const moderation = program
    .command("moderation")
    .description("teach the abuse model your community's decisions: teach FILE, train, score FILE");
  stateOptions(
    moderation
      .command("teach")
      .description(
        "keep labelled replies in the state: a TSV file with a header line label<TAB>text (label abusive or fine; other columns ignored), or JSONL with label and text",
      )
      .argument("<file>", "the labelled replies"),
  ).action(async (file: string, options: StateOptions) => {
    const { teach } = await import("../moderation-teaching.ts");
    await teach(file, options);
  });
  stateOptions(
    moderation
      .command("train")
      .description(
        "train the abuse model on the shipped replies and the state's labels, and keep it in the state (bot start uses it from its next start)",
      )
      .option("--reset", "remove the trained model from the state: bot start goes back to the shipped one"),
  ).action(async (options: StateOptions & { reset?: boolean }) => {
    const { train } = await import("../moderation-teaching.ts");
    await train(options);
  });
  stateOptions(
    moderation
      .command("score")
      .description(
        "precision and recall of the state's model (the trained one, else the shipped one) on a labelled file, in the format of teach",
      )
      .argument("<file>", "the labelled replies to measure against")
      .option("--misses", "list the replies it got wrong"),
  ).action(async (file: string, options: StateOptions & { misses?: boolean }) => {
    const { score } = await import("../moderation-teaching.ts");
    await score(file, options);
  });
}
