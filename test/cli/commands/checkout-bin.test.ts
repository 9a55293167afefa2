/**
 * The checkout's own `bin/bot.js`, as a newcomer's `npm start` and `npx bot` run it: postbot's
 * TypeScript loaded through tsx. Every other child of the suite runs the compiled postbot
 * (test/helpers/built.ts), which starts in half the time but would not see a break that only
 * the source path has (a file found by a path relative to a module, a loader hook).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { killBots, lineReader, runBot, spawnBot } from "../../helpers/cli.ts";
import { EXAMPLE_BOTS, exampleBotsDir } from "../../helpers/examples.ts";

// A copy of the example bots: what a user adds to bots/ changes nothing here.
const botsDir = await exampleBotsDir();
const dirs: string[] = [dirname(botsDir)];
afterEach(killBots);
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

describe("the checkout's bin/bot.js (TypeScript under tsx, not the suite's build)", () => {
  it("validates the example bots, and starts them on the embedded sandbox and stops on SIGTERM with exit 0", async () => {
    const validated = await runBot(["validate", "--bots", botsDir], {}, { checkout: true });
    expect(validated.code, validated.stderr).toBe(0);

    const data = await mkdtemp(join(tmpdir(), "postbot-checkout-"));
    dirs.push(data);
    const child = spawnBot(["start", "--bots", botsDir, "--data", data], { checkout: true });
    const reader = lineReader(child.stdout);
    const started = JSON.parse(await reader.waitFor(/"msg":"all bots started/)) as { bots: string[] };
    expect(started.bots).toHaveLength(EXAMPLE_BOTS.length);
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
  }, 60_000);
});
