/**
 * A problem in a bot file or a plugin, as `bot validate` prints it and the runtime refuses
 * to start on: where (`file:line:col`) and what, in one line that editors and terminals can
 * jump to.
 */

/** A problem in a bot file, positioned for `file:line:col` output (not the service's problem JSON, which is `Problem` in src/api/types.ts). */
export interface BotFileProblem {
  /** The file, as the user named it (relative to the current directory when possible). */
  file: string;
  /** 1-based; absent when the problem is about the file or directory as a whole. */
  line?: number;
  col?: number;
  /** The key path the problem is about, as messages show it (`triggers.schedule[0].cron`). */
  key?: string;
  /** What is wrong and what to do; never a stack trace. */
  message: string;
}

/**
 * The one-line form: `file:line:col key: message`.
 *
 * @example
 * ```ts
 * formatProblem({ file: "bots/a.yaml", line: 3, col: 7, key: "plan", message: "\"gold\" is not a plan; use one of pro, basic, free" });
 * // bots/a.yaml:3:7 plan: "gold" is not a plan; use one of pro, basic, free
 * ```
 */
export function formatProblem(problem: BotFileProblem): string {
  const where = problem.line === undefined ? problem.file : `${problem.file}:${problem.line}:${problem.col ?? 1}`;
  return `${where} ${problem.key ? `${problem.key}: ` : ""}${problem.message}`;
}

/** Orders problems by file, then position, so output reads top to bottom. */
export function compareProblems(a: BotFileProblem, b: BotFileProblem): number {
  if (a.file !== b.file) return a.file < b.file ? -1 : 1;
  return (a.line ?? 0) - (b.line ?? 0) || (a.col ?? 0) - (b.col ?? 0);
}
