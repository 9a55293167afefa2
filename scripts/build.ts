/**
 * `npm run build` (and `prepack`): compiles postbot into build/, what the package's `bin`,
 * `exports` and built-in plugins run from. Two stages:
 *
 * - the code ({@link buildCode}): esbuild bundles src/ from its entry points (the three
 *   exports, the CLI and each command, each built-in plugin of plugins/) with code splitting,
 *   so modules the entries share are one file of build/chunks/, loaded once. Bundled, `bot`
 *   starts in a fraction of the time of ~400 modules compiled one by one, and no TypeScript
 *   loader is needed until a user's own .ts plugin is loaded. npm packages stay imports
 *   (a plugin's zod is the project's zod). About a second;
 * - the types ({@link buildTypes}): tsc writes a `.d.ts` beside each module the exports reach,
 *   into build/types/ (tsc's own declarations are exact, and one file per module keeps one
 *   declaration of each type for all three entries). 15-20 s of CPU.
 *
 * The test suite builds the code once per run (test/helpers/build-setup.ts); the test that packs
 * postbot builds the types too. `npm run build -- --code` builds only the code.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, rmSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { build, type Plugin } from "esbuild";
import { BUILT_IN_PLUGINS } from "../src/plugins/built-ins.ts";

/** The checkout's root. */
export const ROOT = fileURLToPath(new URL("../", import.meta.url));

/** Where the build goes (package.json's `bin`, `exports` and `files` name it). */
export const BUILD_DIR = join(ROOT, "build");

/** The three exports: `postbot`, `postbot/testing`, `postbot/sandbox`, by their source. */
export const ENTRIES = {
  postbot: "src/index.ts",
  "postbot/testing": "src/testing.ts",
  "postbot/sandbox": "src/sandbox/index.ts",
};

/**
 * A built-in plugin's `import "postbot"` is the package's own entry, bundled as one with it
 * (no lookup at run time, which could find another copy of postbot).
 */
export const postbotSource: Plugin = {
  name: "postbot-self-reference",
  setup(b) {
    b.onResolve({ filter: /^postbot(\/testing|\/sandbox)?$/ }, (args) => ({
      path: join(ROOT, ENTRIES[args.path as keyof typeof ENTRIES]),
    }));
  },
};

/** esbuild's entry points: `out` is the file under build/ (without .js), `in` its source. */
function entryPoints(): { in: string; out: string }[] {
  const commands = readdirSync(join(ROOT, "src", "cli", "commands"))
    .filter((f) => f.endsWith(".ts"))
    .map((f) => f.slice(0, -3));
  return [
    { in: ENTRIES.postbot, out: "index" },
    { in: ENTRIES["postbot/testing"], out: "testing" },
    { in: ENTRIES["postbot/sandbox"], out: "sandbox" },
    // The CLI finds its commands as files beside it (src/cli/main.ts).
    { in: "src/cli/main.ts", out: "cli/main" },
    ...commands.map((name) => ({ in: `src/cli/commands/${name}.ts`, out: `cli/commands/${name}` })),
    ...BUILT_IN_PLUGINS.map((name) => ({ in: `plugins/${name}.ts`, out: `plugins/${name}` })),
  ];
}

/**
 * Compiles the code into `outDir` (default build/). Files of an earlier build that this one
 * did not write are removed (chunks are named by their content); build/types/ is left alone.
 */
export async function buildCode(outDir = BUILD_DIR): Promise<void> {
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: entryPoints(),
    outdir: outDir,
    chunkNames: "chunks/[name]-[hash]",
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20.18",
    packages: "external",
    // No `keepNames`: it wraps every function in a call that redefines its `name`, and each
    // closure so renamed carries a property table of its own (~256 bytes): 1.5 KB of every
    // running bot's memory, ~37 MB in a process running 25,000. JavaScript names functions
    // and classes from their declarations anyway; only an identifier esbuild renames for a
    // clash between modules (a second `ProcessApps` is `ProcessApps2`) shows so in a stack
    // trace. Errors set their `name` themselves.
    keepNames: false,
    plugins: [postbotSource],
    metafile: true,
    logLevel: "warning",
  });
  const written = new Set(Object.keys(result.metafile.outputs).map((file) => join(ROOT, file)));
  removeStale(outDir, written, join(outDir, "types"));
}

function removeStale(dir: string, keep: Set<string>, skip: string): void {
  if (!existsSync(dir)) return;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (path === skip) continue;
    if (entry.isDirectory()) removeStale(path, keep, skip);
    else if (!keep.has(path)) rmSync(path);
  }
}

/** Writes the `.d.ts` files of the exports into `outDir`/types (tsc, tsconfig.build.json). */
export function buildTypes(outDir = BUILD_DIR): void {
  const types = join(outDir, "types");
  rmSync(types, { recursive: true, force: true });
  const tsc = join(ROOT, "node_modules", "typescript", "bin", "tsc");
  const run = spawnSync(process.execPath, [tsc, "-p", join(ROOT, "tsconfig.build.json"), "--outDir", types], {
    cwd: ROOT,
    encoding: "utf8",
  });
  if (run.status !== 0)
    throw new Error(`tsc could not write the type declarations:\n${run.stdout}${run.stderr}`.trimEnd());
}

async function main(): Promise<void> {
  const started = Date.now();
  await buildCode();
  if (!process.argv.includes("--code")) buildTypes();
  process.stdout.write(`built ${relative(process.cwd(), BUILD_DIR) || "."}/ in ${Date.now() - started} ms\n`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
