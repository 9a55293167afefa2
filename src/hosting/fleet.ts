/**
 * The live fleet: which bots run and where each comes from (a file of the bots directory, or
 * the state: added through the admin API, or made for an account that connected itself), and
 * every change to it while `bot start` runs. A change is checked exactly like a bot file
 * (`bot validate`'s problems, `file:line:col`), given its account (the embedded sandbox makes
 * one; a service's comes from the bot file or the credential store), applied through the
 * runtime's fleet operations ({@link FleetOps}), logged with who made it, and told to the
 * status page. A file that does not validate is reported and its running version goes on.
 *
 * Bots kept in the state and the pauses people asked for are in the dynamic bots store
 * (../store/dynamic-bots.ts), so they outlive a restart; with the state in Redis every process
 * follows what any of them changed ({@link Fleet.follow}), and the bot claims decide which one
 * runs each bot.
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import type { Clock } from "../clock.ts";
import {
  BOT_FILE_PATTERN,
  fileDigest,
  formatProblem,
  readBotFile,
  loadBotSource,
  loadBotText,
  loadEnv,
  PluginCache,
  type BotConfig,
  type BotFileProblem,
  type OtherBots,
} from "../config/index.ts";
import { displayPath } from "../display-path.ts";
import { findPlugin } from "../plugins/discover.ts";
import { pluginsImporting } from "../plugins/load.ts";
import type { Logger } from "../log.ts";
import type { DynamicBot, DynamicBots, FleetPause } from "../store/dynamic-bots.ts";
import { PluginSetupError } from "../plugins/setup-error.ts";
import { FleetError } from "./fleet-error.ts";
import type { FleetChange, RuntimeObserver } from "./observer.ts";
import type { AppCredentials, FleetBot, HostedBot, Runtime } from "./types.ts";

/** Where a bot comes from: a bot file, or the state (how it got there: `api`, `connect:<template>`). */
export type BotSource = { kind: "file"; file: string } | { kind: "state"; origin: string };

/** One bot of the fleet as the admin API lists it. */
export interface FleetEntry {
  name: string;
  source: BotSource;
  /** `running` here, `paused`, or `elsewhere` (another process sharing the state runs it). */
  state: "running" | "paused" | "elsewhere";
  paused?: { reason: string; at: number; by?: string };
  plan: string;
  username?: string;
  /** Who made or last changed a bot kept in the state, and when. */
  by?: string;
  updatedAt?: number;
}

/** What the bot claims (several processes sharing Redis) learn of the fleet's changes. */
export interface FleetClaims {
  /** A bot joined the fleet: some process claims it. */
  track(bot: string): void;
  /** A bot left the fleet: stopped here if it runs here, and never claimed again. */
  forget(bot: string): Promise<void>;
}

export interface FleetOptions {
  runtime: Runtime;
  dynamic: DynamicBots;
  /**
   * Gives a checked bot its account (the embedded sandbox makes one; a service's is the
   * file's or stored). `fresh`: a stored account is read again from the state first (another
   * process may have signed it in); not for a bot built again from what was checked already.
   * `app`: the bot's app as worked out already for this configuration (a bot built again), used
   * as it is (a service's; the embedded sandbox makes its own).
   */
  accounts(config: BotConfig, fresh?: boolean, app?: AppCredentials): Promise<HostedBot>;
  botsDir: string;
  pluginsDir: string;
  /** Default `process.cwd()`. */
  cwd?: string;
  /** The environment `${VAR}` reads (default `process.env`, plus `.env`). */
  env?: Readonly<Record<string, string | undefined>>;
  clock: Clock;
  logger: Logger;
  observer?: RuntimeObserver;
  /** With the state in Redis: the claims of this process. */
  claims?: FleetClaims;
  /** `bot start --only`: the bots of other files are left alone. */
  only?: readonly string[];
  /** Told of every change after it was made (the demo republishes its bots). */
  onChange?(change: FleetChange): void;
}

/** Who asks for a change: the admin token's name, the connecting account, or the file. */
export interface Requester {
  by: string;
}

