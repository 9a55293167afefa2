/**
 * `bot sandbox` in the foreground: a running clock, a pino logger, the listening line and the
 * admin token on stdout, and a clean stop on SIGINT or SIGTERM that saves the state when a
 * state file is given (so a restart with the same file continues where it stopped).
 */
import { randomBytes } from "node:crypto";
import { UserError } from "../errors.ts";
import { createLogger } from "../log.ts";
import type { Plan } from "../limits/types.ts";
import { createSandbox, type Sandbox } from "./server.ts";

export interface RunOptions {
  port: number;
  host: string;
  plan: Plan;
  adminToken?: string;
  stateFile?: string;
}

/** Starts the sandbox and resolves once it has stopped after a signal. */
export async function runSandbox(o: RunOptions): Promise<void> {
  const logger = createLogger();
  const adminToken = o.adminToken || process.env.POSTBOT_SANDBOX_ADMIN_TOKEN || randomBytes(24).toString("base64url");
  let sandbox: Sandbox;
  try {
    sandbox = await createSandbox({
      port: o.port,
      host: o.host,
      plan: o.plan,
      adminToken,
      stateFile: o.stateFile,
      logger,
    });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "EADDRINUSE")
      throw new UserError(
        `port ${o.port} on ${o.host} is already in use; pick another with --port (0 takes any free port)`,
        { cause: err },
      );
    if (code === "EADDRNOTAVAIL" || code === "ENOTFOUND")
      throw new UserError(`cannot listen on ${o.host}: not an address of this machine; use --host 127.0.0.1`, {
        cause: err,
      });
    if (code === "EACCES")
      throw new UserError(`not allowed to listen on port ${o.port}; use a port above 1023`, { cause: err });
    throw err;
  }
  process.stdout.write(`sandbox listening on ${sandbox.url}\n`);
  process.stdout.write(`admin token: ${adminToken}\n`);
  if (o.stateFile) process.stdout.write(`state file: ${o.stateFile}\n`);
  // What to do next: an app, whose keys the bots (or a client) use with this address.
  process.stdout.write(
    `an app for your bots (its consumer_key and consumer_secret go in POSTBOT_CONSUMER_KEY and POSTBOT_CONSUMER_SECRET, with POSTBOT_BASE_URL=${sandbox.url}):\n` +
      `  curl -s -X POST ${sandbox.url}/_sandbox/apps -H "Authorization: Bearer ${adminToken}" -H "Content-Type: application/json" -d '{"name": "my-app"}'\n`,
  );

  await new Promise<void>((resolve) => {
    let stopping = false;
    const stop = (signal: NodeJS.Signals) => {
      if (stopping) {
        process.stderr.write(`bot: ${signal} again; exiting without waiting\n`);
        process.exit(1);
      }
      stopping = true;
      logger.info({ signal }, "stopping the sandbox");
      sandbox
        .close()
        .then(() => {
          process.stdout.write(o.stateFile ? `sandbox stopped; state saved to ${o.stateFile}\n` : "sandbox stopped\n");
        })
        .catch((err) => {
          logger.error({ err }, "the sandbox did not stop cleanly");
          process.exitCode = 1;
        })
        .finally(() => {
          process.off("SIGINT", stop);
          process.off("SIGTERM", stop);
          resolve();
        });
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  });
}
