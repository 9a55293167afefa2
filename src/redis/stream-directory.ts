/**
 * An app's directory of bots (`<prefix>handoff:<app>:bots`, ./shared-streams.ts) as the
 * process holding the app's stream reads it: whole when its hub starts, then only the entries
 * that changed since. Every publish and removal moves the directory's version and records the
 * bot with that version in the directory's changes (a sorted set, a member per bot), so a
 * reading asks for the bots changed since the version it read last and reads just those.
 *
 * Why: the holder read the whole directory at each change (25,000 entries of an app at 100,000
 * accounts, some 2.5 MB), parsed every entry and compared JSON signatures of all of them, at
 * each renewal while a start published its bots: about a second of the holder's event loop
 * for each app and change on a loaded machine, all of it to learn of a few hundred bots. The
 * entries of bots that did not change are kept as the same objects, so the hub's routing and
 * mention plan recognise them by identity.
 *
 * When the changes cannot be trusted (the version moved and no change was recorded, as when a
 * process of an older postbot published, or the count of entries differs from the directory's
 * length), the next reading is whole again.
 */
import type { Redis } from "./connect.ts";
import type { MentionBot } from "../triggers/stream/routing.ts";
import type { BotRules } from "../triggers/stream/rules.ts";

/** What the directory keeps of a bot, for whichever process runs the app's hub. */
export interface DirectoryBot {
  userId: string;
  username: string;
  /** Its own stream rules (empty: none). */
  rules: BotRules["rules"];
  /** Whether its mentions come through the stream. */
  mentions: boolean;
}

/** The directory's keys: its entries, its version, and its changes (same hash slot). */
export interface DirectoryKeys {
  directory: string;
  version: string;
  changes: string;
}

/** A bot of the app, as its entry reads: what it asks of the hub, made once per entry. */
interface Entry {
  json: string;
  rules: BotRules | undefined;
  mention: MentionBot | undefined;
}

/** A bot whose entry changed in a reading: its entry before (none: it came) and now (none: it went). */
export interface DirectoryChange {
  bot: string;
  before: Entry | undefined;
  after: Entry | undefined;
}

/** One app's directory as the holder knows it; see the module comment. */
export class DirectoryView {
  /** Every entry read, by bot (bots this process does not know among them). */
  private readonly raw = new Map<string, string>();
  /** The entries of the app's bots this process knows, sorted by bot. */
  private readonly entries = new Map<string, Entry>();
  private sorted: string[] = [];
  /** The version read up to; undefined: the next reading is whole. */
  private version: number | undefined;

  constructor(
    private readonly redis: Redis,
    private readonly keys: DirectoryKeys,
    /** Whether a bot of the directory is one of this app's that this process knows. */
    private readonly known: (bot: string) => boolean,
  ) {}

  /** Whether every entry read is of a bot this process knows (else they are looked at again at each reading). */
  complete(): boolean {
    return this.raw.size === this.entries.size;
  }

  /** Whether the last reading found the bot's entry (known to this process or not). */
  lists(bot: string): boolean {
    return this.raw.has(bot);
  }

  /** How many bots of the app this process knows are in the directory. */
  size(): number {
    return this.entries.size;
  }

  /**
   * Reads what changed since the last reading (everything the first time, or when the changes
   * cannot be trusted). Undefined when the version did not move and nothing is left to look at.
   */
  async read(): Promise<DirectoryChange[] | undefined> {
    // The first reading is whole: asked with the version, not one round trip after it (a
    // new hub's start after a take-over waits for each, behind the survivor's busy loop).
    if (this.version === undefined) {
      const [version, read] = await Promise.all([this.redis.get(this.keys.version), this.whole()]);
      this.version = version === null ? 0 : Number(version);
      return this.apply(read);
    }
    const [version, length] = await Promise.all([
      this.redis.get(this.keys.version),
      this.redis.hlen(this.keys.directory),
    ]);
    const now = version === null ? 0 : Number(version);
    const same = this.version === now && length === this.raw.size;
    if (same && this.complete()) return undefined;
    // The entries' count differs with the version the same: the changes missed one, read it all.
    const from = same || this.version !== now ? this.version : undefined;
    const read = (from !== undefined ? await this.since(from, now) : undefined) ?? (await this.whole());
    this.version = now;
    return this.apply(read);
  }

  /** The bots' own rules, in the order of their names. */
  wants(): BotRules[] {
    const wants: BotRules[] = [];
    for (const bot of this.sorted) {
      const rules = this.entries.get(bot)!.rules;
      if (rules) wants.push(rules);
    }
    return wants;
  }

  /** The bots whose mentions come through the stream, in the order of their names. */
  mentionBots(): MentionBot[] {
    const bots: MentionBot[] = [];
    for (const bot of this.sorted) {
      const mention = this.entries.get(bot)!.mention;
      if (mention) bots.push(mention);
    }
    return bots;
  }

  /** The whole directory: every entry read now, and every entry known before that is gone. */
  private async whole(): Promise<Map<string, string | null>> {
    const raw = await this.redis.hgetall(this.keys.directory);
    const read = new Map<string, string | null>(Object.entries(raw));
    for (const bot of this.raw.keys()) if (!read.has(bot)) read.set(bot, null);
    return read;
  }

  /** The entries of the bots changed after version `from` (null: gone); undefined when the changes cannot be trusted. */
  private async since(from: number, to: number): Promise<Map<string, string | null> | undefined> {
    const bots = await this.redis.zrangebyscore(this.keys.changes, `(${from}`, "+inf");
    if (bots.length === 0 && to !== from) return undefined;
    const read = new Map<string, string | null>();
    if (bots.length > 0) {
      const jsons = await this.redis.hmget(this.keys.directory, ...bots);
      for (const [i, bot] of bots.entries()) read.set(bot, jsons[i] ?? null);
    }
    // Entries of bots this process did not know at the last reading: it may know them now.
    for (const bot of this.raw.keys()) if (!this.entries.has(bot) && !read.has(bot)) read.set(bot, this.raw.get(bot)!);
    return read;
  }

  /** Takes a reading's entries: what changed for the bots this process knows. */
  private apply(read: ReadonlyMap<string, string | null>): DirectoryChange[] {
    const changes: DirectoryChange[] = [];
    let came = false;
    for (const [bot, json] of read) {
      if (json === null) this.raw.delete(bot);
      else this.raw.set(bot, json);
      const before = this.entries.get(bot);
      if (before && before.json === json) continue;
      const after = json !== null && this.known(bot) ? entryOf(bot, json) : undefined;
      if (!before && !after) continue;
      if (after) this.entries.set(bot, after);
      else this.entries.delete(bot);
      came ||= !before;
      changes.push({ bot, before, after });
    }
    if (came) this.sorted = [...this.entries.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    else if (changes.some((c) => !c.after)) this.sorted = this.sorted.filter((bot) => this.entries.has(bot));
    return changes;
  }
}

/** What a directory entry asks of the hub. */
function entryOf(bot: string, json: string): Entry {
  const entry = JSON.parse(json) as DirectoryBot;
  return {
    json,
    rules: entry.rules.length > 0 ? { bot, userId: entry.userId, rules: entry.rules } : undefined,
    mention: entry.mentions ? { bot, userId: entry.userId, username: entry.username } : undefined,
  };
}
