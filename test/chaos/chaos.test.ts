/**
 * `npm run chaos` at its smallest (`--tiny`: one kill -9, a few mentions, one stream drop, a
 * short Redis freeze and a kill of the stream's holder, one journal cut, a 2 MB disk filled
 * twice and a stop while it is full, the bots' clock 2 h ahead then 10 min behind, a process
 * stopped past its 3 s lease with 2 replies and 2 DMs held at the service, a quiz's steps
 * reordered under 4 users), so the campaign
 * cannot rot between the times someone runs it in full: it runs, every scenario gives its
 * row, and nothing is lost, doubled or replayed without a word. The campaign runs in a
 * process group of its own: whatever happens to the test, the group (the campaign, its
 * `bot start` processes, its redis-server) is killed afterwards.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { builtEnv } from "../helpers/built.ts";

const RUN = new URL("./run.ts", import.meta.url).pathname;
let child: ChildProcess | undefined;

afterEach(async () => {
  const running = child;
  child = undefined;
  if (!running?.pid || running.exitCode !== null || running.signalCode !== null) return;
  const gone = new Promise<void>((resolve) => running.once("exit", () => resolve()));
  // Asked first (the campaign stops what it started), then the whole group, whatever is left.
  process.kill(-running.pid, "SIGTERM");
  await Promise.race([gone, new Promise((r) => setTimeout(r, 15_000))]);
  try {
    process.kill(-running.pid, "SIGKILL");
  } catch {
    // the group is gone
  }
});

describe("npm run chaos", () => {
  it("--tiny: every scenario runs and gives its row; nothing lost, doubled or replayed without a word", async () => {
    const out: string[] = [];
    // A few minutes (3.8 at a load of 20); the campaign itself stops at 6 (and says so), the test a minute later.
    child = spawn(process.execPath, ["--import", "tsx", RUN, "--tiny", "--minutes", "6"], {
      env: { PATH: process.env.PATH ?? "", ...builtEnv() },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    child.stdout!.on("data", (d: Buffer) => out.push(d.toString()));
    child.stderr!.on("data", (d: Buffer) => out.push(d.toString()));
    const code = await new Promise<number | null>((resolve) => child!.once("exit", (c) => resolve(c)));
    const text = out.join("");
    expect(code, text).toBe(0);
    const rows = text.split("\n").filter((l) => /^\| (kill|stream|Redis|journal|full|clock|hung|dialog)/.test(l));
    expect(
      rows.map((r) => r.split(" | ")[0]),
      text,
    ).toEqual([
      "| kill -9 loop (state in files)",
      "| stream faults",
      "| Redis, 3 processes",
      "| journal cuts",
      "| full disk (2 MB tmpfs)",
      "| clock skew",
      "| hung process (Redis, 3 processes)",
      "| dialog edit",
    ]);
    expect(text).toMatch(/1 cuts at random offsets: 1 refused with a message, 0 started without a word/);
    expect(text).toMatch(/SIGTERM while full: exit 3, said what it could not save, lock released/);
    expect(text).toMatch(/the bots' clock in turn: 2 h ahead \(said\), 10 min behind \(said\), right/);
    expect(text).toMatch(/their process stopped 12 s \(lease 3 s\), the bot taken over/);
    expect(text).toMatch(/said: 4 open dialogs; no placeholder sent/);
    expect(text).toMatch(/verdict: nothing lost, doubled or replayed without a word\n/);
  }, 420_000);
});
