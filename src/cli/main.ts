/**
 * The `bot` command. Each subcommand is a module in ./commands that default-exports a
 * function adding itself to the program; adding a command is adding a file (NAME.ts, or
 * NAME.js in the compiled postbot, scripts/build.ts). Command modules
 * import their implementation lazily inside the action, so `bot --help` stays fast, and
 * `bot --version` imports neither commander nor the commands ({@link versionOnly}).
 */
import { readdirSync, readFileSync } from "node:fs";
import type { Command } from "commander";
import { UserError } from "../errors.ts";
import { packageFile } from "../package-files.ts";

export type RegisterCommand = (program: Command) => void;

/** postbot's version, from its package.json (the one place it is written). */
export function postbotVersion(): string {
  return (JSON.parse(readFileSync(packageFile("package.json"), "utf8")) as { version: string }).version;
}

/**
 * Builds the program with every command of ./commands; given the command line (`argv`, as
 * `process.argv`), with only the command it names when a file of ./commands is that command:
 * `bot validate` does not import the other eleven (20-40 ms of its start-up, measured), and
 * anything else (`bot --help`, `bot help`, a mistyped command that gets a suggestion) gets them all.
 */
export async function buildProgram(argv?: readonly string[]): Promise<Command> {
  const { Command } = await import("commander");
  const program = new Command("bot")
    .description("postbot: bots for the Social Posting Service, and a sandbox of the service")
    .version(postbotVersion(), "-V, --version", "print postbot's version")
    .showHelpAfterError("(run with --help for usage)")
    .exitOverride();
  const dir = new URL("./commands/", import.meta.url);
  const files = readdirSync(dir)
    .filter((f) => /\.[jt]s$/.test(f))
    .sort();
  const named = files.filter((f) => f.replace(/\.[jt]s$/, "") === argv?.[2]);
  for (const file of named.length === 1 ? named : files) {
    const mod = (await import(new URL(file, dir).href)) as { default: RegisterCommand };
    mod.default(program);
  }
  for (const cmd of program.commands) cmd.exitOverride();
  return program;
}

/**
 * Whether the command line is `bot --version` (or `-V`) and nothing else: answered before
 * commander and the twelve command modules are imported, which are most of its start-up
 * (the program built as {@link buildProgram} does prints the same line).
 */
function versionOnly(argv: string[]): boolean {
  const args = argv.slice(2);
  return args.length === 1 && (args[0] === "--version" || args[0] === "-V");
}

/**
 * Runs the CLI: a {@link UserError} prints its message and exits with its code; anything else
 * is a bug and prints its stack only when POSTBOT_DEBUG is set.
 */
export async function main(argv: string[] = process.argv): Promise<void> {
  if (versionOnly(argv)) {
    process.stdout.write(`${postbotVersion()}\n`);
    return;
  }
  try {
    const program = await buildProgram(argv);
    await program.parseAsync(argv);
  } catch (err) {
    const { CommanderError } = await import("commander");
    if (err instanceof CommanderError) {
      // Usage mistakes (unknown option, missing or invalid argument) exit 2, as UserError's do.
      process.exitCode = err.exitCode === 1 ? 2 : err.exitCode;
      return;
    }
    if (err instanceof UserError) {
      process.stderr.write(`bot: ${err.message}\n`);
      process.exitCode = err.exitCode;
      return;
    }
    const e = err as Error;
    process.stderr.write(`bot: unexpected error: ${e?.message ?? String(err)}\n`);
    if (process.env.POSTBOT_DEBUG) process.stderr.write(`${e?.stack}\n`);
    else process.stderr.write("This is a bug in postbot; run with POSTBOT_DEBUG=1 for details and report it.\n");
    process.exitCode = 1;
  }
}