/** A change refused for what the bot file says: its problems, as `bot validate` prints them. */
export type Checked = { ok: true; entry: FleetEntry } | { ok: false; problems: BotFileProblem[] };

/** A bot's kept data (../config/bot-source.ts) and how to read the text it came from. */
type Kept = { source: string; text(): string };

/** The others a bot built again is checked beside: none (its name and its app's plan were checked when it was read). */
const NO_OTHERS: OtherBots = { fileOf: () => undefined, appOf: () => undefined };

/** The name problems of a bot kept in the state are shown under (it has no file). */
export const stateFile = (name: string) => `state:${name}.yaml`;

/**
 * The plugin a file of the plugins directory (relative to it) is the code of, by the places
 * discover.ts looks (`NAME.ts`, `NAME.mjs`, `NAME/index.ts`...); undefined for other files.
 */
export function pluginNameOf(file: string): string | undefined {
  const parts = file.split(/[\\/]/);
  if (parts.length === 1 && !file.endsWith(".d.ts")) return /^(.+)\.(ts|js|mts|mjs)$/.exec(file)?.[1];
  if (parts.length === 2 && /^index\.(ts|js)$/.test(parts[1]!)) return parts[0];
  return undefined;
}

/** A bot file's text as the fleet remembers it, to see whether a save changed it (../config/file-digest.ts). */
const digestOf = fileDigest;

/** A bot file's text, read when a problem found in its kept data needs a line and column ("": gone). */
function textOf(path: string, file: string): string {
  try {
    const read = readBotFile(path, file);
    return "text" in read ? read.text : "";
  } catch {
    return "";
  }
}

/** A bot's configuration as compared for a change: its file's settings and its account, not where it was read. */
function fingerprintOf(hosted: HostedBot): string {
  const { config } = hosted;
  return JSON.stringify({
    ...config,
    file: undefined,
    plugins: config.plugins.map((p) => ({ name: p.name, options: p.options })),
    token: hosted.token.token,
    app: hosted.app.id,
  });
}

/** The fleet of one process; see the module comment. */
export class Fleet {
  private readonly plugins: PluginCache;
  private readonly cwd: string;
  /** The bot files as last read: file (as shown) → its bot's name and its text's digest (also for a file that did not validate). */
  private readonly files = new Map<string, { name: string; digest: string }>();
  /** The environment bots are built again with ({@link hydrate}: their data read `${VAR}` already; for a problem's position). */
  private hydrateEnv: ReturnType<typeof loadEnv> | undefined;
  /** The records of the bots kept in the state, as last applied. */
  private records = new Map<string, DynamicBot>();
  private pauses = new Map<string, FleetPause>();
  private version: string | undefined;
  /** Changes run one at a time, in the order asked. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: FleetOptions) {
    this.cwd = options.cwd ?? process.cwd();
    this.plugins = new PluginCache(options.pluginsDir, this.cwd);
  }

  /**
   * Learns what the runtime started with: its files' texts as the start read them (`digests`:
   * file as shown → ../config/file-digest.ts; a file not there is read), the records and
   * pauses of the state.
   */
  async load(digests?: ReadonlyMap<string, string>): Promise<void> {
    this.version = await this.options.dynamic.version();
    this.records = new Map((await this.options.dynamic.list()).map((r) => [r.name, r]));
    this.pauses = await this.options.dynamic.pauses();
    for (const [name, hosted] of this.options.runtime.fleet()) {
      if (this.records.has(name) && hosted.config.file === stateFile(name)) continue;
      const digest = digests?.get(hosted.config.file);
      if (digest !== undefined) {
        this.files.set(hosted.config.file, { name, digest });
        continue;
      }
      try {
        const read = readBotFile(resolve(this.cwd, hosted.config.file), hosted.config.file);
        // Grown past the limit since it was read: the next look at the directory reports it.
        if ("text" in read) this.files.set(hosted.config.file, { name, digest: digestOf(read.text) });
      } catch {
        // Gone since it was read: the next look at the directory stops it.
      }
    }
  }

