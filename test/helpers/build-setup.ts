/**
 * The processes project's globalSetup: builds postbot's code, as `npm run build` does
 * (scripts/build.ts, into build/), once per run, for the children of the suite to run
 * (./built.ts says why); and compiles the fixture children (test/fixtures/NAME.ts, programs
 * that drive postbot's internals directly) into node_modules/.cache/postbot-test-fixtures/PID,
 * removed after the run. The types (build/types) are the pack test's to build.
 */
import { existsSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { build } from "esbuild";
import { buildCode, postbotSource } from "../../scripts/build.ts";
import { BUILT_VARIABLE, FIXTURE_CHILDREN, ROOT } from "./built.ts";

const CACHE = join(ROOT, "node_modules", ".cache", "postbot-test-fixtures");

/** Bundles the fixture children into `dir`, each with the postbot source it imports (one copy per child). */
async function buildFixtures(dir: string): Promise<void> {
  rmSync(dir, { recursive: true, force: true });
  await build({
    absWorkingDir: ROOT,
    entryPoints: FIXTURE_CHILDREN.map((name) => ({ in: `test/fixtures/${name}.ts`, out: name })),
    outdir: dir,
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node20.18",
    packages: "external",
    plugins: [postbotSource],
    logLevel: "warning",
  });
}

/** Copies left by runs killed before their teardown (their process is gone). */
function removeAbandoned(): void {
  if (!existsSync(CACHE)) return;
  for (const name of readdirSync(CACHE)) {
    const pid = Number(name);
    if (Number.isInteger(pid) && pid > 0 && !alive(pid)) rmSync(join(CACHE, name), { recursive: true, force: true });
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: string }).code === "EPERM";
  }
}

export default async function setup(): Promise<() => void> {
  removeAbandoned();
  const dir = join(CACHE, String(process.pid));
  await Promise.all([buildCode(), buildFixtures(dir)]);
  process.env[BUILT_VARIABLE] = dir;
  return () => {
    delete process.env[BUILT_VARIABLE];
    rmSync(dir, { recursive: true, force: true });
  };
}
