/**
 * The plugins that come with postbot. A bot file names them like any plugin (`reply:`); they
 * are found after the project's own `plugins/NAME` and before npm packages
 * (./discover.ts). Their source is plugins/NAME.ts of postbot's repository, the examples it
 * documents; the package runs them compiled (build/plugins/NAME.js, scripts/build.ts).
 */
import { packageFile, runsFromSource } from "../package-files.ts";

/** The built-in plugins, by the name bot files use. */
export const BUILT_IN_PLUGINS = [
  "dialog",
  "follow-back",
  "like",
  "llm-reply",
  "moderate",
  "reply",
  "repost",
  "schedule-post",
  "welcome-dm",
] as const;

export type BuiltInPluginName = (typeof BUILT_IN_PLUGINS)[number];

/** Whether `name` is a built-in plugin. */
export function isBuiltInPlugin(name: string): name is BuiltInPluginName {
  return (BUILT_IN_PLUGINS as readonly string[]).includes(name);
}

/** The module of a built-in plugin that this postbot runs: its compiled file, or its source when postbot runs from source. */
export function builtInPluginFile(name: BuiltInPluginName): URL {
  return runsFromSource() ? builtInPluginSource(name) : packageFile(`build/plugins/${name}.js`);
}

/**
 * The source of a built-in plugin, plugins/NAME.ts of postbot's repository (a checkout has
 * it; the package does not ship it). A project's `plugins/NAME.ts` that is this very file
 * is the built-in, not a plugin of the project that replaces it.
 */
export function builtInPluginSource(name: BuiltInPluginName): URL {
  return packageFile(`plugins/${name}.ts`);
}
