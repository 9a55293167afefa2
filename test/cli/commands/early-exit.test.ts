/**
 * A test waiting for a child's output (a `bot start`'s start-up line) fails at once when the
 * child ends first (test/helpers/child-output.ts), naming how it ended and what it printed
 * last, instead of sitting out the test's timeout and saying "timed out". Here with the
 * processes tests, since it starts some.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { watchChild } from "../../helpers/child-output.ts";
import { killBots, lineReader, spawnBot } from "../../helpers/cli.ts";
import { runCommand, killCommands } from "../../helpers/shell-session.ts";

const children: ChildProcess[] = [];
afterEach(async () => {
  await killBots();
  await killCommands();
  for (const child of children.splice(0))
    if (child.exitCode === null && child.signalCode === null) {
      const gone = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGKILL");
      await gone;
    }
});

/** `node -e SCRIPT`, watched from its start. */
const node = (script: string) => {
  const child = spawn(process.execPath, ["-e", script], { stdio: ["ignore", "pipe", "pipe"] });
  children.push(child);
  return { child, watched: watchChild(child, "the child") };
};

// A bound far below the suite's timeout: the wait must end when the child does, not time out.
const BOUND = { timeout: 15_000 };

describe("waiting for a child's output", () => {
  it("rejects when the child exits first, naming its exit code and its last output", BOUND, async () => {
    const { child, watched } = node(
      `console.log("starting"); console.error("cannot read bots/greeter.yaml: no such file"); process.exit(3)`,
    );
    const out = lineReader(child.stdout!);
    const error = (await out.waitFor(/all bots started/).catch((e: unknown) => e)) as Error;
    expect(error).toBeInstanceOf(Error);
    expect(error.message).toMatch(/^the child exited with code 3 before printing a line matching \/all bots started\//);
    expect(error.message).toContain("starting");
    expect(error.message).toContain("cannot read bots/greeter.yaml: no such file");
    expect(await watched.ended).toBe("exited with code 3");
  });

  it("names the signal that killed it, and says when it printed nothing", BOUND, async () => {
    const { child, watched } = node(`setInterval(() => {}, 1000)`);
    const line = watched.before("its first line", new Promise<string>(() => {}));
    child.kill("SIGKILL");
    await expect(line).rejects.toThrow("the child was killed by SIGKILL before its first line; it printed nothing");
  });

  it("still finds a line printed just before the exit, and one asked for after it", BOUND, async () => {
    const { child, watched } = node(`console.log("ready at 1234"); process.exit(0)`);
    const out = lineReader(child.stdout!);
    expect(await out.waitFor(/ready at \d+/)).toBe("ready at 1234");
    await watched.ended;
    expect(await out.waitFor(/ready/)).toBe("ready at 1234");
    await expect(out.waitFor(/never/)).rejects.toThrow(/exited with code 0 before printing a line matching \/never\//);
  });

  it("keeps only the end of a long output", BOUND, async () => {
    const { child } = node(`process.stderr.write("x".repeat(100000) + "the end"); process.exit(1)`);
    const error = (await lineReader(child.stdout!)
      .waitFor(/up/)
      .catch((e: unknown) => e)) as Error;
    expect(error.message).toMatch(/the end$/);
    expect(error.message.length).toBeLessThan(2_200);
  });

  it("a stream of no watched child: rejects when it closes", BOUND, async () => {
    const child = spawn(process.execPath, ["-e", `console.log("one"); process.exit(0)`], {
      stdio: ["ignore", "pipe", "ignore"],
    });
    children.push(child);
    await expect(lineReader(child.stdout).waitFor(/two/)).rejects.toThrow(
      "the output closed before printing a line matching /two/; its last lines:\none",
    );
  });

  it("a command of a shell session: rejects with its exit code and output", BOUND, async () => {
    const command = runCommand(`echo partial; echo "npm error missing script: dev" >&2; exit 3`, process.cwd(), {
      PATH: process.env.PATH ?? "",
    });
    await expect(command.waitFor(/listening on/)).rejects.toThrow(
      /exited with code 3 before printing a line matching \/listening on\/; its last output:\n[^]*npm error missing script: dev/,
    );
    expect(await command.done).toBe(3);
  });

  it("bot start that fails at once: the wait for its start-up line says why", BOUND, async () => {
    const child = spawnBot(["start", "--bots", "/nonexistent/postbot-bots"]);
    const error = (await lineReader(child.stdout)
      .waitFor(/all bots started/)
      .catch((e: unknown) => e)) as Error;
    expect(error.message).toMatch(
      /^bot start exited with code [1-9]\d* before printing a line matching \/all bots started\//,
    );
    expect(error.message).toContain("/nonexistent/postbot-bots");
  });
});
