/**
 * The layers of `src/`, as data, and the check that no import breaks them (issue 21): a file
 * may import (values or types alike) only from its own folder's layer or a lower one, and no
 * two files may import each other, however indirectly, even within one folder.
 *
 * The layers, top to bottom (a folder's every file is in its folder's layer):
 *
 *   entry        src/index.ts, src/testing.ts: the public entry points
 *   cli          the commands, and the CLI's sign-in flows (auth-flows)
 *   observe      metrics, the status page, its HTTP server
 *   connect      accounts that connect themselves through the web (its pages and flows)
 *   hosting      start-up and hosting wiring: each bot built from its parts
 *   redis        everything that talks to Redis (implements lower layers' interfaces)
 *   config       bot files, schema, validation
 *   plugins      the plugin API and the plugins stage (contexts, dispatcher, loader)
 *   runtime      the per-bot engine: event loop, inbox, trigger wiring, liveness
 *   triggers     mentions, followers, schedule, the stream hub; the events they make
 *   llm          language models: replies a model writes, their budget, shape and check
 *   actions      the budgeted action layer
 *   limits       the limit table, windows, budgets
 *   credentials  the stored accounts and the app's bearer token
 *   api          the typed client of the service
 *   store        the state store
 *   moderation   a leaf library: imports only the base
 *   base         the single files at src/ top level (clock, log, errors, fencing...)
 *
 * `sandbox` stands apart: only `hosting`, `cli` and the entry points may import it, and it
 * may import only `api`, `limits` and the base. `redis` implements what lower layers define
 * (a Store, shared windows...) and only `hosting`, `cli` and the entry points wire it in.
 *
 * The check reads imports with TypeScript's own `ts.preProcessFile` (static, dynamic and
 * `import("...")` types alike) and works on any list of files, so a test can show it failing.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { posix } from "node:path";
import ts from "typescript";

/** Folder (or top-level file) → layer, top to bottom. */
export const LAYERS: ReadonlyArray<{ layer: string; holds: readonly string[] }> = [
  { layer: "entry", holds: ["index.ts", "testing.ts"] },
  { layer: "cli", holds: ["cli", "auth-flows"] },
  { layer: "observe", holds: ["observe"] },
  { layer: "connect", holds: ["connect"] },
  { layer: "hosting", holds: ["hosting"] },
  { layer: "redis", holds: ["redis"] },
  { layer: "config", holds: ["config"] },
  { layer: "plugins", holds: ["plugins"] },
  { layer: "runtime", holds: ["runtime"] },
  { layer: "triggers", holds: ["triggers"] },
  { layer: "llm", holds: ["llm"] },
  { layer: "actions", holds: ["actions"] },
  { layer: "limits", holds: ["limits"] },
  { layer: "credentials", holds: ["credentials"] },
  { layer: "api", holds: ["api"] },
  { layer: "store", holds: ["store"] },
  { layer: "moderation", holds: ["moderation"] },
  { layer: "base", holds: ["*.ts"] },
];

/** The layer that stands apart, who may import it, and what it may import. */
export const APART = { layer: "sandbox", importedBy: ["hosting", "cli", "entry"], imports: ["api", "limits", "base"] };

/** Layers that only some layers above them may import: those that wire them in. */
export const WIRED_BY: Readonly<Record<string, readonly string[]>> = { redis: ["hosting", "cli", "entry"] };

/** One file of `src/` (a path relative to `src/`, posix separators) and what it imports (as written). */
export interface SourceFile {
  path: string;
  imports: readonly string[];
}

/** A broken rule: the file, the import, and what rule it breaks. */
export interface LayerProblem {
  file: string;
  import: string;
  rule: string;
}

const rank = new Map(LAYERS.map((l, i) => [l.layer, i]));

/** The layer of a file of `src/` (`undefined`: a folder no layer holds). */
export function layerOf(path: string): string | undefined {
  const [first, ...rest] = path.split("/");
  if (rest.length === 0) return LAYERS.find((l) => l.holds.includes(first!))?.layer ?? "base";
  if (first === APART.layer) return APART.layer;
  return LAYERS.find((l) => l.holds.includes(first!))?.layer;
}

