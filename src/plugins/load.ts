/**
 * Importing a plugin module and checking what it exports. TypeScript plugins need no build
 * step. Compiled (the installed package), postbot bundles a project's plugin with esbuild
 * (./bundle.ts) and imports the bundle; where it cannot (a plugin Node reads as CommonJS, a
 * package's plugin, a project directory it cannot write), tsx compiles the plugin on import
 * ({@link pluginLoader}, ./self-import.ts). From source, whatever loads postbot's TypeScript
 * loads the plugin's. Either way the plugin's modules are imported through the process's own
 * loader (rather than tsx's `tsImport`, which loads into a separate module graph): one instance
 * of each module, postbot's included.
 *
 * Any failure (a syntax error, a throw at import, a wrong export) becomes one message that
 * names the plugin's file and, for syntax errors, the line.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { basename, dirname, extname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { displayPath } from "../display-path.ts";
import { runsFromSource } from "../package-files.ts";
import { definitionOf, definitionProblem } from "./definition.ts";
import type { PluginLocation } from "./discover.ts";
import type { Plugin } from "./plugin.ts";
import { BUILT_IN_PLUGINS, builtInPluginFile } from "./built-ins.ts";
import { bundledPlugin, debug } from "./bundle.ts";
import { postbotEntries, sendPostbotImportsHere } from "./self-import.ts";

/** A loaded plugin, or why it could not be loaded (a message naming its file). */
export type LoadedPlugin =
  | { ok: true; definition: Plugin; location: PluginLocation }
  | { ok: false; message: string; location: PluginLocation };

/**
 * Imports the plugin at `location` and checks its default export. Never throws. `fresh`, the
 * number of times its file changed while the process runs, imports it as a new module (a
 * module is otherwise imported once per process): the new code of a plugin edited while
 * `bot start` runs. Bundled (./bundle.ts), its local imports' new code comes with it; loaded
 * by tsx, the modules it imports stay those imported first.
 */
export async function loadPlugin(location: PluginLocation, fresh = 0): Promise<LoadedPlugin> {
  let module: Record<string, unknown>;
  let files: readonly string[] | undefined;
  try {
    ({ module, files } = await importModule(location, fresh));
  } catch (error) {
    return {
      ok: false,
      location,
      message: `could not be loaded from ${location.label}: ${describeLoadError(error, location)}`,
    };
  }
  const definition = definitionOf(module);
  const problem = definitionProblem(definition);
  if (problem) return { ok: false, location, message: `(${location.label}) is not a plugin: ${problem}` };
  if (files) bundledFiles.set(location.file, files);
  return { ok: true, location, definition: definition as Plugin };
}

/** The files of each plugin's last bundle that loaded, by the plugin's file: process-wide, as Node's module cache is. */
const bundledFiles = new Map<string, readonly string[]>();

/**
 * The plugins (their files) whose last bundle that loaded holds `file` as a module they
 * import: a change to it is theirs too (`bot start` loads them again, and a fix to it after
 * a failed reload as well). None for plugins not bundled: from source, or loaded through
 * the module hooks, a module is imported once per process.
 */
export function pluginsImporting(file: string): string[] {
  return [...bundledFiles].filter(([plugin, files]) => plugin !== file && files.includes(file)).map(([p]) => p);
}

type Imported = { module: Record<string, unknown>; files?: readonly string[] };

async function importModule(location: PluginLocation, fresh: number): Promise<Imported> {
  const change = fresh > 0 ? `?change=${fresh}` : "";
  // A built-in is compiled with the postbot that runs it: it needs neither bundle nor loader.
  const compiled = !runsFromSource() && location.kind !== "built-in";
  const bundle = compiled ? await bundleOf(location) : undefined;
  if (bundle) {
    // The bundle's inline source map: an error's stack names the plugin's own file and line.
    process.setSourceMapsEnabled(true);
    try {
      return { module: (await import(bundle.url.href + change)) as Record<string, unknown>, files: bundle.files };
    } catch (error) {
      // Node names the bundle (a package it imports is missing...): the user wrote the plugin.
      const e = error as { message?: unknown };
      if (typeof e?.message === "string") e.message = e.message.replaceAll(fileURLToPath(bundle.url), location.file);
      throw error;
    }
  }
  if (compiled) await pluginLoader(/\.[cm]?tsx?$/.test(location.file));
  return { module: (await import(pathToFileURL(location.file).href + change)) as Record<string, unknown> };
}