  /** Every bot of the fleet, with where it comes from and its state. */
  list(): FleetEntry[] {
    const { runtime } = this.options;
    const status = new Map(runtime.status().map((s) => [s.bot, s]));
    return [...runtime.fleet()].map(([name, hosted]) => {
      const record = this.records.get(name);
      const s = status.get(name);
      const pause = this.pauses.get(name);
      return {
        name,
        source:
          record && hosted.config.file === stateFile(name)
            ? { kind: "state", origin: record.origin }
            : { kind: "file", file: hosted.config.file },
        state: !s ? "elsewhere" : s.paused ? "paused" : "running",
        ...(s?.paused ? { paused: { ...s.paused, ...(pause ? { by: pause.by } : {}) } } : {}),
        plan: hosted.app.plan,
        ...(s?.username ? { username: s.username } : {}),
        ...(record ? { by: record.by, updatedAt: record.updatedAt } : {}),
      } satisfies FleetEntry;
    });
  }

  /** Runs `work` after the changes asked before it. */
  private serial<T>(work: () => Promise<T>): Promise<T> {
    const next = this.queue.then(work);
    this.queue = next.catch(() => undefined);
    return next;
  }

  /**
   * The fleet's bots but `except`, as a changed file's check looks them up: by name, and by
   * app only for a file that names one. (A list of them all, made for each change, was a
   * pass over 10,000 bots and two tables of them per saved file.)
   */
  private others(except?: string): OtherBots {
    const fleet = this.options.runtime.fleet();
    return {
      fileOf: (name) => (name === except ? undefined : fleet.get(name)?.config.file),
      appOf: (consumerKey) => {
        for (const { config } of fleet.values())
          if (config.name !== except && config.app?.consumer_key === consumerKey)
            return { plan: config.plan, file: config.file };
        return undefined;
      },
    };
  }

  private env() {
    return loadEnv({
      botsDir: this.options.botsDir,
      cwd: this.cwd,
      ...(this.options.env ? { env: this.options.env } : {}),
    });
  }

  /**
   * A bot file's text (or the data it was read into: a bot built again) checked as `bot
   * validate` checks it, then given its account: the bot ready to run, or the problems. An
   * app has one plan, also across the bots that run already.
   */
  private async check(
    file: string,
    text: string | Kept,
    except: string | undefined,
    noSecrets: boolean,
  ): Promise<{ hosted: HostedBot } | { problems: BotFileProblem[] }> {
    const input = { file, env: this.env(), others: this.others(except), plugins: this.plugins };
    const checked =
      typeof text === "string"
        ? await loadBotText({ ...input, text, noSecrets })
        : { ...(await loadBotSource({ ...input, ...text })), source: text.source };
    if (!checked.bot) return { problems: checked.problems };
    let hosted: HostedBot;
    try {
      hosted = { ...(await this.options.accounts(checked.bot)), ...(checked.source ? { source: checked.source } : {}) };
    } catch (err) {
      return { problems: [{ file, message: (err as Error)?.message ?? String(err) }] };
    }
    let clash: FleetBot | undefined;
    for (const h of this.options.runtime.fleet().values())
      if (h.app.id === hosted.app.id && h.app.plan !== hosted.app.plan && h.config.name !== except) {
        clash = h;
        break;
      }
    if (clash)
      return {
        problems: [
          {
            file,
            key: "plan",
            message: `the bot's app is also the app of ${clash.config.name} (${clash.config.file}), which runs on the ${clash.app.plan} plan; an app has one plan: give both the same, or this bot its own app`,
          },
        ],
      };
    return { hosted };
  }

