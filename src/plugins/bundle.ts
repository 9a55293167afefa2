/**
 * A project's plugin as the installed postbot runs it: bundled with esbuild into one ES module,
 * the way Vite loads `vite.config.ts`. The plugin's file and its local imports become one file
 * of the project's `.postbot/plugins/`; npm packages stay imports, resolved from there, that is
 * from the project's node_modules; `import "postbot"` (and `postbot/testing`, `postbot/sandbox`)
 * becomes an import of this postbot's own entry file, so the plugin's classes and contexts are
 * the runtime's. Each file's `import.meta.url`, `.dirname` and `.filename` keep their values,
 * and an inline source map points errors at the plugin's own lines.
 *
 * Why: compiled, postbot would otherwise need a module hook (its own thread, ~95 ms to start)
 * and tsx's loader (~75 ms) before a project's first plugin; a bundle needs neither. Beside each
 * bundle, a manifest lists its input files with their size and modification time: while none
 * changed, the next `bot validate` or `bot start` imports the bundle as it is, without starting
 * esbuild. A plugin edited while `bot start` runs gets a new bundle, its local imports' new
 * code included.
 */
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, extname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { debuglog } from "node:util";
import type { Plugin as EsbuildPlugin } from "esbuild";
import { packageFile } from "../package-files.ts";

/** `NODE_DEBUG=postbot` shows what the bundler decided, and why. */
export const debug = debuglog("postbot");

/** How many bundles this process built with esbuild, and how many it reused untouched (tests read them). */
export const bundleCounts = { built: 0, reused: 0 };

/** What `.postbot/plugins/NAME-ID.json` says about a plugin's bundle. */
interface Manifest {
  /** The plugin's file. */
  file: string;
  /** Which postbot, Node and options wrote it: a bundle names this postbot's files, so another postbot writes its own. */
  key: string;
  /** The bundle's file name, beside the manifest. */
  bundle: string;
  /** Each input file (absolute path) with its size and modification time when it was bundled. */
  inputs: Record<string, [number, number]>;
}

/** Changed whenever what a bundle contains changes for the same input (the options below). */
const FORMAT = 1;

/**
 * The URL of the bundle of the plugin `file`, and the files it was bundled from, built in `.postbot/plugins/` of `projectDir`
 * unless its manifest says none of its inputs changed. `entries` are this postbot's
 * entry points by the names plugins import. Throws esbuild's error when the plugin cannot be
 * compiled (a syntax error, an import of a file that is not there; each error's location
 * names its file absolutely), and a file system error
 * when the bundle cannot be written (the caller then loads the plugin another way).
 */
export async function bundledPlugin(
  file: string,
  projectDir: string,
  entries: Record<string, string>,
): Promise<{ url: URL; files: string[] }> {
  const cacheDir = join(projectDir, ".postbot", "plugins");
  const id = `${basename(file, extname(file))}-${hash(file).slice(0, 8)}`;
  const manifestFile = join(cacheDir, `${id}.json`);
  const key = hash(JSON.stringify({ FORMAT, entries, node: process.version, postbot: postbotVersion() }));
  const previous = readManifest(manifestFile);
  if (previous && previous.file === file && previous.key === key && unchanged(previous, cacheDir)) {
    bundleCounts.reused++;
    debug("plugin %s: its bundle %s is up to date", file, previous.bundle);
    return { url: pathToFileURL(join(cacheDir, previous.bundle)), files: Object.keys(previous.inputs) };
  }
  const { text, inputs } = await build(file, projectDir, cacheDir, entries);
  bundleCounts.built++;
  const bundle = `${id}.${hash(text).slice(0, 12)}.mjs`;
  // Private, as the rest of .postbot/ (docs/operations.md): a plugin's code is the user's.
  mkdirSync(cacheDir, { recursive: true, mode: 0o700 });
  writeAtomically(join(cacheDir, bundle), text);
  const manifest: Manifest = { file, key, bundle, inputs: stamps(inputs) };
  writeAtomically(manifestFile, `${JSON.stringify(manifest, null, 2)}\n`);
  if (previous && previous.bundle !== bundle) rmSync(join(cacheDir, previous.bundle), { force: true });
  debug("plugin %s: bundled into %s (%d files)", file, bundle, inputs.length);
  return { url: pathToFileURL(join(cacheDir, bundle)), files: inputs };
}