/** Why importing `to` from `from` breaks the layers, or undefined when it does not. */
function brokenRule(from: string, to: string): string | undefined {
  if (from === to) return undefined;
  if (to === APART.layer)
    return APART.importedBy.includes(from)
      ? undefined
      : `only ${APART.importedBy.join(", ")} may import ${APART.layer} (it stands apart)`;
  if (from === APART.layer)
    return APART.imports.includes(to) ? undefined : `${APART.layer} may import only ${APART.imports.join(", ")}`;
  const wiredBy = WIRED_BY[to];
  if (wiredBy && !wiredBy.includes(from))
    return `only ${wiredBy.join(", ")} may import ${to} (they wire it in; lower layers define what it implements)`;
  return rank.get(to)! < rank.get(from)!
    ? `${from} may not import ${to}: ${to} is a higher layer (imports run downwards only)`
    : undefined;
}

/** The `src/`-relative path an import of `file` names, or undefined for a package. */
function resolveImport(file: string, spec: string): string | undefined {
  if (!spec.startsWith(".")) return undefined;
  return posix.normalize(posix.join(posix.dirname(file), spec));
}

/** Every upward import, import of an unknown folder and cycle among `files`. */
export function checkLayers(files: readonly SourceFile[]): LayerProblem[] {
  const problems: LayerProblem[] = [];
  const known = new Set(files.map((f) => f.path));
  const edges = new Map<string, Array<{ to: string; spec: string }>>();
  for (const file of files) {
    const from = layerOf(file.path);
    const out: Array<{ to: string; spec: string }> = [];
    edges.set(file.path, out);
    if (from === undefined) {
      problems.push({
        file: file.path,
        import: "",
        rule: `src/${file.path.split("/")[0]} is in no layer; add it to LAYERS`,
      });
      continue;
    }
    for (const spec of file.imports) {
      const target = resolveImport(file.path, spec);
      if (target === undefined || target.startsWith("..")) continue;
      if (known.has(target)) out.push({ to: target, spec });
      const to = layerOf(target);
      const rule = to === undefined ? `src/${target.split("/")[0]} is in no layer` : brokenRule(from, to);
      if (rule) problems.push({ file: file.path, import: spec, rule });
    }
  }
  for (const cycle of cycles(edges))
    problems.push({
      file: cycle[0]!.from,
      import: cycle[0]!.spec,
      rule: `a cycle: ${[...cycle.map((e) => e.from), cycle[0]!.from].join(" → ")}`,
    });
  return problems;
}

/** Each cycle of the import graph once (one per strongly connected group, found by depth-first search). */
function cycles(edges: ReadonlyMap<string, Array<{ to: string; spec: string }>>) {
  const found: Array<Array<{ from: string; spec: string }>> = [];
  const state = new Map<string, "open" | "done">();
  const path: Array<{ from: string; spec: string }> = [];
  const reported = new Set<string>();
  const visit = (file: string) => {
    state.set(file, "open");
    for (const { to, spec } of edges.get(file) ?? []) {
      path.push({ from: file, spec });
      if (state.get(to) === "open") {
        const cycle = path.slice(path.findIndex((e) => e.from === to));
        const key = cycle
          .map((e) => e.from)
          .sort()
          .join(" ");
        if (!reported.has(key)) {
          reported.add(key);
          found.push(cycle);
        }
      } else if (!state.has(to)) visit(to);
      path.pop();
    }
    state.set(file, "done");
  };
  for (const file of [...edges.keys()].sort()) if (!state.has(file)) visit(file);
  return found;
}

/** Every `.ts` file under `dir` (default `src`), with its imports as TypeScript reads them. */
export function readSources(dir = "src"): SourceFile[] {
  const out: SourceFile[] = [];
  const walk = (sub: string) => {
    for (const name of readdirSync(posix.join(dir, sub)).sort()) {
      const rel = sub ? `${sub}/${name}` : name;
      if (statSync(posix.join(dir, rel)).isDirectory()) walk(rel);
      else if (name.endsWith(".ts")) {
        const info = ts.preProcessFile(readFileSync(posix.join(dir, rel), "utf8"), true, true);
        out.push({ path: rel, imports: info.importedFiles.map((f) => f.fileName) });
      }
    }
  };
  walk("");
  return out;
}

/** A problem as one line: `src/FILE imports "SPEC": RULE`. */
export const formatProblem = (p: LayerProblem) => `src/${p.file}${p.import ? ` imports "${p.import}"` : ""}: ${p.rule}`;
