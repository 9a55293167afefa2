/**
 * `bot sandbox`: runs the sandbox, the faithful emulator of the Social Posting Service, on
 * loopback until SIGINT or SIGTERM.
 */
import type { Command } from "commander";
import { UserError } from "../../errors.ts";
import { PLANS, type Plan } from "../../limits/types.ts";

interface Flags {
  port: string;
  host: string;
  adminToken?: string;
  plan: string;
  state?: string;
}

const usage = (message: string) => new UserError(message, { exitCode: 2 });

/** Checks the flags; every mistake is named with what to write instead. */
export function parseSandboxFlags(f: Flags) {
  if (!/^\d{1,5}$/.test(f.port) || Number(f.port) > 65535)
    throw usage(`--port ${f.port}: expected a port number from 0 to 65535 (0 takes any free port)`);
  if (!PLANS.includes(f.plan as Plan)) throw usage(`--plan ${f.plan}: expected one of ${PLANS.join(", ")}`);
  if (f.host.trim() === "") throw usage("--host: expected an address such as 127.0.0.1");
  if (f.adminToken !== undefined && !/^\S{8,}$/.test(f.adminToken))
    throw usage("--admin-token: expected at least 8 characters without spaces");
  if (f.state !== undefined && f.state.trim() === "") throw usage("--state: expected a file path");
  return { port: Number(f.port), host: f.host, plan: f.plan as Plan, adminToken: f.adminToken, stateFile: f.state };
}

export default function register(program: Command): void {
  program
    .command("sandbox")
    .description("run the sandbox: a faithful emulator of the Social Posting Service on loopback")
    .option("--port <port>", "port to listen on (0 takes any free port)", "8787")
    .option("--host <host>", "address to listen on", "127.0.0.1")
    .option(
      "--admin-token <token>",
      "token of the admin API (default: $POSTBOT_SANDBOX_ADMIN_TOKEN, else a new random one)",
    )
    .option("--plan <plan>", `plan of apps created without one (${PLANS.join(", ")})`, "pro")
    .option("--state <file>", "load the state from FILE at start, save it there on exit (mode 0600: it holds secrets)")
    .addHelpText(
      "after",
      `
The sandbox serves every endpoint of the spec on plain HTTP; postbot's client allows plain
HTTP only to loopback addresses. The admin API (POST /_sandbox/apps, /users, /tokens, /posts,
/clock, /faults; GET /_sandbox/stats) needs "Authorization: Bearer <admin token>".
Sandbox users sign in on the authorization pages with the password "sandbox" unless one was
given to POST /_sandbox/users.`,
    )
    .action(async (flags: Flags) => {
      const options = parseSandboxFlags(flags);
      const { runSandbox } = await import("../../sandbox/run.ts");
      await runSandbox(options);
    });
}