/**
 * The bundle of a project's plugin (./bundle.ts), in `.postbot/plugins/` beside the
 * package.json that makes it an ES module, so its npm imports resolve from that project's
 * node_modules as the plugin's own would. Undefined, and said in the debug log
 * (`NODE_DEBUG=postbot`), where the plugin is loaded through the hooks instead: a package's
 * plugin (its imports resolve from its own folder), one Node reads as CommonJS (Node's
 * error, and the advice, stay those of `bot` from source), a project that cannot be written.
 * A compile error (a syntax error, an import of no file) is thrown: the plugin's problem.
 */
async function bundleOf(location: PluginLocation): Promise<{ url: URL; files: string[] } | undefined> {
  if (location.kind !== "file") return void debug("plugin %s: a package's, loaded through module hooks", location.file);
  const pkg = nearestPackageJson(dirname(location.file));
  if (!pkg || (!/\.m[jt]s$/.test(location.file) && packageType(pkg) !== "module"))
    return void debug("plugin %s: read as CommonJS by Node, loaded through module hooks", location.file);
  try {
    return await bundledPlugin(location.file, dirname(pkg), postbotEntries());
  } catch (error) {
    if (compileErrors(error)) throw error;
    debug("plugin %s: not bundled (%s), loaded through module hooks", location.file, (error as Error)?.message);
    return undefined;
  }
}

/** esbuild's errors, when `error` is its failure to compile a plugin (each names a file and line). */
function compileErrors(error: unknown): EsbuildMessage[] | undefined {
  const errors = (error as { errors?: unknown })?.errors;
  return Array.isArray(errors) && errors.length > 0 ? (errors as EsbuildMessage[]) : undefined;
}

interface EsbuildMessage {
  text: string;
  location: { file: string; line: number; column: number } | null;
}

let hooked: Promise<void> | undefined;
let typescript: Promise<void> | undefined;

/**
 * What is imported before the hooks: postbot's entry, which a plugin imports, and the
 * built-in plugins, which bots list beside the project's own. Imported after, each of their
 * modules' imports would resolve through the hooks' thread, a round trip each (about a fifth
 * of `bot validate`'s time, measured).
 */
function withoutHooks(): Promise<unknown> {
  return Promise.all([
    import(postbotEntries().postbot!),
    ...BUILT_IN_PLUGINS.map((name) => import(builtInPluginFile(name).href)),
  ]);
}

/**
 * Compiled, postbot starts without a TypeScript loader. Before the first plugin of the
 * project or of a package, it registers the hook that gives a plugin's `import "postbot"`
 * this postbot (./self-import.ts), and before the first TypeScript one, tsx's loader for the
 * rest of the process (then the hook again, so that it still answers first). Every module
 * imported once hooks are registered resolves through them, in another thread, so postbot's
 * own entry and the built-ins are imported first, without them ({@link withoutHooks}).
 * From source (a checkout's `bot`, which bin/bot.js runs under tsx with the same hook, or
 * vitest), both are there already. Registered before the import (a failed import stays in
 * Node's module cache), once, however many plugins are imported at the same time.
 */
function pluginLoader(isTypeScript: boolean): Promise<void> {
  hooked ??= withoutHooks().then(() => sendPostbotImportsHere());
  if (!isTypeScript) return hooked;
  typescript ??= hooked.then(async () => {
    const { register } = await import("tsx/esm/api");
    register();
    sendPostbotImportsHere({ again: true });
  });
  return typescript;
}

