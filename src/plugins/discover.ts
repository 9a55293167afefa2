/**
 * Finding a plugin by the name a bot file uses. The project's own plugins come first, so a
 * project can always replace a built-in or a published one:
 *
 * 1. in the plugins directory: `NAME.ts`, `NAME.js` (or `.mts`, `.mjs`), `NAME/index.ts`,
 *    `NAME/index.js`;
 * 2. the built-in plugin of that name, shipped with postbot (./built-ins.ts);
 * 3. an npm package installed in the project: `postbot-plugin-NAME` (for `@scope/NAME`:
 *    `@scope/postbot-plugin-NAME`), then `NAME` itself.
 *
 * Packages are looked up from the project directory (as Node would resolve an import
 * written there), not from wherever postbot itself is installed.
 */
import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { builtInPluginFile, builtInPluginSource, isBuiltInPlugin } from "./built-ins.ts";

/** Where a plugin was found: the file to import and how to name it in messages. */
export interface PluginLocation {
  kind: "file" | "built-in" | "package";
  /** Absolute path of the module to import. */
  file: string;
  /** The local file, the built-in (`built-in reply`), or the package name, as messages show it. */
  label: string;
  /** Set on a project's plugin that replaces the built-in of its name (the log says so, once). */
  shadows?: "built-in";
}

export interface FindOptions {
  /** The plugins directory (`--plugins`, default `plugins`); none: only built-ins and packages. */
  pluginsDir: string | undefined;
  /** Where npm packages are resolved from (default: the current directory). */
  projectDir?: string;
}

const LOCAL_FORMS = ["NAME.ts", "NAME.js", "NAME.mts", "NAME.mjs", "NAME/index.ts", "NAME/index.js"];

/** The npm package names tried for a plugin name, in order. */
export function packageCandidates(name: string): string[] {
  const scoped = /^(@[^/]+)\/(.+)$/.exec(name);
  if (scoped)
    return scoped[2]!.startsWith("postbot-plugin-") ? [name] : [`${scoped[1]}/postbot-plugin-${scoped[2]}`, name];
  return name.startsWith("postbot-plugin-") ? [name] : [`postbot-plugin-${name}`, name];
}

/** The local files tried for a plugin name, in order (relative to the plugins directory). */
export function localCandidates(name: string): string[] {
  return name.includes("/") ? [] : LOCAL_FORMS.map((form) => form.replace("NAME", name));
}

/**
 * Finds the plugin `name`, or returns undefined when none of the places has it (the caller
 * says where it looked, with {@link localCandidates} and {@link packageCandidates}).
 */
export function findPlugin(name: string, options: FindOptions): PluginLocation | undefined {
  const projectDir = resolve(options.projectDir ?? process.cwd());
  const local = options.pluginsDir === undefined ? undefined : findLocal(name, options.pluginsDir, projectDir);
  if (local) return local;
  if (isBuiltInPlugin(name)) return builtIn(name, `built-in ${name}`);
  for (const pkg of packageCandidates(name)) {
    const dir = findPackageDir(pkg, projectDir);
    if (dir) return { kind: "package", file: packageEntry(dir), label: pkg };
  }
  return undefined;
}

/**
 * The plugin names the plugins directory offers (for "did you mean"); empty when the
 * directory does not exist.
 */
export function localPluginNames(pluginsDir: string, projectDir = process.cwd()): string[] {
  const dir = resolve(projectDir, pluginsDir);
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return [];
  }
  const names = new Set<string>();
  for (const entry of entries) {
    const plain = /^(.+)\.(ts|js|mts|mjs)$/.exec(entry);
    if (plain && !entry.endsWith(".d.ts") && isFile(join(dir, entry))) names.add(plain[1]!);
    else if (isFile(join(dir, entry, "index.ts")) || isFile(join(dir, entry, "index.js"))) names.add(entry);
  }
  return [...names].sort();
}

/** `name` in the plugins directory, or undefined; a built-in's name there replaces the built-in (save in postbot's repository, below). */
function findLocal(name: string, pluginsDir: string, projectDir: string): PluginLocation | undefined {
  for (const candidate of localCandidates(name)) {
    const file = join(resolve(projectDir, pluginsDir), candidate);
    if (!isFile(file)) continue;
    const label = join(pluginsDir, candidate);
    if (!isBuiltInPlugin(name)) return { kind: "file", file, label };
    // postbot's own repository: its plugins/ is the built-ins' source, not a replacement of them.
    if (sameFile(file, fileURLToPath(builtInPluginSource(name)))) return builtIn(name, label);
    return { kind: "file", file, label, shadows: "built-in" };
  }
  return undefined;
}

function builtIn(name: Parameters<typeof builtInPluginFile>[0], label: string): PluginLocation {
  return { kind: "built-in", file: fileURLToPath(builtInPluginFile(name)), label };
}

function sameFile(a: string, b: string): boolean {
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return false;
  }
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** The package's directory under the nearest `node_modules` that has it, walking up. */
function findPackageDir(pkg: string, from: string): string | undefined {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, "node_modules", pkg);
    if (existsSync(join(candidate, "package.json"))) return candidate;
    if (dirname(dir) === dir) return undefined;
  }
}

interface PackageJson {
  exports?: unknown;
  module?: string;
  main?: string;
}

/**
 * The module a package's bare import resolves to: its `exports` for `.` (conditions
 * `import`, `node`, `default`, in that order), else `module`, else `main`, else index.js.
 */
function packageEntry(dir: string): string {
  let manifest: PackageJson = {};
  try {
    manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as PackageJson;
  } catch {
    // An unreadable manifest: fall back to index.js; importing it reports the real problem.
  }
  const fromExports = exportTarget(manifest.exports);
  return join(dir, fromExports ?? manifest.module ?? manifest.main ?? "index.js");
}

function exportTarget(exports: unknown): string | undefined {
  if (typeof exports === "string") return exports;
  if (Array.isArray(exports)) {
    for (const item of exports) {
      const target = exportTarget(item);
      if (target) return target;
    }
    return undefined;
  }
  if (!exports || typeof exports !== "object") return undefined;
  const map = exports as Record<string, unknown>;
  if ("." in map) return exportTarget(map["."]);
  for (const condition of ["import", "node", "default"]) {
    if (condition in map) {
      const target = exportTarget(map[condition]);
      if (target) return target;
    }
  }
  return undefined;
}
