/**
 * A real `redis-server` for tests: Debian's, from PATH (`.ci/run` installs it when missing),
 * on a free loopback port and a unix socket, in a fresh temp directory, with no periodic snapshots and no
 * append-only file.
 *
 * It never outlives the test process: `stop()` in `afterAll`/`finally`, and every server
 * still running is killed when the process exits, whatever made it exit.
 *
 * `stop()` shuts the server down the way an operator's restart does (`SHUTDOWN SAVE`: the data
 * is written to its directory) and `restart()` starts it again on the same port from that
 * data, so "Redis was away for 10 s" loses nothing Redis had. `kill()` is a crash (SIGKILL):
 * what it held is gone unless saved before. `freeze()` (SIGSTOP) makes it hang rather than
 * refuse: connections stay open, the kernel still accepts new ones, nothing answers until
 * `thaw()` (SIGCONT), as `redis-cli DEBUG SLEEP` or a stalled host would.
 *
 * @example
 * ```ts
 * const redis = await startRedisServer();
 * afterAll(() => redis.close());
 * const client = await connectRedis(redis.url);
 * await redis.stop();   // clients now see a refused connection
 * await redis.restart(); // same port, same data
 * ```
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface RedisServer {
  /** `redis://127.0.0.1:PORT/0`. */
  url: string;
  /** The same server through its unix socket (in its temp directory): `unix:///…/redis.sock?db=0`. */
  socketUrl: string;
  port: number;
  /** Whether the server process is running now. */
  running(): boolean;
  /** Shuts it down gracefully (saving its data); the port stays this server's for `restart()`. */
  stop(): Promise<void>;
  /** Kills it with SIGKILL (a crash): unsaved data is lost. */
  kill(): Promise<void>;
  /** Stops the process (SIGSTOP): it hangs, silent, until {@link thaw}. */
  freeze(): void;
  /** Lets a frozen process go on (SIGCONT); what clients sent meanwhile is answered then. */
  thaw(): void;
  /** Starts it again on the same port with the data it last saved (stops it first if running). */
  restart(): Promise<void>;
  /** Stops it for good and removes its directory. */
  close(): Promise<void>;
}

const live = new Set<ChildProcess>();
let exitHookInstalled = false;

/** Kills every server still running when the test process exits (a failed test's too). */
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once("exit", () => {
    // SIGKILL ends a frozen (SIGSTOPped) server too.
    for (const child of live) child.kill("SIGKILL");
  });
}

/** Throws the install instruction when `redis-server` is not on PATH. */
export function requireRedisServer(): void {
  const probe = spawnSync("redis-server", ["--version"], { encoding: "utf8" });
  if (probe.error || probe.status !== 0) {
    throw new Error(
      "redis-server is not on PATH: install it with `apt-get install -y redis-server` (.ci/run does when it is missing)",
    );
  }
}

/** A port nothing listens on right now (the kernel's pick on loopback). */
export async function freePort(): Promise<number> {
  return await new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/**
 * Spawns `redis-server ARGS` and resolves once it is ready to accept connections; rejects (the
 * process killed) when it exits first or is not ready within `timeoutMs`. The process is killed
 * when the test process exits, whatever made it exit.
 */
export async function spawnRedisServer(
  args: readonly string[],
  label: string,
  timeoutMs: number,
): Promise<ChildProcess> {
  installExitHook();
  const proc = spawn("redis-server", args, { stdio: ["ignore", "pipe", "pipe"] });
  live.add(proc);
  proc.once("exit", () => live.delete(proc));
  let output = "";
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => fail(new Error(`${label} was not ready within ${timeoutMs} ms:\n${output}`)),
      timeoutMs,
    );
    const fail = (err: Error) => {
      clearTimeout(timer);
      proc.kill("SIGKILL");
      reject(err);
    };
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (/Ready to accept connections/.test(output)) {
        clearTimeout(timer);
        proc.stdout?.off("data", onData);
        resolve();
      }
    };
    proc.stdout?.on("data", onData);
    proc.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
    proc.once("error", fail);
    proc.once("exit", (code, signal) =>
      fail(new Error(`${label} exited (${signal ?? code}) before it was ready:\n${output}`)),
    );
  });
  // Keep draining its output so a chatty server never blocks on a full pipe.
  proc.stdout?.resume();
  proc.stderr?.resume();
  return proc;
}

/** Resolves once `proc` has exited. */
export const waitExit = (proc: ChildProcess) =>
  new Promise<void>((resolve) =>
    proc.exitCode !== null || proc.signalCode !== null ? resolve() : proc.once("exit", () => resolve()),
  );

/** Starts a redis-server; rejects (and leaves nothing running) if it is not ready within `timeoutMs`. */
export async function startRedisServer(options: { timeoutMs?: number } = {}): Promise<RedisServer> {
  requireRedisServer();
  const timeoutMs = options.timeoutMs ?? 15_000;
  const dir = await mkdtemp(join(tmpdir(), "postbot-redis-"));
  let child: ChildProcess | undefined;
  let port = 0;

  const launch = async (): Promise<void> => {
    const args = [
      "--port",
      String(port),
      "--bind",
      "127.0.0.1",
      "--unixsocket",
      join(dir, "redis.sock"),
      "--unixsocketperm",
      "700",
      "--dir",
      dir,
      "--save",
      "",
      "--appendonly",
      "no",
      "--shutdown-on-sigterm",
      "save",
      "--daemonize",
      "no",
      "--protected-mode",
      "yes",
      "--loglevel",
      "notice",
      "--logfile",
      "",
    ];
    child = await spawnRedisServer(args, `redis-server on port ${port}`, timeoutMs);
  };

  const stop = async (): Promise<void> => {
    const proc = child;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
    // SIGTERM makes it save its data and exit (--shutdown-on-sigterm save), as `SHUTDOWN SAVE` does.
    proc.kill("SIGTERM");
    proc.kill("SIGCONT"); // a frozen server takes its SIGTERM once it runs again
    const killer = setTimeout(() => proc.kill("SIGKILL"), 10_000);
    await waitExit(proc);
    clearTimeout(killer);
  };

  // A free port may be taken between the probe and the bind: try a few.
  for (let attempt = 1; ; attempt++) {
    port = await freePort();
    try {
      await launch();
      break;
    } catch (err) {
      if (attempt >= 5 || !/Address already in use/i.test(String(err))) {
        await rm(dir, { recursive: true, force: true });
        throw err;
      }
    }
  }

  return {
    url: `redis://127.0.0.1:${port}/0`,
    socketUrl: `unix://${join(dir, "redis.sock")}?db=0`,
    port,
    running: () => !!child && child.exitCode === null && child.signalCode === null,
    stop,
    async kill() {
      const proc = child;
      if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
      proc.kill("SIGKILL");
      await waitExit(proc);
    },
    freeze() {
      if (child && child.exitCode === null && child.signalCode === null) child.kill("SIGSTOP");
    },
    thaw() {
      if (child && child.exitCode === null && child.signalCode === null) child.kill("SIGCONT");
    },
    async restart() {
      await stop();
      await launch();
    },
    async close() {
      await stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
