/**
 * A running fleet behind a status server with the admin API on (`bot start --http` with
 * POSTBOT_ADMIN_TOKEN, in-process): the server first, then `start()` on a bots directory of
 * the given files (the embedded sandbox, a frozen clock, no watcher: tests hand the fleet its
 * changes), then the runtime and its fleet attached. Plugins from test/fixtures/fleet/plugins.
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createClock } from "../../src/clock.ts";
import { start, type Started } from "../../src/hosting/start.ts";
import { silentLogger, type Logger } from "../../src/log.ts";
import { adminAccess } from "../../src/observe/admin-api.ts";
import { runtimeSource, startObserveServer, type ObserveServer } from "../../src/observe/index.ts";
import { T0 } from "./sandbox.ts";

export interface FleetServer {
  dir: string;
  started: Started;
  server: ObserveServer;
  close(): Promise<void>;
}

/** A bot file of these tests: pro, mentions, answered by the `echo` fixture plugin with `text`. */
export const echoBotFile = (name: string, text: string) =>
  `name: ${name}\nplan: pro\ntriggers:\n  mentions: {}\nplugins:\n  echo:\n    text: "${text}"\n`;

export async function startFleetServer(options: {
  /** File name → its text. */
  files: Record<string, string>;
  token: string;
  tokenName: string;
  logger?: Logger;
}): Promise<FleetServer> {
  const dir = await mkdtemp(join(tmpdir(), "postbot-fleet-server-"));
  await mkdir(join(dir, "bots"));
  for (const [name, text] of Object.entries(options.files)) await writeFile(join(dir, "bots", name), text);
  const logger = options.logger ?? silentLogger;
  const clock = createClock({ frozen: true, start: T0 });
  const server = await startObserveServer({
    host: "127.0.0.1",
    port: 0,
    clock,
    logger,
    admin: adminAccess({ POSTBOT_ADMIN_TOKEN: options.token, POSTBOT_ADMIN_TOKEN_NAME: options.tokenName })!,
  });
  let started: Started;
  try {
    started = await start({
      bots: join(dir, "bots"),
      plugins: resolve("test/fixtures/fleet/plugins"),
      data: join(dir, "data"),
      cwd: dir,
      env: {},
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
    async close() {
      await server.close();
      await started.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
