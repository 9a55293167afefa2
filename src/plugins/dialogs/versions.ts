/**
 * The versions of a bot's dialogs, so that an edit of the bot file never breaks a dialog a
 * user is in the middle of.
 *
 * A dialog made from data (the `dialog` plugin's steps in a bot file) names its steps by
 * their place in the list: reordered or removed steps under open dialogs sent users the wrong
 * question, saved their answer under the wrong name, or left it with no reply. So such a
 * dialog gives its data with its definition ({@link DialogDefinition.versioned}); its version
 * is a hash of that data, each open dialog keeps the version it started on, and the data of
 * every version an open dialog is on is kept in the bot's part of the state
 * (`dialog.versions:<bot>` → version → {@link StoredVersion}), in the same file (or Redis
 * hash) as the dialogs themselves. An open dialog therefore finishes on the version it started
 * with, after a live edit and after a restart alike, and only dialogs started afterwards take
 * the new version. A version no open dialog is on any more is removed at the bot's next start.
 *
 * A dialog written in code has no data to keep (a restart runs the new code only): its open
 * dialogs go on by step name, and those waiting in a step the code no longer has are closed
 * at their user's next message. Either way the bot's start says how many open dialogs the
 * edit concerns.
 */
import { createHash } from "node:crypto";
import type { Logger } from "../../log.ts";
import type { Store } from "../../store/store.ts";
import type { ScopedRecord } from "./durable-scope.ts";
import type { DialogDefinition } from "./types.ts";

/** The store namespace of a bot's dialog versions (its part of the state: shards.ts). */
export const versionNamespace = (bot: string) => `dialog.versions:${bot}`;

/** A version as stored: whose dialog it is, and the data it is made from. */
export interface StoredVersion {
  plugin: string;
  name: string;
  spec: unknown;
}

/** A dialog as registered: whose, its definition, and its version when it is made from data. */
export interface Defined {
  plugin: string;
  name: string;
  definition: DialogDefinition<unknown>;
  /** The hash of its data ({@link versionOf}); undefined for a dialog written in code. */
  version?: string;
}

/** What the versions need to know of an open dialog. */
interface OpenDialog {
  plugin: string;
  name: string;
  step: string;
  version?: string;
}

/** JSON with every object's keys sorted: the same data always hashes the same. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** The version of a dialog made from `spec`: a short hash of whose it is and the data. */
export function versionOf(plugin: string, name: string, spec: unknown): string {
  return createHash("sha256").update(canonical({ plugin, name, spec })).digest("base64url").slice(0, 12);
}

const id = (plugin: string, name: string) => `${plugin}\u0000${name}`;
const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** One bot's dialog versions; see the module comment. */
export class DialogVersions {
  /** Earlier versions made again from their stored data, by version. */
  private readonly made = new Map<string, Defined>();
  private readonly ns: string;

  constructor(private readonly options: { bot: string; store: Store; log: Logger; dialogs: string; file?: string }) {
    this.ns = versionNamespace(options.bot);
  }

  /**
   * The definition an open dialog runs on: the current one when it started on it (or before
   * dialogs had versions), else the version it started on, made again from the stored data.
   * When that data is gone (damaged state), the current one, by step name, and the log says so.
   */
  of(record: OpenDialog, current: Defined, log: Logger): Defined {
    const { version } = record;
    if (version === undefined || current.version === undefined || version === current.version) return current;
    const known = this.made.get(version);
    if (known) return known;
    const stored = this.options.store.get<StoredVersion>(this.ns, version);
    const make = current.definition.versioned?.make;
    if (stored && make) {
      try {
        const definition = make(stored.spec);
        const defined: Defined = { plugin: current.plugin, name: current.name, definition, version };
        this.made.set(version, defined);
        return defined;
      } catch (err) {
        log.warn(
          { err, version },
          `the dialog "${current.name}" of plugin ${current.plugin}: the version this dialog started on (${version}) cannot be made again (${(err as Error)?.message ?? String(err)}); it goes on with the current one, by step name`,
        );
        return current;
      }
    }
    log.warn(
      { version },
      `the dialog "${current.name}" of plugin ${current.plugin}: the version this dialog started on (${version}) is not in the state any more; it goes on with the current one, by step name`,
    );
    return current;
  }

