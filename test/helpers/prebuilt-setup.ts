/**
 * The processes project's globalSetup: builds the bundled copy of postbot that the suite's
 * child processes run (why: test/helpers/prebuilt.ts), once per run, and removes it after.
 *
 * The copy is built inside the package (node_modules/.cache/postbot-prebuilt/PID), so that
 * src/package-files.ts finds postbot's data files from it: entry points where src/ has them
 * (src/cli/main.ts with ./commands/*.js beside it, src/index.ts, src/testing.ts) and the
 * fixture children, sharing one copy of every module (esbuild's code splitting). Packages
 * stay outside (node_modules), as under tsx. A TypeScript plugin's `import "postbot"` goes to
 * the copy's src/index.js, not to src/index.ts (a second postbot): through the `paths` of the
 * tsconfig the copy's bin gives tsx.
 */
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { build, type Plugin } from "esbuild";
import { FIXTURE_CHILDREN, PREBUILT_VARIABLE, ROOT } from "./prebuilt.ts";

const CACHE = join(ROOT, "node_modules", ".cache", "postbot-prebuilt");

/** `postbot` and `postbot/testing`, as a fixture imports them (through a plugin): the copy's own entry points. */
const selfReference: Plugin = {
  name: "postbot-self-reference",
  setup(b) {
    b.onResolve({ filter: /^postbot(\/testing)?$/ }, (args) => ({
      path: join(ROOT, "src", args.path === "postbot" ? "index.ts" : "testing.ts"),
    }));
  },
};

/** Builds the copy into `dir`. */
export async function buildPrebuilt(dir: string): Promise<void> {
  rmSync(dir, { recursive: true, force: true });
  const commands = readdirSync(join(ROOT, "src", "cli", "commands")).filter((f) => f.endsWith(".ts"));
  await build({
    absWorkingDir: ROOT,
    entryPoints: [
      "src/cli/main.ts",
      ...commands.map((f) => `src/cli/commands/${f}`),
      "src/index.ts",
      "src/testing.ts",
      ...FIXTURE_CHILDREN.map((name) => `test/fixtures/${name}.ts`),
    ],
    outbase: ".",
    outdir: dir,
    chunkNames: "chunks/[name]-[hash]",
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    packages: "external",
    // As tsx compiles: functions keep their names.
    keepNames: true,
    plugins: [selfReference],
    logLevel: "silent",
  });
  mkdirSync(join(dir, "bin"));
  // Executable with its shebang, as bin/bot.js is: the documents' `npx bot` runs the copy (./scratch-clone.ts).
  writeFileSync(
    join(dir, "bin", "bot.js"),
    `#!/usr/bin/env node
// bin/bot.js of the suite's bundled postbot (test/helpers/prebuilt-setup.ts): no tsx until a TypeScript plugin needs it.
process.env.TSX_TSCONFIG_PATH = ${JSON.stringify(join(dir, "tsconfig.json"))};
const { main } = await import("../src/cli/main.js");
await main();
`,
    { mode: 0o755 },
  );
  const paths = { postbot: [join(dir, "src", "index.js")], "postbot/testing": [join(dir, "src", "testing.js")] };
  writeFileSync(
    join(dir, "tsconfig.json"),
    JSON.stringify({ extends: join(ROOT, "tsconfig.json"), compilerOptions: { paths } }),
  );
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
  await buildPrebuilt(dir);
  process.env[PREBUILT_VARIABLE] = dir;
  return () => {
    delete process.env[PREBUILT_VARIABLE];
    rmSync(dir, { recursive: true, force: true });
  };
}