/**
 * One line about why an import failed. Compilers' messages carry absolute paths and
 * banners ("Transform failed with 1 error:"); those are trimmed to `file:line:col: what`.
 * Node's own syntax errors in ES modules carry no position, so the file is checked with
 * `node --check` to find the line.
 */
function describeLoadError(error: unknown, location: PluginLocation): string {
  const e = error as { name?: string; message?: string; code?: string } | undefined;
  const advice = e?.code === "ERR_REQUIRE_CYCLE_MODULE" ? commonJsAdvice(location.file) : undefined;
  if (advice) return advice;
  const compile = compileErrors(error)?.[0];
  if (compile) {
    const at = compile.location;
    // esbuild counts columns from 0; editors, and bot file problems, from 1.
    return at ? `${compile.text} (${displayPath(at.file)}:${at.line}:${at.column + 1})` : compile.text;
  }
  const name = e?.name && e.name !== "Error" ? `${e.name}: ` : "";
  const shown = displayPath(location.file);
  let message =
    String(e?.message ?? error)
      .replace(/^Transform failed with \d+ errors?:\s*/, "")
      .replaceAll(location.file, shown)
      .replace(/: ERROR: /g, ": ")
      .split("\n")
      .map((line) => line.trim())
      .filter(Boolean)[0] ?? "unknown error";
  if (e?.name === "SyntaxError" && !message.includes(shown)) {
    const line = syntaxErrorLine(location.file);
    if (line) message += ` (${shown}:${line})`;
  }
  return `${name === "TransformError: " ? "" : name}${message}`;
}

/**
 * Why a plugin was compiled as CommonJS, and what to do. A .ts or .js file is an ES module
 * only under a package.json that says `"type": "module"`; compiled as CommonJS, its
 * `import ... from "postbot"` becomes a require() of postbot's ES modules, which Node refuses
 * ("require() ES Module ... in a cycle"). tsx's `tsImport` does not help: postbot loaded a
 * second time that way breaks its own dependencies.
 */
function commonJsAdvice(file: string): string | undefined {
  const pkg = nearestPackageJson(dirname(file));
  if (pkg && packageType(pkg) === "module") return undefined; // another cause: Node's message says it
  const base = basename(file).replace(/\.(ts|js)$/, "");
  const rename = /\.(ts|js)$/.test(file) ? `, or name the plugin ${base}.m${extname(file).slice(1)}` : "";
  return pkg
    ? `it is read as CommonJS, because ${displayPath(pkg)} does not say "type": "module" (postbot and its plugins are ES modules): add "type": "module" to ${displayPath(pkg)}${rename}`
    : `it is read as CommonJS, because no package.json above it says "type": "module" (postbot and its plugins are ES modules): write a package.json with {"type": "module"} in the project${rename}`;
}

/** A package.json's "type" (undefined when it has none or cannot be read). */
function packageType(file: string): unknown {
  try {
    return (JSON.parse(readFileSync(file, "utf8")) as { type?: unknown }).type;
  } catch {
    return undefined;
  }
}

/** The package.json that decides how Node reads files in `dir`: the nearest one up the tree. */
function nearestPackageJson(dir: string): string | undefined {
  for (let at = dir; ; at = dirname(at)) {
    const file = join(at, "package.json");
    if (existsSync(file)) return file;
    if (dirname(at) === at) return undefined;
  }
}

/** The line `node --check` reports for a syntax error in a JavaScript file. */
function syntaxErrorLine(file: string): number | undefined {
  if (!/\.(c|m)?js$/.test(file)) return undefined;
  const result = spawnSync(process.execPath, ["--check", file], { encoding: "utf8", timeout: 10_000 });
  const match = /^(.*):(\d+)$/m.exec(result.stderr ?? "");
  return match && match[1] === file ? Number(match[2]) : undefined;
}
