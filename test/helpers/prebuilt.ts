/**
 * Where the suite's child processes find postbot: a bundled copy of it, built once per run by
 * the processes project's globalSetup (test/helpers/prebuilt-setup.ts), or, outside such a run
 * (`npm run bench`, `--project unit`), the checkout itself under tsx.
 *
 * Why a copy: the suite starts about 200 children (`bot start`, `bot say`, the kill -9
 * fixtures...), and under tsx each one spends ~0.4 s of CPU more starting than the same code
 * bundled, most of it in tsx's loader hooks, which every module (zod's 95 files, postbot's
 * 200) goes through, by way of a worker thread. The copy's `bot` runs without them until a
 * TypeScript plugin needs them (src/plugins/load.ts).
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** The checkout's root. */
export const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** The variable that gives the suite's workers (and whatever they start) the copy's directory. */
export const PREBUILT_VARIABLE = "POSTBOT_TEST_PREBUILT";

/** The test fixtures run as child processes (test/fixtures/NAME.ts), bundled into the copy. */
export const FIXTURE_CHILDREN = ["action-child", "llm-child", "quiz-child", "session-child"] as const;

export type FixtureChild = (typeof FIXTURE_CHILDREN)[number];

function prebuiltDir(): string | undefined {
  return process.env[PREBUILT_VARIABLE] || undefined;
}

/** The environment that gives a child which starts `bot` itself (the chaos campaign) the same copy. */
export function prebuiltEnv(): Record<string, string> {
  const dir = prebuiltDir();
  return dir ? { [PREBUILT_VARIABLE]: dir } : {};
}

/** The script that runs `bot`: the copy's bin when there is one, else the checkout's bin/bot.js. */
export function botBin(): string {
  const dir = prebuiltDir();
  return dir ? join(dir, "bin", "bot.js") : join(ROOT, "bin", "bot.js");
}

/** The postbot module that `bot` runs (a plugin's `import "postbot"` must get this one): the copy's or src/'s. */
export function botIndex(): string {
  const dir = prebuiltDir();
  return dir ? join(dir, "src", "index.js") : join(ROOT, "src", "index.ts");
}

/** Node's arguments that run a fixture child: the copy's bundle of it, or its TypeScript under tsx. */
export function fixtureCommand(name: FixtureChild): string[] {
  const dir = prebuiltDir();
  return dir
    ? [join(dir, "test", "fixtures", `${name}.js`)]
    : ["--import", "tsx", join(ROOT, "test", "fixtures", `${name}.ts`)];
}
