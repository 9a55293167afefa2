/**
 * The base of errors that a user can fix: bad flags, a bad bot file, a missing variable.
 * The CLI prints only the message (never a stack trace), so the message must say what is
 * wrong, where, and what to do.
 *
 * @example
 * ```ts
 * throw new UserError("bots/greeter.yaml:3:9 plan: \"gold\" is not a plan; use pro, basic or free");
 * ```
 */
export class UserError extends Error {
  override name = "UserError";
  /** Process exit code the CLI uses for it (1 by default; 2 for command-line usage). */
  readonly exitCode: number;

  constructor(message: string, options: { exitCode?: number; cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.exitCode = options.exitCode ?? 1;
  }
}
