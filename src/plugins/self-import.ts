/**
 * A plugin's `import "postbot"` (and `postbot/testing`, `postbot/sandbox`) gets the postbot
 * that runs it: the same modules, so its contexts, errors and classes are the runtime's own.
 * Left to Node, the import would find whichever postbot the plugin's folder has in its
 * node_modules (another version, or none at all when `bot` is installed globally), or, in
 * postbot's own repository, its compiled copy beside the source that runs. A module hook
 * (Node's `module.register`) answers those three names before any other resolver, tsx's
 * included, with this postbot's entry points.
 */
import { register } from "node:module";
import { packageFile, runsFromSource } from "../package-files.ts";

/** This postbot's entry points, by the names plugins import: its source files, or its build's. */
export function postbotEntries(): Record<string, string> {
  const source = runsFromSource();
  const file = (src: string, built: string) => packageFile(source ? src : built).href;
  return {
    postbot: file("src/index.ts", "build/index.js"),
    "postbot/testing": file("src/testing.ts", "build/testing.js"),
    "postbot/sandbox": file("src/sandbox/index.ts", "build/sandbox.js"),
  };
}

let sent = false;

/**
 * Registers the hook once per process, or `again` after another loader (tsx's): Node calls
 * the last registered hook first, so registered after tsx's it runs before it, and a
 * project's tsconfig `paths` cannot send `postbot` elsewhere either.
 */
export function sendPostbotImportsHere(options: { again?: boolean } = {}): void {
  if (sent && !options.again) return;
  sent = true;
  const hook = `const entries = ${JSON.stringify(postbotEntries())};
export async function resolve(specifier, context, next) {
  if (!Object.hasOwn(entries, specifier)) return next(specifier, context);
  return { url: entries[specifier], format: "module", shortCircuit: true };
}`;
  register(`data:text/javascript,${encodeURIComponent(hook)}`);
}
