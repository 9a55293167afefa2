/**
 * The quiz of issue 22 as a real process (test/fixtures/quiz-child.ts) against a sandbox in
 * this process, on the real clock, for the kill -9 tests of conversations: the world (sandbox,
 * data directory, the bot's account, alice), starting the bot's process, and what the bot said.
 * The caller kills the process with SIGKILL and starts it again; `close()` (give it to
 * afterEach) kills whatever still runs and removes the directory.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import dialog from "../../plugins/dialog.ts";
import { createClock } from "../../src/clock.ts";
import { provisionBots } from "../../src/hosting/provision.ts";
import { createSandbox, type Sandbox } from "../../src/sandbox/index.ts";
import { compareIds, type SandboxPost } from "../../src/sandbox/model/index.ts";
import { testBotConfig } from "../../src/testing.ts";
import { QUIZ } from "../fixtures/quiz-bot.ts";
import { watchChild } from "./child-output.ts";
import { fixtureCommand } from "./built.ts";

/** Real time, for a child that runs on the real clock: a guard against hanging, never an assertion of speed. */
export async function until(what: string, ok: () => boolean | Promise<boolean>, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > deadline) throw new Error(`gave up waiting ${ms / 1000} s for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A started quiz process. */
export interface QuizProcess {
  child: ChildProcess;
  exited: Promise<number | null>;
  err(): string;
  /**
   * Resolves once the process has settled (its runtime idle: what a restart repeats, such as a
   * question asked twice, has been sent by then), so a test checks after it instead of sleeping.
   */
  idle(): Promise<void>;
}

export async function quizWorld() {
  const sandbox: Sandbox = await createSandbox({ clock: createClock() });
  const dir = await mkdtemp(join(tmpdir(), "postbot-kill9-quiz-"));
  const children = new Set<ChildProcess>();
  const [hosted] = await provisionBots(sandbox, [testBotConfig(QUIZ, { dialog })]);
  const { app, token, user } = hosted!;
  const alice = await sandbox.admin.createUser({ username: "alice", name: "alice" });
  const botPosts = (): SandboxPost[] =>
    Object.values(sandbox.context.data.world.posts)
      .filter((p) => p.author_id === user!.id)
      .sort((a, b) => compareIds(a.id, b.id));

  /** Starts the bot's process; resolves once it is running. */
  const start = async (): Promise<QuizProcess> => {
    const child = spawn(
      process.execPath,
      [...fixtureCommand("quiz-child"), sandbox.url, dir, JSON.stringify({ app, token, user })],
      { stdio: ["pipe", "pipe", "pipe"] },
    );
    children.add(child);
    const watched = watchChild(child, "the quiz process");
    let err = "";
    child.stderr!.on("data", (c) => (err += c));
    child.stdin!.on("error", () => undefined); // killed while a question was on its way
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    exited.then(() => children.delete(child));
    // Its lines after "ready" answer "idle?", in order.
    const answers: Array<(line: string) => void> = [];
    const lines = createInterface({ input: child.stdout! });
    await watched.before("it was ready", new Promise<void>((resolve) => lines.once("line", () => resolve())));
    lines.on("line", (line) => answers.shift()?.(line));
    const idle = async () => {
      const answer = new Promise<string>((resolve) => answers.push(resolve));
      child.stdin!.write("idle?\n");
      const line = await watched.before("it settled", answer);
      if (line !== "idle") throw new Error(`the quiz process answered ${JSON.stringify(line)} to "idle?"`);
    };
    return { child, exited, err: () => err, idle };
  };

  const close = async () => {
    for (const c of children) c.kill("SIGKILL");
    children.clear();
    await sandbox.close();
    await rm(dir, { recursive: true, force: true });
  };
  return { sandbox, dir, alice, botPosts, start, botId: user!.id, close };
}

export type QuizWorld = Awaited<ReturnType<typeof quizWorld>>;
