/**
 * A running fleet with its connect pages (`bot start --http` with templates, in-process): the
 * fleet behind its status server (./fleet-server.ts) on a project of the given bot files and
 * templates, then the connect pages mounted, as the command does. The service is the embedded
 * sandbox (the demo's way), or one given by `env` (POSTBOT_BASE_URL and the app's keys), which
 * several fleets can share. A frozen clock unless given one, no watcher.
 *
 * {@link signInAndApprove} is the person at the browser, without one: the service's page
 * signed in and approved by posting its form, the redirect back to the connect pages read.
 */
import { join } from "node:path";
import type { AdjustableClock } from "../../src/clock.ts";
import { serveConnect } from "../../src/connect/index.ts";
import type { Connect } from "../../src/connect/flow.ts";
import { silentLogger, type Logger } from "../../src/log.ts";
import { approveInBrowser } from "./browser.ts";
import { startServedFleet, type FleetServer } from "./fleet-server.ts";

export interface ConnectServer extends FleetServer {
  connect: Connect;
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
  const { templates, ...rest } = options;
  const fleet = await startServedFleet({
    ...rest,
    files: options.files ?? {
      "keeper.yaml": "name: keeper\nplan: pro\ntriggers:\n  mentions: {}\nplugins:\n  echo:\n    text: keeper\n",
    },
    dirs: { templates },
  });
  const { pages, connect } = await serveConnect({
    started: fleet.started,
    publicUrl: fleet.url,
    templatesDir: join(fleet.dir, "templates"),
    cwd: fleet.dir,
    clock: fleet.clock,
    logger: options.logger ?? silentLogger,
  });
  fleet.server.mount(pages);
  return { ...fleet, connect };
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
