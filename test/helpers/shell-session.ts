/**
 * Commands run as a reader runs them in a terminal: `sh -c COMMAND` in a directory, each in
 * its own process group, so that stopping one is Ctrl-C (SIGINT to the whole group: `npm`,
 * `npx`, `sh` and `node` alike) and nothing it started is left behind. Every command is
 * tracked; {@link killCommands} (in `afterEach`) kills what still runs, even when a test fails.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { watchChild } from "./child-output.ts";

export interface Command {
  child: ChildProcess;
  /** What it printed so far. */
  stdout(): string;
  stderr(): string;
  /** Resolves with the first stdout line matching `pattern` (rejects when it exits first). */
  waitFor(pattern: RegExp): Promise<string>;
  /** Calls `fn` once, on the first stdout line matching `pattern`. */
  onLine(pattern: RegExp, fn: (line: string) => void): void;
  /** Resolves when the shell has exited and every process of its group is gone: its exit code. */
  done: Promise<number>;
  /** Ctrl-C: SIGINT to the group; resolves like {@link done}. */
  interrupt(): Promise<number>;
}

const running = new Set<Command>();

const groupAlive = (pid: number) => {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Waits until no process of the group `pid` is left (a shell may exit before its children). */
async function groupGone(pid: number): Promise<void> {
  while (groupAlive(pid)) await new Promise((resolve) => setTimeout(resolve, 50));
}

/** Starts `sh -c command` in `cwd` with exactly `env`. */
export function runCommand(command: string, cwd: string, env: Record<string, string>): Command {
  const child = spawn("sh", ["-c", command], { cwd, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  const watched = watchChild(child, `\`${command}\``);
  let out = "";
  let err = "";
  let partial = "";
  const watchers: Array<{ pattern: RegExp; fn: (line: string) => void }> = [];
  child.stdout!.on("data", (d: Buffer) => {
    out += d.toString();
    partial += d.toString();
    for (let nl = partial.indexOf("\n"); nl >= 0; nl = partial.indexOf("\n")) {
      const line = partial.slice(0, nl);
      partial = partial.slice(nl + 1);
      for (const w of [...watchers]) {
        if (!w.pattern.test(line)) continue;
        watchers.splice(watchers.indexOf(w), 1);
        w.fn(line);
      }
    }
  });
  child.stderr!.on("data", (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number>((resolve) =>
    child.once("close", (code, signal) => resolve(code ?? (signal === "SIGINT" ? 130 : -1))),
  );
  const done = exited.then(async (code) => {
    await groupGone(child.pid!);
    return code;
  });
  const command_: Command = {
    child,
    stdout: () => out,
    stderr: () => err,
    waitFor: (pattern) => {
      const found = out.split("\n").find((l) => pattern.test(l));
      if (found !== undefined) return Promise.resolve(found);
      return watched.before(
        `printing a line matching ${pattern}`,
        new Promise<string>((resolve) => watchers.push({ pattern, fn: resolve })),
      );
    },
    onLine: (pattern, fn) => watchers.push({ pattern, fn }),
    done,
    interrupt: () => {
      if (groupAlive(child.pid!)) process.kill(-child.pid!, "SIGINT");
      return done;
    },
  };
  running.add(command_);
  void done.then(() => running.delete(command_));
  return command_;
}

/** Kills (SIGKILL) every command still running, and waits until their groups are gone. */
export async function killCommands(): Promise<void> {
  await Promise.all(
    [...running].map(async (c) => {
      if (groupAlive(c.child.pid!)) process.kill(-c.child.pid!, "SIGKILL");
      await c.done;
    }),
  );
}