/** Bundles `file` with esbuild (imported only here: a reused bundle never loads it). */
async function build(
  file: string,
  workingDir: string,
  cacheDir: string,
  entries: Record<string, string>,
): Promise<{ text: string; inputs: string[] }> {
  const esbuild = await import("esbuild");
  const result = await esbuild
    .build({
      absWorkingDir: workingDir,
      entryPoints: [file],
      // Not written by esbuild (write: false): it says where the source map's paths start from.
      outfile: join(cacheDir, "bundle.mjs"),
      write: false,
      bundle: true,
      format: "esm",
      platform: "node",
      target: `node${process.versions.node}`,
      packages: "external",
      sourcemap: "inline",
      // The map points at the plugin's files, which are there: their text need not be copied in.
      sourcesContent: false,
      keepNames: true,
      metafile: true,
      logLevel: "silent",
      define: {
        "import.meta.url": META.url,
        "import.meta.dirname": META.dirname,
        "import.meta.filename": META.filename,
      },
      plugins: [postbotImports(entries), ownImportMeta()],
    })
    .catch((error: { errors?: { location: { file: string } | null }[] }) => {
      for (const e of error.errors ?? []) if (e.location) e.location.file = resolve(workingDir, e.location.file);
      throw error;
    });
  const inputs = Object.keys(result.metafile.inputs).map((input) => resolve(workingDir, input));
  return { text: result.outputFiles[0]!.text, inputs };
}

/** The names each module's own `import.meta` values are given (see {@link ownImportMeta}). */
const META = {
  url: "__postbot_import_meta_url",
  dirname: "__postbot_import_meta_dirname",
  filename: "__postbot_import_meta_filename",
};

/** `import "postbot"`, `postbot/testing`, `postbot/sandbox`: this postbot's entry files, left as imports. */
function postbotImports(entries: Record<string, string>): EsbuildPlugin {
  return {
    name: "postbot-imports",
    setup(b) {
      b.onResolve({ filter: /^postbot(\/testing|\/sandbox)?$/ }, (args) => ({
        path: entries[args.path]!,
        external: true,
      }));
    },
  };
}

/**
 * Each bundled module's `import.meta.url`, `.dirname` and `.filename` are its own file's,
 * not the bundle's (as Vite does for its config): each module starts with three constants of
 * its own, which `define` substitutes for `import.meta.*`; esbuild renames them apart. They
 * are written on the file's first line, so the source map's lines stay the file's.
 */
function ownImportMeta(): EsbuildPlugin {
  const loaders = { ".ts": "ts", ".mts": "ts", ".cts": "ts", ".tsx": "tsx", ".jsx": "jsx" } as const;
  return {
    name: "own-import-meta",
    setup(b) {
      b.onLoad({ filter: /\.[cm]?[jt]sx?$/ }, (args) => {
        const contents = readFileSync(args.path, "utf8");
        const values =
          `const ${META.url} = ${JSON.stringify(pathToFileURL(args.path).href)}, ` +
          `${META.dirname} = ${JSON.stringify(dirname(args.path))}, ` +
          `${META.filename} = ${JSON.stringify(args.path)};`;
        const ext = extname(args.path) as keyof typeof loaders;
        return { contents: values + contents, loader: loaders[ext] ?? "js" };
      });
    },
  };
}

function readManifest(file: string): Manifest | undefined {
  try {
    return JSON.parse(readFileSync(file, "utf8")) as Manifest;
  } catch {
    return undefined;
  }
}

/** Whether the bundle is there and each input has the size and modification time it had. */
function unchanged(manifest: Manifest, cacheDir: string): boolean {
  try {
    statSync(join(cacheDir, manifest.bundle));
    const now = stamps(Object.keys(manifest.inputs));
    return Object.entries(manifest.inputs).every(([f, [size, mtime]]) => now[f]![0] === size && now[f]![1] === mtime);
  } catch {
    return false; // a file is gone
  }
}

function stamps(files: string[]): Record<string, [number, number]> {
  return Object.fromEntries(
    files.map((f) => {
      const s = statSync(f);
      return [f, [s.size, s.mtimeMs]];
    }),
  );
}

/** Written beside, then renamed: another process never reads half a bundle or manifest. */
function writeAtomically(file: string, text: string): void {
  const partial = `${file}.${process.pid}.partial`;
  try {
    writeFileSync(partial, text, { mode: 0o600 });
    renameSync(partial, file);
  } catch (error) {
    rmSync(partial, { force: true }); // a full disk leaves no half file behind
    throw error;
  }
}

function hash(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

let version: string | undefined;

function postbotVersion(): string {
  version ??= (JSON.parse(readFileSync(packageFile("package.json"), "utf8")) as { version: string }).version;
  return version;
}