  /**
   * The full configuration of a bot kept as its outline (../hosting/runtime.ts: a process
   * sharing its state runs a share of the bots), built again as it comes to run here: from its
   * kept data, its plugins as they are now, its account as the state has it. Its name and its
   * app's plan were checked among the others' when it was read. Throws what keeps it from
   * being built (a plugin changed since), as `bot validate` says it.
   */
  async hydrate(bot: FleetBot): Promise<HostedBot> {
    const { name, file } = bot.config;
    const record = this.records.get(name);
    const fromState = record !== undefined && file === stateFile(name);
    const text = () => (fromState ? record.yaml : textOf(resolve(this.cwd, file), file));
    this.hydrateEnv ??= this.env();
    const input = { file, env: this.hydrateEnv, others: NO_OTHERS, plugins: this.plugins };
    const checked =
      bot.source !== undefined
        ? await loadBotSource({ ...input, source: bot.source, text })
        : await loadBotText({ ...input, text: text() });
    if (!checked.bot) throw new Error(checked.problems.map(formatProblem).join("; "));
    // Its app as the outline has it, worked out when this configuration was read: the same key
    // and secret (its file's, or the environment's) give the same app, not worked out again for
    // each bot of a take-over.
    const { app } = checked.bot;
    const { vars } = this.hydrateEnv;
    const key = app ? app.consumer_key : vars.POSTBOT_CONSUMER_KEY?.trim();
    const secret = app ? app.consumer_secret : vars.POSTBOT_CONSUMER_SECRET?.trim();
    const same = key === bot.app.key && secret === bot.app.secret;
    const hosted = await this.options.accounts(checked.bot, false, same ? bot.app : undefined);
    return {
      ...hosted,
      ...(hosted.app.id === bot.app.id ? { app: bot.app } : {}),
      ...(bot.source !== undefined ? { source: bot.source } : {}),
      ...(fromState ? { origin: record.origin, config: { ...hosted.config, file } } : {}),
    };
  }

  /** Logs a change with who made it, and tells the status page. */
  private changed(bot: string, change: FleetChange["change"], by: string, how: string): void {
    const at = this.options.clock.now();
    this.options.logger.info({ bot, change, by }, `bot ${bot} ${how} (by ${by})`);
    this.options.observer?.fleet({ bot, change, by, at });
    this.options.onChange?.({ bot, change, by, at });
  }

  private entry(name: string): FleetEntry {
    return this.list().find((e) => e.name === name)!;
  }

  /** The record of a bot kept in the state, or why the change is refused (no such bot, or a file's). */
  private record(name: string, verb: string): DynamicBot {
    const record = this.records.get(name);
    if (record) return record;
    const hosted = this.options.runtime.fleet().get(name);
    if (hosted)
      throw new FleetError(
        "conflict",
        `bot ${name} comes from ${hosted.config.file}: ${verb} that file instead (bot start watches the bots directory)`,
      );
    throw new FleetError("not-found", `no bot ${name} in the fleet; list them with GET /api/admin/bots`);
  }

  /** Adds a bot kept in the state (the admin API; a connected account). */
  add(text: string, who: Requester & { origin: string; label: string }): Promise<Checked> {
    return this.serial(async () => {
      const checked = await this.check(who.label, text, undefined, true);
      if ("problems" in checked) return { ok: false as const, problems: checked.problems };
      const { hosted } = checked;
      const name = hosted.config.name;
      const at = this.options.clock.now();
      const record: DynamicBot = { name, yaml: text, origin: who.origin, by: who.by, createdAt: at, updatedAt: at };
      await this.options.runtime.add({
        ...hosted,
        origin: who.origin,
        config: { ...hosted.config, file: stateFile(name) },
      });
      await this.options.dynamic.put(record);
      this.records.set(name, record);
      this.options.claims?.track(name);
      this.changed(name, "added", who.by, `added (${who.origin})`);
      return { ok: true as const, entry: this.entry(name) };
    });
  }

