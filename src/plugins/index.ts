/** Plugins: the shape a plugin module exports, where plugins are found, and loading them. */
export { definitionProblem, definitionOf } from "./definition.ts";
export type { Plugin } from "./plugin.ts";
export {
  findPlugin,
  localPluginNames,
  localCandidates,
  packageCandidates,
  type PluginLocation,
  type FindOptions,
} from "./discover.ts";
export { loadPlugin, type LoadedPlugin } from "./load.ts";
export { BUILT_IN_PLUGINS, isBuiltInPlugin } from "./built-ins.ts";
export { PluginSetupError } from "./setup-error.ts";
