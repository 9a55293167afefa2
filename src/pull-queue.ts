/**
 * A queue its one consumer pulls from: a lower layer puts items in and returns, and the layer
 * above takes them when it is ready, so no lower layer calls up into a higher one to hand
 * something over. A take waits on a promise the next item resolves: nothing runs while the
 * queue is empty, and what was put in during one turn comes out as one batch.
 */
export class PullQueue<T> {
  private items: T[] = [];
  private waiter: (() => void) | undefined;
  private closed = false;

  push(item: T): void {
    this.items.push(item);
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.();
  }

  /** Items waiting to be taken. */
  get size(): number {
    return this.items.length;
  }

  /**
   * Everything put in since the last take; waits until there is some. `undefined` once the
   * queue is closed and empty (what was put in before it closed is still taken). One
   * consumer at a time.
   */
  async take(): Promise<T[] | undefined> {
    if (this.waiter) throw new Error("a pull queue has one consumer at a time");
    while (this.items.length === 0) {
      if (this.closed) return undefined;
      await new Promise<void>((resolve) => (this.waiter = resolve));
    }
    const items = this.items;
    this.items = [];
    return items;
  }

  /** Nothing more comes: a waiting take ends. */
  close(): void {
    this.closed = true;
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.();
  }
}
