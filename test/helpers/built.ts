/**
 * Where the suite's child processes find postbot: compiled, as the package runs it (build/,
 * built once per run by the processes project's globalSetup, test/helpers/build-setup.ts), or,
 * outside such a run (`npm run bench`, `--project unit`), the checkout itself under tsx.
 *
 * Why compiled: the suite starts about 200 children (`bot start`, `bot say`, the kill -9
 * fixtures...), and under tsx each one spends ~0.4 s of CPU more starting than the same code
 * bundled, most of it in tsx's loader hooks, which every module (zod's 95 files, postbot's
 * 400) goes through, by way of a worker thread. Compiled, `bot` runs without them until a
 * TypeScript plugin needs them (src/plugins/load.ts); and the suite tests what ships.
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** The checkout's root. */
export const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** The variable that tells the suite's workers (and whatever they start) that build/ is fresh, and where the fixture children are compiled. */
export const BUILT_VARIABLE = "POSTBOT_TEST_BUILT";

/** The test fixtures run as child processes (test/fixtures/NAME.ts), compiled beside the build. */
export const FIXTURE_CHILDREN = ["action-child", "llm-child", "quiz-child", "session-child"] as const;

export type FixtureChild = (typeof FIXTURE_CHILDREN)[number];

function fixturesDir(): string | undefined {
  return process.env[BUILT_VARIABLE] || undefined;
}

/** The environment that gives a child which starts `bot` itself (the chaos campaign) the same compiled postbot. */
export function builtEnv(): Record<string, string> {
  const dir = fixturesDir();
  return dir ? { [BUILT_VARIABLE]: dir } : {};
}

/** The script that runs the compiled `bot` (build/, which must be fresh: scripts/build.ts's `buildCode`). */
export const builtBin = join(ROOT, "test", "helpers", "built-bin", "bot.js");

/** The script that runs `bot`: the compiled one when the suite built it, else the checkout's bin/bot.js. */
export function botBin(): string {
  return fixturesDir() ? builtBin : join(ROOT, "bin", "bot.js");
}

/** The postbot module that `bot` runs (a plugin's `import "postbot"` must get this one): build/'s or src/'s. */
export function botIndex(): string {
  return fixturesDir() ? join(ROOT, "build", "index.js") : join(ROOT, "src", "index.ts");
}

/** Node's arguments that run a fixture child: its compiled bundle, or its TypeScript under tsx. */
export function fixtureCommand(name: FixtureChild): string[] {
  const dir = fixturesDir();
  return dir ? [join(dir, `${name}.js`)] : ["--import", "tsx", join(ROOT, "test", "fixtures", `${name}.ts`)];
}
