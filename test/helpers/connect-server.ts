/**
 * A running fleet with its connect pages (`bot start --http` with templates, in-process): the
 * status server first, then `start()` on a project of the given bot files and templates, then
 * the connect pages mounted, as the command does. The service is the embedded sandbox (the
 * demo's way), or one given by `env` (POSTBOT_BASE_URL and the app's keys), which several
 * fleets can share. A frozen clock, no watcher; plugins from test/fixtures/fleet/plugins.
 *
 * {@link signInAndApprove} is the person at the browser, without one: the service's page
 * signed in and approved by posting its form, the redirect back to the connect pages read.
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createClock, type AdjustableClock } from "../../src/clock.ts";
import { serveConnect } from "../../src/connect/index.ts";
import type { Connect } from "../../src/connect/flow.ts";
import { start, type Started } from "../../src/hosting/start.ts";
import { silentLogger, type Logger } from "../../src/log.ts";
import { runtimeSource, startObserveServer, type ObserveServer } from "../../src/observe/index.ts";
import { approveInBrowser } from "./browser.ts";
import { T0 } from "./sandbox.ts";

export interface ConnectServer {
  dir: string;
  started: Started;
  server: ObserveServer;
  connect: Connect;
  /** The status server's address: the connect pages' public URL. */
  url: string;
  clock: AdjustableClock;
  close(): Promise<void>;
}

/** A template of these tests: pro, mentions, answered by the `echo` fixture plugin. */
export const echoTemplate = (prefix: string, text: string) =>
  `name: "${prefix}-{account.username}"\nplan: pro\ntriggers:\n  mentions: {}\nplugins:\n  echo:\n    text: "${text} for @{account.username}"\n`;

export async function startConnectServer(
  options: {
    /** Bot files (name → text); default one, so the fleet is never empty. */
    files?: Record<string, string>;
    /** Templates (file name → text). */
    templates: Record<string, string>;
    /** The service and app (POSTBOT_*); default: the embedded sandbox. */
    env?: Record<string, string>;
    /** `redis://...`: the state in Redis, shared with other fleets. */
    state?: string;
    clock?: AdjustableClock;
    logger?: Logger;
  } = { templates: {} },
): Promise<ConnectServer> {
  const dir = await mkdtemp(join(tmpdir(), "postbot-connect-"));
  await mkdir(join(dir, "bots"));
  await mkdir(join(dir, "templates"));
  const files = options.files ?? {
    "keeper.yaml": "name: keeper\nplan: pro\ntriggers:\n  mentions: {}\nplugins:\n  echo:\n    text: keeper\n",
  };
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, "bots", name), text);
  for (const [name, text] of Object.entries(options.templates)) await writeFile(join(dir, "templates", name), text);
  const logger = options.logger ?? silentLogger;
  const clock = options.clock ?? createClock({ frozen: true, start: T0 });
  const server = await startObserveServer({ host: "127.0.0.1", port: 0, clock, logger });
  let started: Started;
  try {
    started = await start({
      bots: join(dir, "bots"),
      plugins: resolve("test/fixtures/fleet/plugins"),
      data: join(dir, "data"),
      cwd: dir,
      env: options.env ?? {},
      ...(options.state ? { state: { url: options.state, source: "--state" } } : {}),
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
  const { pages, connect } = await serveConnect({
    started,
    publicUrl: server.url,
    templatesDir: join(dir, "templates"),
    cwd: dir,
    clock,
    logger,
  });
  server.mount(pages);
  return {
    dir,
    started,
    server,
    connect,
    url: server.url,
    clock,
    async close() {
      await server.close();
      await started.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Follows a connect page's redirect to the service's page, signs in as `username` and
 * approves (or cancels): answers the address the service sends the browser back to.
 */
export async function signInAndApprove(
  connectPage: string,
  username: string,
  decision: "allow" | "deny" = "allow",
): Promise<string> {
  const off = await fetch(connectPage, { redirect: "manual" });
  if (off.status !== 302) throw new Error(`${connectPage} answered ${off.status}: ${await off.text()}`);
  const servicePage = off.headers.get("location")!;
  if (decision === "allow") {
    const back = await approveInBrowser(servicePage, username);
    if (back.status !== 302) throw new Error(`the service's page answered ${back.status}: ${await back.text()}`);
    return back.headers.get("location")!;
  }
  const { readForm } = await import("./html.ts");
  const page = await fetch(servicePage);
  const form = readForm(await page.text());
  const back = await fetch(new URL(form.action, servicePage), {
    method: form.method,
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ ...form.fields, decision: "deny" }),
    redirect: "manual",
  });
  return back.headers.get("location")!;
}