  /** Replaces a bot kept in the state with a new text (its name stays). */
  replace(name: string, text: string, who: Requester & { label: string }): Promise<Checked> {
    return this.serial(async () => {
      const before = this.record(name, "edit");
      const checked = await this.check(who.label, text, name, true);
      if ("problems" in checked) return { ok: false as const, problems: checked.problems };
      const { hosted } = checked;
      if (hosted.config.name !== name)
        return {
          ok: false as const,
          problems: [
            {
              file: who.label,
              key: "name",
              message: `the bot file names "${hosted.config.name}", but it replaces ${name}: a bot keeps its name (add a new bot and remove this one to rename it)`,
            },
          ],
        };
      await this.options.runtime.replace({
        ...hosted,
        origin: before.origin,
        config: { ...hosted.config, file: stateFile(name) },
      });
      const record: DynamicBot = { ...before, yaml: text, by: who.by, updatedAt: this.options.clock.now() };
      await this.options.dynamic.put(record);
      this.records.set(name, record);
      this.changed(name, "replaced", who.by, "restarted with its new configuration");
      return { ok: true as const, entry: this.entry(name) };
    });
  }

  /** Removes a bot kept in the state (its own state, inbox and ledger, is kept). */
  remove(name: string, who: Requester): Promise<void> {
    return this.serial(async () => {
      this.record(name, "delete");
      await this.options.claims?.forget(name);
      await this.options.runtime.remove(name);
      await this.options.dynamic.remove(name);
      this.records.delete(name);
      this.pauses.delete(name);
      this.changed(name, "removed", who.by, "removed");
    });
  }

  /** Pauses any bot of the fleet, until resumed (kept in the state: a restart keeps it paused). */
  pause(name: string, who: Requester & { reason?: string }): Promise<FleetEntry> {
    return this.serial(async () => {
      if (!this.options.runtime.fleet().has(name))
        throw new FleetError("not-found", `no bot ${name} in the fleet; list them with GET /api/admin/bots`);
      const pause: FleetPause = {
        reason: `paused by ${who.by}${who.reason ? `: ${who.reason}` : ""}; resume it on the status page or with POST /api/admin/bots/${name}/resume`,
        by: who.by,
        at: this.options.clock.now(),
      };
      await this.options.dynamic.setPause(name, pause);
      this.pauses.set(name, pause);
      await this.options.runtime.pause(name, pause.reason);
      this.changed(name, "paused", who.by, "paused");
      return this.entry(name);
    });
  }

  /** Resumes a paused bot (paused by a person, or because its account was refused: it tries again). */
  resume(name: string, who: Requester): Promise<FleetEntry> {
    return this.serial(async () => {
      if (!this.options.runtime.fleet().has(name))
        throw new FleetError("not-found", `no bot ${name} in the fleet; list them with GET /api/admin/bots`);
      // Whoever paused it (this process or another, seen yet or not): the pause goes.
      await this.options.dynamic.setPause(name, undefined);
      this.pauses.delete(name);
      await this.options.runtime.resume(name);
      this.changed(name, "resumed", who.by, "resumed");
      return this.entry(name);
    });
  }

  /**
   * Looks at bot files again: those named (a watcher's events), or the whole directory. A new
   * file's bot starts, a changed file restarts its bot alone (nothing happens when what it
   * says did not change), a removed file stops its bot. A file with problems is reported as
   * `bot validate` reports it, and its running version goes on.
   */
  readFiles(changed?: readonly string[], why = "changed"): Promise<void> {
    return this.serial(async () => {
      const dir = resolve(this.cwd, this.options.botsDir);
      let present: string[];
      try {
        // The files named are looked at alone: listing 10,000 files for each save held up
        // the other bots' mentions. SIGHUP (nothing named) reads the whole directory.
        present = changed
          ? changed.filter((f) => existsSync(resolve(this.cwd, f)))
          : readdirSync(dir)
              .filter((f) => BOT_FILE_PATTERN.test(f))
              .map((f) => displayPath(join(dir, f), this.cwd));
        if (changed) statSync(dir);
      } catch (err) {
        this.options.logger.error(
          { err: (err as Error)?.message },
          `cannot read the bots directory ${this.options.botsDir}: ${(err as Error)?.message}; the bots go on as they are`,
        );
        return;
      }
      const here = new Set(present);
      const candidates = changed ? [...new Set(changed)] : [...new Set([...present, ...this.files.keys()])];
      // Gone files first: a bot moved to another file stops before it starts again there.
      const gone = candidates.filter((f) => !here.has(f)).sort();
      for (const file of gone) await this.fileGone(file);
      for (const file of candidates.filter((f) => here.has(f)).sort()) await this.fileChanged(file, why);
    });
  }

