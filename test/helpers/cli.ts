/**
 * Runs `bot ARGS` as a user would: a child process of `bin/bot.js` (or, in the suite, of the
 * compiled postbot the package runs, test/helpers/built.ts, which starts in half the time) with only the environment
 * given (no inherited secrets). Every child is tracked, and {@link killBots} (in each test
 * file's `afterEach`) kills those still running, so a failing test never leaves a `bot start`
 * behind.
 */
import { spawn, type ChildProcessByStdio } from "node:child_process";
import { join } from "node:path";
import type { Readable, Writable } from "node:stream";
import { watchChild, watchOf } from "./child-output.ts";
import { botBin, builtBin, ROOT } from "./built.ts";

export type BotChild = ChildProcessByStdio<Writable, Readable, Readable>;

export interface BotRun {
  code: number;
  stdout: string;
  stderr: string;
}

export interface SpawnOptions {
  env?: Record<string, string | undefined>;
  cwd?: string;
  /** Options for node itself (benches: `--cpu-prof`, which NODE_OPTIONS does not take). */
  nodeArgs?: string[];
  /**
   * Runs the checkout's own `bin/bot.js` (postbot's TypeScript under tsx, as a user's `npx bot`
   * runs it) even when the suite has built postbot, which every other child runs.
   */
  checkout?: boolean;
  /**
   * Runs the compiled postbot (build/) even outside a suite run, which the caller has built
   * (scripts/build.ts's `buildCode`): a bench that measures what users deploy.
   */
  compiled?: boolean;
  /**
   * A program that runs node in its place (`nsenter ... --`): the child runs `wrap..., node,
   * bot.js, ARGS` (test/helpers/small-disk.ts puts it on a small disk of its own this way).
   */
  wrap?: readonly string[];
}

const live = new Set<BotChild>();

/** Starts `bot ARGS` and tracks it until it exits. */
export function spawnBot(args: string[], options: SpawnOptions = {}): BotChild {
  const bin = options.checkout ? join(ROOT, "bin", "bot.js") : options.compiled ? builtBin : botBin();
  const node = [process.execPath, ...(options.nodeArgs ?? []), bin, ...args];
  const [command, ...rest] = [...(options.wrap ?? []), ...node];
  const child = spawn(command!, rest, {
    env: { PATH: process.env.PATH ?? "", ...options.env },
    ...(options.cwd ? { cwd: options.cwd } : {}),
    stdio: ["pipe", "pipe", "pipe"],
  });
  live.add(child);
  child.once("exit", () => live.delete(child));
  watchChild(child, `bot ${args[0] ?? ""}`.trimEnd());
  return child;
}

/** Runs `bot ARGS` to its end (stdin closed at once) and returns what it printed. */
export function runBot(
  args: string[],
  env: Record<string, string> = {},
  options: Omit<SpawnOptions, "env"> = {},
): Promise<BotRun> {
  return new Promise((done, fail) => {
    const child = spawnBot(args, { ...options, env });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", fail);
    child.on("close", (code, signal) => done({ code: code ?? (signal ? -1 : 0), stdout, stderr }));
    child.stdin.end();
  });
}

/** Kills every `bot` child still running (SIGKILL) and waits until they have exited. */
export async function killBots(): Promise<void> {
  const running = [...live];
  await Promise.all(
    running.map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.once("exit", () => resolve());
          child.kill("SIGKILL");
        }),
    ),
  );
}

/**
 * A child's stdout as lines, with a way to wait for a line that matches. The wait rejects
 * when the output ends without such a line: for a child of {@link spawnBot} as soon as it has
 * exited, naming its exit code or signal and the end of what it printed (stderr too); for
 * another stream, when it closes.
 */
export function lineReader(stream: Readable): { lines: string[]; waitFor(pattern: RegExp): Promise<string> } {
  const lines: string[] = [];
  const waiters: Array<{ pattern: RegExp; resolve: (line: string) => void }> = [];
  let buffer = "";
  stream.on("data", (chunk: Buffer) => {
    buffer += chunk.toString();
    for (let nl = buffer.indexOf("\n"); nl >= 0; nl = buffer.indexOf("\n")) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      lines.push(line);
      for (const w of waiters.filter((w) => w.pattern.test(line))) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(line);
      }
    }
  });
  const child = watchOf(stream);
  const closed = child ? undefined : new Promise<void>((resolve) => stream.once("close", () => resolve()));
  return {
    lines,
    waitFor: (pattern) => {
      const found = lines.find((l) => pattern.test(l));
      if (found !== undefined) return Promise.resolve(found);
      const line = new Promise<string>((resolve) => waiters.push({ pattern, resolve }));
      const what = `printing a line matching ${pattern}`;
      if (child) return child.before(what, line);
      return Promise.race([
        line,
        closed!.then(() => {
          throw new Error(`the output closed before ${what}; its last lines:\n${lines.slice(-20).join("\n")}`);
        }),
      ]);
    },
  };
}
