/**
 * `bot auth` as a user runs it: a child process of `bin/bot.js` against a sandbox in this
 * process (with a running clock, as the child signs with real time), the PIN typed on its
 * stdin, the tokens in `--data DIR/state/credentials.json` with mode 0600, and no secret on the terminal.
 */
import { mkdtemp, readdir, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createClock } from "../../../src/clock.ts";
import type { AppView } from "../../../src/sandbox/index.ts";
import { approveInBrowser, pinOn } from "../../helpers/browser.ts";
import { killBots, spawnBot } from "../../helpers/cli.ts";
import { createUser, startSandbox, type TestSandbox } from "../../helpers/sandbox.ts";

let t: TestSandbox;
let app: AppView;
let dir: string;

beforeAll(async () => {
  t = await startSandbox({ clock: createClock() });
  app = await t.admin.createApp({ name: "Cli" });
  await createUser(t.sandbox, "greeter");
  dir = await mkdtemp(join(tmpdir(), "postbot-auth-"));
});
afterEach(killBots);
afterAll(async () => {
  await t.close();
  await rm(dir, { recursive: true, force: true });
});

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `bot ...args`; `onOutput` sees stdout as it grows and may write to stdin. */
function bot(
  args: string[],
  onOutput?: (stdout: string, stdin: NodeJS.WritableStream) => void,
  env: Record<string, string> = {},
): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawnBot(args, {
      cwd: dir,
      env: {
        HOME: dir,
        POSTBOT_BASE_URL: t.url,
        POSTBOT_CONSUMER_KEY: app.consumer_key,
        POSTBOT_CONSUMER_SECRET: app.consumer_secret,
        ...env,
      },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => {
      stdout += d.toString();
      onOutput?.(stdout, child.stdin);
    });
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    if (!onOutput) child.stdin.end();
  });
}

const pinFor = async (url: string): Promise<string> => pinOn(await (await approveInBrowser(url, "greeter")).text());

describe("bot auth (child process)", () => {
  it("login with a PIN on stdin, list, logout", async () => {
    let answered = false;
    const login = await bot(["auth", "login", "--data", "state", "--account", "greeter-bot"], (out, stdin) => {
      const url = /(http:\/\/\S+\/oauth\/authorize\?\S+)/.exec(out)?.[1];
      if (url && out.includes("PIN") && !answered) {
        answered = true;
        void pinFor(url).then((pin) => stdin.end(`${pin}\n`));
      }
    });
    expect(login.stderr).toBe("");
    expect(login.code).toBe(0);
    expect(login.stdout).toMatch(/Signed in: account greeter-bot is @greeter/);

    const file = join(dir, "state", "state", "credentials.json"); // --data state: the tokens' file in its state directory
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const state = await readFile(file, "utf8");
    const token = /"token":"([^"]+)"/.exec(state)![1]!;
    expect(login.stdout).not.toContain(token);

    const listed = await bot(["auth", "list", "--data", "state"]);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/greeter-bot\s+@greeter\s+\d+\s+oauth1/);
    expect(listed.stdout).not.toContain(token);

    const out = await bot(["auth", "logout", "--data", "state"]);
    expect(out.code).toBe(0);
    expect(out.stdout).toContain("Signed out and forgot account greeter-bot (@greeter).");
    // Forgotten: no state file holds it (credentials.json goes once nothing is left in it).
    for (const f of await readdir(join(dir, "state", "state"), { recursive: true })) {
      if (String(f).endsWith(".json"))
        expect(await readFile(join(dir, "state", "state", String(f)), "utf8")).not.toContain(token);
    }
  }, 60_000);

  it("ends with a clear message, not a stack trace, when stdin closes before a PIN", async () => {
    const run = await bot(["auth", "login", "--data", "state2"]);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe("bot: no answer: the input ended before one was typed\n");
  }, 30_000);

  it("bearer with a wrong API key secret says to check the app's keys, not that it asked too often", async () => {
    const run = await bot(["auth", "bearer", "--data", "state3"], undefined, {
      POSTBOT_CONSUMER_SECRET: "not-the-secret",
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /^bot: the service could not verify the app's credentials \(403, code 99 "Unable to verify your credentials"\); check POSTBOT_CONSUMER_KEY and POSTBOT_CONSUMER_SECRET \(the environment, then \S*\.env\)/,
    );
    expect(run.stderr).not.toMatch(/requested too often/);
    expect(run.stderr).not.toContain("not-the-secret");
  }, 30_000);

  it("has help for every subcommand", async () => {
    const help = await bot(["auth", "--help"]);
    expect(help.code).toBe(0);
    for (const sub of ["login", "pkce", "bearer", "logout", "list"]) expect(help.stdout).toContain(sub);
    expect(help.stdout).toContain("POSTBOT_CONSUMER_SECRET");
  }, 30_000);
});