  private async fileGone(file: string): Promise<void> {
    const known = this.files.get(file);
    this.files.delete(file);
    const hosted = known && this.options.runtime.fleet().get(known.name);
    if (!known || !hosted || hosted.config.file !== file) return;
    await this.options.claims?.forget(known.name);
    await this.options.runtime.remove(known.name);
    this.changed(known.name, "removed", file, `stopped: ${file} was removed`);
  }

  private async fileChanged(file: string, why: string): Promise<void> {
    let read: ReturnType<typeof readBotFile>;
    try {
      if (!statSync(resolve(this.cwd, file)).isFile()) return;
      // Over the size a bot file may have: refused unread, so a huge file holds up no bot.
      read = readBotFile(resolve(this.cwd, file), file);
    } catch {
      return await this.fileGone(file);
    }
    const text = "text" in read ? read.text : undefined;
    const digest = text === undefined ? "" : digestOf(text);
    const known = this.files.get(file);
    if (text !== undefined && known?.digest === digest) return;
    const running = known ? this.options.runtime.fleet().get(known.name) : undefined;
    const ownsName = running?.config.file === file;
    const checked =
      "problem" in read
        ? { problems: [read.problem] }
        : await this.check(file, read.text, ownsName ? known!.name : undefined, false);
    this.files.set(file, { name: known?.name ?? "", digest });
    if ("problems" in checked) {
      const { logger } = this.options;
      for (const problem of checked.problems) logger.error({ file, problem: true }, formatProblem(problem));
      logger.error(
        { file, problems: checked.problems.length },
        ownsName
          ? `${file} ${why} but has ${checked.problems.length === 1 ? "a problem" : `${checked.problems.length} problems`}; bot ${known!.name} goes on with the configuration it had (bot validate checks a file)`
          : `${file} has ${checked.problems.length === 1 ? "a problem" : `${checked.problems.length} problems`}; its bot is not started (bot validate checks a file)`,
      );
      if (ownsName) this.files.set(file, { name: known!.name, digest });
      return;
    }
    const { hosted } = checked;
    const name = hosted.config.name;
    this.files.set(file, { name, digest });
    if (this.options.only && !this.options.only.includes(name)) return;
    if (ownsName && known!.name !== name) {
      // Renamed in its file: the old bot stops, the new one starts.
      await this.options.claims?.forget(known!.name);
      await this.options.runtime.remove(known!.name);
      this.changed(known!.name, "removed", file, `stopped: ${file} names ${name} now`);
    }
    if (ownsName && known!.name === name) {
      if (this.unchanged(name, running!, hosted)) return;
      try {
        await this.options.runtime.replace(hosted);
      } catch (err) {
        if (!(err instanceof PluginSetupError)) throw err;
        this.options.logger.error(
          { file, bot: name, plugin: err.plugin, err: err.cause },
          `${file} ${why}, but ${err.message}; bot ${name} goes on with the configuration it had`,
        );
        return;
      }
      this.changed(
        name,
        "replaced",
        file,
        this.started(name, `restarted with its new configuration (${file} ${why})`, `read again (${file} ${why})`),
      );
      return;
    }
    await this.options.runtime.add(hosted);
    this.options.claims?.track(name);
    this.changed(name, "added", file, this.started(name, `started (${file} is new)`, `added (${file} is new)`));
  }

  /**
   * Whether a bot's new configuration says what it runs with: compared whole when it runs
   * here, else by its file's data and its app (the process that runs it compares it whole).
   */
  private unchanged(name: string, running: FleetBot, after: HostedBot): boolean {
    const whole = this.options.runtime.hosted(name);
    if (whole) return fingerprintOf(whole) === fingerprintOf(after);
    return running.source !== undefined && running.source === after.source && running.app.id === after.app.id;
  }

