/**
 * Bot files watched while `bot start` runs: `fs.watch` on the bots directory, its events
 * gathered for a moment ({@link WATCH_DEBOUNCE_MS}: an editor's save is several events, a
 * temporary file written and renamed over the old one) and handed to the fleet as the files
 * they name ({@link Fleet.readFiles}); an event that names no file reads the whole directory.
 *
 * The plugins directory is watched too: a plugin's own file that changed is imported afresh
 * and the bots that use it restart with its new code ({@link Fleet.pluginChanged}), as do the
 * bots of the bundled plugins that import a module that changed (src/plugins/bundle.ts); a
 * plugin not bundled imports a module once per process, which the log says.
 *
 * `fs.watch` is enough here (one directory of bot files, and one of plugins, on Linux's
 * inotify and macOS's FSEvents); the `chokidar` library's polling fallback and globbing are
 * not needed. What no watcher can promise (an event lost on a network file system) `SIGHUP`
 * makes up for: it reads the whole directory again.
 */
import { watch, type FSWatcher } from "node:fs";
import { join, resolve } from "node:path";
import type { Clock } from "../clock.ts";
import { BOT_FILE_PATTERN } from "../config/index.ts";
import { displayPath } from "../display-path.ts";
import type { Logger } from "../log.ts";
import type { Fleet } from "./fleet.ts";

/** How long the events of one save are gathered before the files are read. */
export const WATCH_DEBOUNCE_MS = 150;

export interface BotWatcherOptions {
  fleet: Pick<Fleet, "readFiles" | "pluginChanged">;
  botsDir: string;
  pluginsDir: string;
  /** Default `process.cwd()`. */
  cwd?: string;
  clock: Clock;
  logger: Logger;
  debounceMs?: number;
}

/** The watchers of a running `bot start`; {@link close} stops them. */
export interface BotWatcher {
  close(): void;
}

/** Starts watching; see the module comment. */
export function watchBotFiles(options: BotWatcherOptions): BotWatcher {
  const { fleet, clock, logger } = options;
  const cwd = options.cwd ?? process.cwd();
  const debounce = options.debounceMs ?? WATCH_DEBOUNCE_MS;
  const watchers: FSWatcher[] = [];
  let closed = false;

  const botsDir = resolve(cwd, options.botsDir);
  const pending = new Set<string>();
  let whole = false;
  let cancel: (() => void) | undefined;
  const flush = () => {
    cancel = undefined;
    const files = whole ? undefined : [...pending];
    pending.clear();
    whole = false;
    if (closed) return;
    fleet
      .readFiles(files)
      .catch((err: unknown) =>
        logger.error(
          { err },
          `could not apply the changes of the bots directory: ${(err as Error)?.message ?? String(err)}; the bots go on as they were (SIGHUP reads the directory again)`,
        ),
      );
  };
  const changed = (name: string | null) => {
    if (name === null) whole = true;
    else if (BOT_FILE_PATTERN.test(name)) pending.add(displayPath(join(botsDir, name), cwd));
    else return;
    cancel ??= clock.setTimeout(flush, debounce);
  };
  const gone = (what: string) => (err: Error) =>
    logger.error(
      { err: err.message },
      `stopped watching ${what}: ${err.message}; changes there are not seen until SIGHUP (kill -HUP ${process.pid}) or a restart`,
    );
  try {
    const w = watch(botsDir, (_event, name) => changed(name));
    w.on("error", gone(options.botsDir));
    watchers.push(w);
  } catch (err) {
    gone(options.botsDir)(err as Error);
  }

  const plugins = watchPlugins(options, cwd, debounce);

  return {
    close() {
      closed = true;
      cancel?.();
      plugins.close();
      for (const w of watchers) w.close();
    },
  };
}

/**
 * Watches the plugins directory: each changed file once per save (gathered as the bot files'
 * events are), handed to {@link Fleet.pluginChanged}.
 */
function watchPlugins(options: BotWatcherOptions, cwd: string, debounce: number): BotWatcher {
  const { fleet, clock, logger } = options;
  const pluginsDir = resolve(cwd, options.pluginsDir);
  const changed = new Set<string>();
  let closed = false;
  let cancel: (() => void) | undefined;
  let watcher: FSWatcher | undefined;
  const flush = () => {
    cancel = undefined;
    const files = [...changed].sort();
    changed.clear();
    if (closed) return;
    for (const file of files)
      fleet
        .pluginChanged(file)
        .catch((err: unknown) =>
          logger.error(
            { err, plugin: file },
            `could not apply the change of ${displayPath(join(pluginsDir, file), cwd)}: ${(err as Error)?.message ?? String(err)}; the bots go on with the code they have`,
          ),
        );
  };
  try {
    watcher = watch(pluginsDir, { recursive: true }, (_event, name) => {
      if (!name || !/\.(m?[jt]s)$/.test(name)) return;
      changed.add(name);
      cancel ??= clock.setTimeout(flush, debounce);
    });
    watcher.on("error", () => undefined);
  } catch {
    // No plugins directory: nothing to watch.
  }
  return {
    close() {
      closed = true;
      cancel?.();
      watcher?.close();
    },
  };
}
