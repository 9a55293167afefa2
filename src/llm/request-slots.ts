/**
 * How many requests a process has in flight to one model server, and the wait for a free
 * one: `llm-reply`'s `parallel` (default {@link MODEL_PARALLEL}).
 *
 * Two reasons for a bound. A local model server (Ollama, llama.cpp) works on 1-4 requests at a
 * time and queues the rest, so more in flight only lengthen each request's wait there until it
 * runs into its timeout. And it bounds what a crash costs the model: a writer holds its slot
 * from before its request leaves until its answer is recorded durably with the reply's ledger
 * entry (`WriteText`'s `recorded`, src/actions/steps/text-writer.ts), so at any moment at most
 * `parallel` answers of a server have come back (or are on their way) without being durable,
 * and a kill -9 makes the next start ask that server again for at most that many replies,
 * however many mentions came at once. Without it, a hundred mentions asked a hundred requests
 * at once, and a kill while their answers were being recorded (each record waits for a journal
 * append, tens of ms on a busy disk) asked again for up to all of them.
 *
 * Slots are handed out in the order they were asked for. A writer with a smaller `parallel`
 * than the others of the same server waits until fewer than its own number are in flight; the
 * writers behind it wait for it (first come, first served).
 *
 * The process keeps a server's slots only while a request holds one or waits for one: the
 * last to give its slot back (or stop waiting) drops them, so a model URL no bot asks any more
 * (its bots removed by a fleet change, a bot file pointed elsewhere) costs nothing, and a
 * server's slots made again later start as empty as an idle one's are. Each slot and each
 * wait is counted for the bot it is for, so `bot status`, the status page and `/metrics` show
 * a bot's requests in flight and its replies waiting for a slot ({@link modelSlotUse}).
 */

/** The requests in flight to one model server from this process, by default. */
export const MODEL_PARALLEL = 4;

/** Gives a slot back; a second call does nothing. */
export type ReleaseSlot = () => void;

/** A bot's use of one model server's slots now, as `bot status` and `/metrics` show it. */
export interface ModelSlotUse {
  /** The server, as the bot file names it (its base URL, without any user or password in it). */
  server: string;
  /** The bot's requests in flight to it (slots held). */
  inFlight: number;
  /** The bot's replies waiting for one of its slots. */
  waiting: number;
}

interface Waiter {
  limit: number;
  bot: string;
  grant: () => void;
}

/** The slots of one model server; see the module comment. */
export class RequestSlots {
  private held = 0;
  private readonly waiting: Waiter[] = [];
  /** Slots held and waits, by bot (entries at zero removed). */
  private readonly heldBy = new Map<string, number>();
  private readonly waitingBy = new Map<string, number>();

  /**
   * @param server how the server is named where its use is shown (see {@link ModelSlotUse}).
   * @param onIdle called each time nothing holds or waits for a slot any more.
   */
  constructor(
    readonly server = "",
    private readonly onIdle?: (slots: RequestSlots) => void,
  ) {}

  /** Requests in flight now (slots held). */
  get inFlight(): number {
    return this.held;
  }

  /** Writers waiting for a slot now. */
  get queued(): number {
    return this.waiting.length;
  }

  /** Nothing holds a slot or waits for one. */
  get idle(): boolean {
    return this.held === 0 && this.waiting.length === 0;
  }

  /** `bot`'s use of these slots now (zeros when it has none). */
  useOf(bot: string): ModelSlotUse {
    return { server: this.server, inFlight: this.heldBy.get(bot) ?? 0, waiting: this.waitingBy.get(bot) ?? 0 };
  }

  /**
   * Resolves with the slot once fewer than `limit` are held and every earlier caller has one;
   * rejects with `signal`'s reason if it aborts first (nothing is held then). `bot` is whom the
   * slot and the wait are counted for.
   */
  acquire(limit: number, signal: AbortSignal, bot = ""): Promise<ReleaseSlot> {
    if (signal.aborted) {
      if (this.idle) this.onIdle?.(this);
      return Promise.reject(signal.reason);
    }
    if (this.waiting.length === 0 && this.held < limit) return Promise.resolve(this.take(bot));
    return new Promise<ReleaseSlot>((resolve, reject) => {
      const waiter: Waiter = {
        limit,
        bot,
        grant: () => {
          signal.removeEventListener("abort", onAbort);
          resolve(this.take(bot));
        },
      };
      const onAbort = () => {
        const at = this.waiting.indexOf(waiter);
        if (at >= 0) {
          this.waiting.splice(at, 1);
          count(this.waitingBy, bot, -1);
        }
        // The first in line may have been waiting behind this one.
        this.pump();
        if (this.idle) this.onIdle?.(this);
        reject(signal.reason);
      };
      signal.addEventListener("abort", onAbort, { once: true });
      this.waiting.push(waiter);
      count(this.waitingBy, bot, 1);
    });
  }

  private take(bot: string): ReleaseSlot {
    this.held++;
    count(this.heldBy, bot, 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.held--;
      count(this.heldBy, bot, -1);
      this.pump();
      if (this.idle) this.onIdle?.(this);
    };
  }

  /** Grants slots to the first in line while their limits allow. */
  private pump(): void {
    while (this.waiting.length > 0 && this.held < this.waiting[0]!.limit) {
      const next = this.waiting.shift()!;
      count(this.waitingBy, next.bot, -1);
      next.grant();
    }
  }
}

/** Adds `by` to `bot`'s count, removing it at zero. */
function count(counts: Map<string, number>, bot: string, by: number): void {
  const n = (counts.get(bot) ?? 0) + by;
  if (n > 0) counts.set(bot, n);
  else counts.delete(bot);
}

/** The slots of each model server a request holds or waits for now, by the chat URL requests go to. */
const servers = new Map<string, RequestSlots>();

/** A URL as it may be shown: without the user and password it may carry. */
function shown(url: string): string {
  try {
    const u = new URL(url);
    if (!u.username && !u.password) return url;
    u.username = "";
    u.password = "";
    return u.toString();
  } catch {
    return url;
  }
}

/**
 * The process's slots for the model server at `endpoint` (the chat URL requests go to): every
 * bot of the process that asks that server shares them. `server` names it where its use is
 * shown (default: `endpoint`; a user or password in it is never shown). Kept while a request
 * holds or waits for one of them (see the module comment): take one right away.
 */
export function modelSlots(endpoint: string, server: string = endpoint): RequestSlots {
  let slots = servers.get(endpoint);
  if (!slots) {
    slots = new RequestSlots(shown(server), (idle) => {
      if (servers.get(endpoint) === idle) servers.delete(endpoint);
    });
    servers.set(endpoint, slots);
  }
  return slots;
}

/** The model servers (chat URLs) the process keeps slots for now: those a request holds or waits for. */
export function keptModelServers(): string[] {
  return [...servers.keys()];
}

/** `bot`'s requests in flight and replies waiting, per model server it has any with (empty: none). */
export function modelSlotUse(bot: string): ModelSlotUse[] {
  const use: ModelSlotUse[] = [];
  for (const slots of servers.values()) {
    const mine = slots.useOf(bot);
    if (mine.inFlight > 0 || mine.waiting > 0) use.push(mine);
  }
  return use;
}