  /**
   * How a bot's start is told: `how`, or, when it does not run here after all (a plugin's
   * setup threw, its account was refused: the line before says why), `otherwise` and that it
   * does not run. With claims, another process may run it: `how`.
   */
  private started(name: string, how: string, otherwise: string): string {
    if (this.options.claims || this.options.runtime.bots.has(name)) return how;
    return `${otherwise}, but not running: the line before says why (bot status shows it too)`;
  }

  /**
   * A file of the plugins directory changed (`file`, relative to it). When it is a plugin's
   * own file (`NAME.ts`, `NAME/index.ts`...), the plugin is imported afresh and each running
   * bot that uses it restarts with the new code, checked as a changed bot file is (a problem
   * is reported, and the bot goes on with the code it had). A module that plugins import:
   * the plugins whose bundles hold it (src/plugins/bundle.ts) are bundled again and their
   * bots restart the same way; not bundled (from source, through the module hooks), it is not
   * imported again (a process imports a module once): the log says a restart is needed.
   */
  pluginChanged(file: string): Promise<void> {
    return this.serial(async () => {
      const { logger } = this.options;
      const dir = resolve(this.cwd, this.options.pluginsDir);
      const shown = displayPath(join(dir, file), this.cwd);
      const name = pluginNameOf(file);
      const found = name ? findPlugin(name, { pluginsDir: this.options.pluginsDir, projectDir: this.cwd }) : undefined;
      if (name && found?.file !== join(dir, file) && !existsSync(join(dir, file))) {
        this.plugins.reload(name);
        return logger.info(
          { plugin: name },
          `${shown} was removed: the bots that use plugin ${name} go on with the code they have; a bot file that names it now gets ${found ? found.label : "no plugin of that name"}`,
        );
      }
      if (!name || found?.file !== join(dir, file)) {
        // Bundled, the plugins that import it are bundled again with its new code.
        const importers = pluginsImporting(join(dir, file)).flatMap((f) => pluginNameOf(relative(dir, f)) ?? []);
        for (const importer of importers) await this.restartUsers(importer, shown);
        if (importers.length > 0) return;
        return logger.warn(
          { plugin: file },
          `${shown} changed: it is a module that plugins import, not a plugin's own file, and a module is imported once: restart bot start to use it (a plugin's own file is imported again as it changes)`,
        );
      }
      await this.restartUsers(name, shown);
    });
  }

  /** Plugin `name` imported afresh (its code, or a module it imports, changed: `shown`), and each running bot that uses it restarted with it. */
  private async restartUsers(name: string, shown: string): Promise<void> {
    const { logger, runtime } = this.options;
    this.plugins.reload(name);
    // The bots kept as their outline are built with its new code when they come to run here.
    const users = [...runtime.fleet().keys()].filter((bot) =>
      runtime.hosted(bot)?.config.plugins.some((p) => p.name === name),
    );
    if (users.length === 0)
      return logger.info(
        { plugin: name },
        `${shown} changed: no running bot uses plugin ${name}; a bot file that names it gets its code as it is now`,
      );
    for (const bot of users) await this.restartWithPlugin(bot, name, shown);
  }

  /** Restarts `bot` with plugin `name` imported afresh (its configuration as it is: file or state). */
  private async restartWithPlugin(bot: string, name: string, shown: string): Promise<void> {
    const { logger, runtime } = this.options;
    const hosted = runtime.hosted(bot);
    if (!hosted) return;
    const file = hosted.config.file;
    const record = this.records.get(bot);
    const fromState = record !== undefined && file === stateFile(bot);
    // What it runs with (a file broken since goes on being reported, not used).
    const text = fromState
      ? record.yaml
      : hosted.source !== undefined
        ? { source: hosted.source, text: () => textOf(resolve(this.cwd, file), file) }
        : undefined;
    if (text === undefined)
      return logger.warn(
        { bot, plugin: name },
        `${shown} changed, but bot ${bot} was started without what it is built again from; it goes on with the code it had (restart bot start to use the new code)`,
      );
    const checked = await this.check(file, text, bot, false);
    if ("problems" in checked) {
      for (const problem of checked.problems) logger.error({ bot, problem: true }, formatProblem(problem));
      logger.error(
        { bot, plugin: name },
        `${shown} changed, but bot ${bot} cannot run with it (above); it goes on with the code it had`,
      );
      return;
    }
    const ready = fromState
      ? { ...checked.hosted, origin: record.origin, config: { ...checked.hosted.config, file: stateFile(bot) } }
      : checked.hosted;
    await runtime.replace(ready);
    this.changed(bot, "replaced", shown, `restarted with the new code of plugin ${name}`);
  }