  /**
   * The bot starts running here with these dialogs: keeps the current versions' data, says
   * how many open dialogs each edit concerns, gives an open dialog opened before dialogs had
   * versions the current one (what it ran on until now), and removes the versions no open
   * dialog is on.
   */
  review(defined: Iterable<Defined>): void {
    const { store } = this.options;
    const byId = new Map<string, Defined>();
    for (const d of defined) {
      byId.set(id(d.plugin, d.name), d);
      if (d.version === undefined || store.get(this.ns, d.version)) continue;
      store.set<StoredVersion>(this.ns, d.version, {
        plugin: d.plugin,
        name: d.name,
        spec: d.definition.versioned!.spec,
      });
    }
    const earlier = new Map<string, number>();
    const closing = new Map<string, number>();
    const stepless = new Map<string, Set<string>>();
    const used = new Set<string>();
    for (const [key, record] of store.entries<ScopedRecord<OpenDialog>>(this.options.dialogs)) {
      for (const r of [record.v, record.was]) if (r?.version !== undefined) used.add(r.version);
      const open = record.v;
      if (!open) continue;
      const d = byId.get(id(open.plugin, open.name));
      if (!d) continue;
      if (d.version !== undefined && open.version === undefined) {
        // Opened before dialogs had versions: it ran on this definition until now.
        store.set<ScopedRecord<OpenDialog>>(this.options.dialogs, key, {
          ...record,
          v: { ...open, version: d.version },
        });
        used.add(d.version);
        continue;
      }
      const which = id(d.plugin, d.name);
      if (d.version !== undefined && open.version !== d.version) earlier.set(which, (earlier.get(which) ?? 0) + 1);
      if (d.version === undefined && !Object.hasOwn(d.definition.steps, open.step)) {
        closing.set(which, (closing.get(which) ?? 0) + 1);
        stepless.set(which, (stepless.get(which) ?? new Set()).add(open.step));
      }
    }
    for (const [version] of store.entries<StoredVersion>(this.ns))
      if (!used.has(version) && ![...byId.values()].some((d) => d.version === version)) store.delete(this.ns, version);
    this.say(byId, earlier, closing, stepless);
  }

  /** The log lines of {@link review}: one per dialog whose open dialogs an edit concerns. */
  private say(
    byId: ReadonlyMap<string, Defined>,
    earlier: ReadonlyMap<string, number>,
    closing: ReadonlyMap<string, number>,
    steps: ReadonlyMap<string, Set<string>>,
  ): void {
    const { log, file } = this.options;
    const where = file ? ` (${file})` : "";
    for (const [which, n] of earlier) {
      const d = byId.get(which)!;
      log.info(
        { plugin: d.plugin, dialog: d.name, openOnEarlier: n },
        `the dialog "${d.name}" of plugin ${d.plugin}${where} changed since ${plural(n, "open dialog", "open dialogs")} started: ${n === 1 ? "it finishes" : "they finish"} on the version they started with, and dialogs started from now on take the new one`,
      );
    }
    for (const [which, n] of closing) {
      const d = byId.get(which)!;
      const names = [...steps.get(which)!].map((s) => `"${s}"`).join(", ");
      log.warn(
        { plugin: d.plugin, dialog: d.name, openInMissingSteps: n },
        `the dialog "${d.name}" of plugin ${d.plugin} has no step ${names} any more, where ${plural(n, "open dialog waits", "open dialogs wait")}: each is closed at its user's next message (keep a step's name while dialogs may wait in it)`,
      );
    }
  }
}
