/**
 * A running fleet behind a status server (`bot start --http`, in-process): the server first,
 * then `start()` on a bots directory of the given files (a frozen clock unless given one, no
 * watcher: tests hand the fleet its changes), then the runtime and its fleet attached. Plugins
 * from test/fixtures/fleet/plugins. The service is the embedded sandbox, or one given by `env`.
 *
 * {@link startFleetServer} has the admin API on (POSTBOT_ADMIN_TOKEN); ./connect-server.ts
 * mounts the connect pages on {@link startServedFleet}'s server.
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createClock, type AdjustableClock } from "../../src/clock.ts";
import { start, type Started } from "../../src/hosting/start.ts";
import { silentLogger, type Logger } from "../../src/log.ts";
import { adminAccess } from "../../src/observe/admin-api.ts";
import { runtimeSource, startObserveServer, type ObserveServer } from "../../src/observe/index.ts";
import { T0 } from "./sandbox.ts";

export interface FleetServer {
  dir: string;
  started: Started;
  server: ObserveServer;
  /** The status server's address. */
  url: string;
  clock: AdjustableClock;
  close(): Promise<void>;
}

/** A bot file of these tests: pro, mentions, answered by the `echo` fixture plugin with `text`. */
export const echoBotFile = (name: string, text: string) =>
  `name: ${name}\nplan: pro\ntriggers:\n  mentions: {}\nplugins:\n  echo:\n    text: "${text}"\n`;

/** What {@link startServedFleet} starts. */
export interface ServedFleetOptions {
  /** Bot files: file name → its text. */
  files: Record<string, string>;
  /** Other directories of the project (`templates` → file name → text). */
  dirs?: Record<string, Record<string, string>>;
  /** The service and app (POSTBOT_*); default: the embedded sandbox. */
  env?: Record<string, string>;
  /** `redis://...`: the state in Redis, shared with other fleets. */
  state?: string;
  clock?: AdjustableClock;
  logger?: Logger;
  /** The admin API's token and its holder's name (POSTBOT_ADMIN_TOKEN, POSTBOT_ADMIN_TOKEN_NAME). */
  admin?: { token: string; tokenName: string };
}

/** A fleet behind its status server; see the module comment. */
export async function startServedFleet(options: ServedFleetOptions): Promise<FleetServer> {
  const dir = await mkdtemp(join(tmpdir(), "postbot-fleet-server-"));
  for (const [sub, files] of Object.entries({ bots: options.files, ...options.dirs })) {
    await mkdir(join(dir, sub));
    for (const [name, text] of Object.entries(files)) await writeFile(join(dir, sub, name), text);
  }
  const logger = options.logger ?? silentLogger;
  const clock = options.clock ?? createClock({ frozen: true, start: T0 });
  const { admin } = options;
  const server = await startObserveServer({
    host: "127.0.0.1",
    port: 0,
    clock,
    logger,
    ...(admin
      ? { admin: adminAccess({ POSTBOT_ADMIN_TOKEN: admin.token, POSTBOT_ADMIN_TOKEN_NAME: admin.tokenName })! }
      : {}),
  });
  let started: Started;
  try {
    started = await start({
      bots: join(dir, "bots"),
      plugins: resolve("test/fixtures/fleet/plugins"),
      data: join(dir, "data"),
      cwd: dir,
      env: options.env ?? {},
      ...(options.state ? { state: { url: options.state, source: "--state" as const } } : {}),
      clock,
      logger,
      watch: false,
      observer: server.observer,
    });
  } catch (err) {
    await server.close();
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
  server.attach(runtimeSource(started.runtime, clock));
  server.manage(started.fleet);
  return {
    dir,
    started,
    server,
    url: server.url,
    clock,
    async close() {
      await server.close();
      await started.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** A fleet of `files` with the admin API on, for `token` (held by `tokenName`). */
export function startFleetServer(options: {
  files: Record<string, string>;
  token: string;
  tokenName: string;
  logger?: Logger;
}): Promise<FleetServer> {
  const { files, token, tokenName, logger } = options;
  return startServedFleet({ files, admin: { token, tokenName }, ...(logger ? { logger } : {}) });
}
