/**
 * Who may write a bot's values in the Redis store (./store.ts): only the process that holds
 * the bot's lease (./bot-claims.ts). A bot's hash is read when the process starts running the
 * bot and forgotten when it stops; every write to it is a fenced write carrying the lease's
 * token (./leases.ts), so a process that lost the lease (another took the bot over) has its
 * writes refused, nothing of them applied.
 *
 * A refusal is checked first ({@link Fencing.verify}): a lease that only ran out while Redis
 * hung, with nobody claiming it since, is claimed again and the write goes again with it.
 * Otherwise the bot is lost here: nothing more of it is written, the claims stop running it,
 * and the store's `flushFor` rejects for it, which is what keeps its ledger from sending.
 */
import { keyError } from "./key-error.ts";
import { FencedError, type Lease } from "../fencing.ts";
import type { Logger } from "../log.ts";
import type { ShardPath } from "../store/shards.ts";
import type { Leases } from "./leases.ts";
import type { ShardOp } from "./store-sharding.ts";

/** Which lease fences each bot's writes (the process's bot claims provide it). */
export interface Fencing {
  leases: Leases;
  /**
   * The lease this process holds for `bot` now, or `undefined` when it does not hold the bot.
   * May wait while the claims are being checked again (after Redis came back).
   */
  current(bot: string): Promise<Lease | undefined>;
  /**
   * A write of `bot` carrying `lease` was refused by its fence: the lease this process holds
   * for it now, checked with Redis (claimed again if it ran out while nobody else claimed it,
   * as after Redis hung), or `undefined` when another process holds it. Without it, the
   * refusal stands.
   */
  verify?(bot: string, lease: Lease): Promise<Lease | undefined>;
  /** A write of `bot` was refused: another process holds it now. Stop running it here. */
  refused(bot: string): void;
}

/** How many times a bot's write refused by its fence goes again with a lease claimed anew before the bot is given up. */
const FENCED_RETRIES = 3;

/** The bots held here and the fences of their writes; see the module comment. */
export class BotFences {
  /** Bots held here, by their shard. */
  private readonly held = new Map<ShardPath, string>();
  /** Bots whose writes were refused since they were last held. */
  private readonly lost = new Set<string>();
  /** Bots whose refused write is being checked ({@link Fencing.verify}): their writes wait for the answer. */
  private readonly verifying = new Map<string, Promise<void>>();

  constructor(
    readonly fencing: Fencing,
    private readonly log: Logger,
  ) {}

  /** `bot` runs here from now on (its values just read). */
  hold(shard: ShardPath, bot: string): void {
    this.lost.delete(bot);
    this.held.set(shard, bot);
  }

  /** `bot` no longer runs here. */
  drop(shard: ShardPath): void {
    this.held.delete(shard);
  }

  /** The bot of a shard held here (lost or not). */
  botOf(shard: ShardPath): string | undefined {
    return this.held.get(shard);
  }

  /** Whether a shard's bot is held here and not lost: its writes may go. */
  writable(shard: ShardPath): boolean {
    const bot = this.held.get(shard);
    return bot !== undefined && !this.lost.has(bot);
  }

  /** A write of `bot` was refused by its lease's fence: nothing more of it is written here, and it stops running here. */
  refuse(bot: string): void {
    if (this.lost.has(bot)) return;
    this.lost.add(bot);
    this.log.warn(
      { bot },
      `bot ${bot}: another process runs it now (its lease was lost); this process's writes for it are refused`,
    );
    this.fencing.refused(bot);
  }

  /**
   * A write of `bot` carrying `lease` was refused: asks the claims whether the bot is still
   * this process's (its lease may only have run out while Redis hung) and refuses the bot's
   * writes from now on only when it is not. Resolves once decided.
   */
  refusedWith(bot: string, lease: Lease): Promise<void> {
    const running = this.verifying.get(bot);
    if (running) return running;
    if (!this.fencing.verify) {
      this.refuse(bot);
      return Promise.resolve();
    }
    const check = this.fencing
      .verify(bot, lease)
      .then(
        (now) => {
          // The same claim may be live again (its holder's heartbeat had only run out): the
          // write goes again with it, a few times at most (FENCED_RETRIES).
          if (!now) this.refuse(bot);
        },
        () => this.refuse(bot),
      )
      .finally(() => this.verifying.delete(bot));
    this.verifying.set(bot, check);
    return check;
  }

  /** The lease fencing `bot`'s writes now, once any refused write of it has been checked. */
  async leaseOf(bot: string): Promise<Lease | undefined> {
    for (let check = this.verifying.get(bot); check; check = this.verifying.get(bot)) await check;
    return this.lost.has(bot) ? undefined : await this.fencing.current(bot);
  }

  /** The refusal of a write for a bot not held here (or lost). */
  async notHeld(shard: ShardPath): Promise<FencedError> {
    const bot = this.held.get(shard);
    const lease = bot ? await this.fencing.current(bot) : undefined;
    return new FencedError(lease ?? { name: `bot:${bot ?? shard}`, owner: "this process", token: 0 });
  }

  /**
   * The fence a staged write of a held bot's shard carries: its lease, the lease's key and
   * value, and its holder's heartbeat. Rejects with a {@link FencedError} when the bot is not held here (or was lost).
   */
  async fenceOf(
    shard: ShardPath,
  ): Promise<{ bot: string; lease: Lease; key: string; value: string; heartbeat: string }> {
    const bot = this.held.get(shard);
    const lease = bot && !this.lost.has(bot) ? await this.leaseOf(bot) : undefined;
    if (!bot || !lease || this.lost.has(bot) || this.held.get(shard) !== bot) throw await this.notHeld(shard);
    const { leases } = this.fencing;
    return {
      bot,
      lease,
      key: leases.key(lease.name),
      value: leases.value(lease),
      heartbeat: leases.heartbeatKey(lease),
    };
  }

  /**
   * Writes `ops` of a held bot's shard fenced by its lease; a write refused by the fence goes
   * again with the lease the claims hold then (a few times at most), or the bot is lost. A
   * shard not held here (or lost) is not written. Resolves with the round trips made.
   */
  async write(shard: ShardPath, ops: readonly ShardOp[]): Promise<number> {
    const bot = this.held.get(shard);
    if (!bot || this.lost.has(bot)) return 0;
    let writes = 0;
    for (let attempt = 0; ; attempt++) {
      const lease = await this.leaseOf(bot);
      if (!lease || this.held.get(shard) !== bot) return writes;
      try {
        writes++;
        await this.fencing.leases.fenced(lease, ops);
        return writes;
      } catch (err) {
        if (!(err instanceof FencedError)) throw keyError(err, String(ops[0]?.[1] ?? ""));
        // The claims may claim it again (its lease ran out while Redis hung, nobody took it):
        // then the write goes again with the new lease; a few times at most.
        if (attempt >= FENCED_RETRIES) {
          this.refuse(bot);
          return writes;
        }
        await this.refusedWith(bot, lease);
      }
    }
  }
}
