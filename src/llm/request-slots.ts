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
 */

/** The requests in flight to one model server from this process, by default. */
export const MODEL_PARALLEL = 4;

/** Gives a slot back; a second call does nothing. */
export type ReleaseSlot = () => void;

interface Waiter {
  limit: number;
  grant: () => void;
}

/** The slots of one model server; see the module comment. */
export class RequestSlots {
  private held = 0;
  private readonly waiting: Waiter[] = [];

  /** Requests in flight now (slots held). */
  get inFlight(): number {
    return this.held;
  }

  /** Writers waiting for a slot now. */
  get queued(): number {
    return this.waiting.length;
  }

  /**
   * Resolves with the slot once fewer than `limit` are held and every earlier caller has one;
   * rejects with `signal`'s reason if it aborts first (nothing is held then).
   */
  acquire(limit: number, signal: AbortSignal): Promise<ReleaseSlot> {
    if (signal.aborted) return Promise.reject(signal.reason);
    if (this.waiting.length === 0 && this.held < limit) return Promise.resolve(this.take());
    return new Promise<ReleaseSlot>((resolve, reject) => {
      const waiter: Waiter = {
        limit,
        grant: () => {
          signal.removeEventListener("abort", onAbort);
          resolve(this.take());
        },
      };
      const onAbort = () => {
        const at = this.waiting.indexOf(waiter);
        if (at >= 0) this.waiting.splice(at, 1);
        // The first in line may have been waiting behind this one.
        this.pump();
        reject(signal.reason);
      };
      signal.addEventListener("abort", onAbort, { once: true });
      this.waiting.push(waiter);
    });
  }

  private take(): ReleaseSlot {
    this.held++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.held--;
      this.pump();
    };
  }

  /** Grants slots to the first in line while their limits allow. */
  private pump(): void {
    while (this.waiting.length > 0 && this.held < this.waiting[0]!.limit) this.waiting.shift()!.grant();
  }
}

const servers = new Map<string, RequestSlots>();

/**
 * The process's slots for the model server at `endpoint` (the chat URL requests go to): every
 * bot of the process that asks that server shares them.
 */
export function modelSlots(endpoint: string): RequestSlots {
  let slots = servers.get(endpoint);
  if (!slots) {
    slots = new RequestSlots();
    servers.set(endpoint, slots);
  }
  return slots;
}