  /** {@link follow} every `everyMs` on the clock, until the returned function is called. */
  followEvery(everyMs: number): () => void {
    const stop = new AbortController();
    void (async () => {
      while (!stop.signal.aborted) {
        await this.options.clock.sleep(everyMs, stop.signal).catch(() => undefined);
        if (stop.signal.aborted) break;
        await this.follow().catch((err: unknown) =>
          this.options.logger.warn(
            { err: (err as Error)?.message },
            `could not read the fleet's changes from the state: ${(err as Error)?.message ?? String(err)}; trying again in ${everyMs / 1000} s`,
          ),
        );
      }
    })();
    return () => stop.abort();
  }

  /**
   * With the state shared (Redis): applies what other processes changed in it since the last
   * look (bots added, changed or removed there; pauses and resumes). Cheap when nothing
   * changed: one read of the version.
   */
  follow(): Promise<void> {
    return this.serial(async () => {
      const { dynamic, runtime, logger } = this.options;
      const version = await dynamic.version();
      if (version === this.version) return;
      this.version = version;
      const records = new Map((await dynamic.list()).map((r) => [r.name, r]));
      const pauses = await dynamic.pauses();
      for (const [name, record] of records) {
        const seen = this.records.get(name);
        if (seen && seen.updatedAt === record.updatedAt && seen.yaml === record.yaml) continue;
        const hosted = runtime.fleet().get(name);
        if (!seen && hosted) {
          logger.error(
            { bot: name },
            `another process added bot ${name}, but ${hosted.config.file} here names a bot ${name} too; this process runs its file's bot (give one of them another name)`,
          );
          continue;
        }
        this.records.set(name, record);
        const checked = await this.check(stateFile(name), record.yaml, seen ? name : undefined, false);
        if ("problems" in checked) {
          for (const problem of checked.problems) logger.error({ bot: name, problem: true }, formatProblem(problem));
          continue;
        }
        const ready = {
          ...checked.hosted,
          origin: record.origin,
          config: { ...checked.hosted.config, file: stateFile(name) },
        };
        if (hosted) {
          await runtime.replace(ready);
          this.changed(
            name,
            "replaced",
            record.by,
            "restarted with its new configuration (changed by another process)",
          );
        } else {
          await runtime.add(ready);
          this.options.claims?.track(name);
          this.changed(name, "added", record.by, `added (${record.origin}, by another process)`);
        }
      }
      for (const name of [...this.records.keys()]) {
        if (records.has(name)) continue;
        this.records.delete(name);
        if (runtime.fleet().get(name)?.config.file !== stateFile(name)) continue;
        await this.options.claims?.forget(name);
        await runtime.remove(name);
        this.changed(name, "removed", "another process", "removed");
      }
      for (const [name, pause] of pauses) {
        if (this.pauses.get(name)?.at === pause.at || !runtime.fleet().has(name)) continue;
        await runtime.pause(name, pause.reason);
        this.changed(name, "paused", pause.by, "paused (by another process)");
      }
      for (const name of this.pauses.keys()) {
        if (pauses.has(name) || !runtime.fleet().has(name)) continue;
        await runtime.resume(name);
        this.changed(name, "resumed", "another process", "resumed");
      }
      this.pauses = pauses;
    });
  }
}
