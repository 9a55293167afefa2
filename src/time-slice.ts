/**
 * Long synchronous work cut into slices with a turn of the event loop between them. A
 * process hosting 10,000 bots has work that walks all of them (gathering their status,
 * writing the file of all their statuses); done in one piece, it holds every mention that
 * comes meanwhile, and that wait is the reply latency's tail. Sliced by the CPU's time rather
 * than by a count of items, so a slice stays short on a busy machine too. This is about the
 * event loop, not about what time it is: it reads the process's own timer, not the Clock.
 */

/** How long a slice may run before the event loop gets a turn (a few ms: a mention's reply is ~5-10 ms of work). */
export const SLICE_MS = 3;

/** A slicer: {@link due} says the slice has run its time, {@link next} gives the event loop its turn and starts a new one. */
export interface TimeSlicer {
  due(): boolean;
  next(): Promise<void>;
}

/**
 * Starts slicing work.
 *
 * @example
 * ```ts
 * const slice = timeSlicer();
 * for (const bot of bots) {
 *   if (slice.due()) await slice.next();
 *   save(bot);
 * }
 * ```
 */
export function timeSlicer(sliceMs = SLICE_MS): TimeSlicer {
  let began = performance.now();
  return {
    due: () => performance.now() - began >= sliceMs,
    async next() {
      await new Promise<void>((resolve) => setImmediate(resolve));
      began = performance.now();
    },
  };
}
