/**
 * Accounts that connect themselves through the web (`bot start --http`): {@link serveConnect}
 * puts the connect pages together for a started fleet; ./flow.ts has the flows, ./routes.ts
 * the pages' addresses, ./pages.ts their HTML.
 */
import type { Clock } from "../clock.ts";
import { countOf, formatProblem } from "../config/index.ts";
import { readTemplates } from "../config/template.ts";
import { UserError } from "../errors.ts";
import type { Started } from "../hosting/start.ts";
import type { Logger } from "../log.ts";
import { Connect, type PendingConnect } from "./flow.ts";
import { ConnectPages } from "./routes.ts";

export { Connect, ConnectPages };
export { connectOrigin, templateOf, FLOW_MS, type ConnectFleet, type PendingConnect } from "./flow.ts";

export interface ServeConnectOptions {
  started: Pick<Started, "fleet" | "dynamic" | "store" | "baseUrl" | "web" | "sandbox">;
  /**
   * Where browsers reach the `--http` server (`--public-url`, else its own address): the
   * service sends them back to `<publicUrl>/connect/callback`.
   */
  publicUrl: string;
  /** The templates directory. */
  templatesDir: string;
  cwd?: string;
  clock: Clock;
  logger: Logger;
}

/**
 * The connect pages of a started fleet. Its templates are checked first: a template with
 * problems is reported as `bot validate` reports it and its page says it cannot be used, while
 * the bots and the other templates go on (as a bot file that breaks while `bot start` runs).
 */
/**
 * `--public-url`: where browsers reach the `--http` server, as the service's callback needs it
 * (`https://bots.example.com`, or with a path behind a proxy); no query or fragment.
 *
 * @throws UserError (exit 2) for anything else.
 */
export function parsePublicUrl(value: string): string {
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== "https:" && url.protocol !== "http:") || url.search || url.hash || url.username)
    throw new UserError(
      `--public-url ${JSON.stringify(value)}: give the address browsers reach this server at, such as https://bots.example.com (http or https, no query); the service sends them back to <public-url>/connect/callback`,
      { exitCode: 2 },
    );
  return url.href.replace(/\/+$/, "");
}

export async function serveConnect(options: ServeConnectOptions): Promise<{ pages: ConnectPages; connect: Connect }> {
  const { started, logger } = options;
  const dir = options.templatesDir;
  const cwd = options.cwd ?? process.cwd();
  const connect: Connect = new Connect({
    publicUrl: options.publicUrl,
    baseUrl: started.baseUrl,
    templates: () => readTemplates(dir, cwd),
    check: started.web.check,
    appOf: (config) => started.web.app(config, connect.callbackUrl),
    fleet: started.fleet,
    dynamic: started.dynamic,
    store: started.store,
    flows: started.web.flows<PendingConnect>(),
    clock: options.clock,
    logger,
  });
  const problems = await connect.problems();
  for (const problem of problems) logger.error({ problem: true }, formatProblem(problem));
  if (problems.length > 0)
    logger.error(
      { problems: problems.length },
      `${countOf(problems.length, "problem")} in the templates (${dir}): those templates cannot be used until fixed (bot validate checks them)`,
    );
  const { templates } = readTemplates(dir, cwd);
  if (templates.length > 0)
    logger.info(
      {
        connect: `${options.publicUrl}/connect`,
        templates: templates.map((t) => t.name),
        callback: connect.callbackUrl,
      },
      `accounts connect themselves at ${options.publicUrl}/connect (${templates.map((t) => t.name).join(", ")}); ${started.sandbox ? "the embedded sandbox's apps list" : "the app's settings must list"} the callback URL ${connect.callbackUrl}`,
    );
  return { pages: new ConnectPages(connect, started.dynamic, logger), connect };
}
