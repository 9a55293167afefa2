/**
 * How far `bot start` lets its heap grow past what it keeps. V8 sets the next collection's
 * limit at the live heap times a factor it picks from how fast the program allocates, up to
 * 4 on a machine with memory to spare; a process that builds thousands of bots at start
 * allocates fast, so its limit went to 2-3x what it kept and the heap grew to it: in the
 * 20,000-account bench (four processes, 5,000 bots running in each, ~125 MB kept) each
 * process's heap reached 256-292 MB and its RSS 331-363 MB; with a fixed growth of
 * {@link HEAP_GROWING_PERCENT} % past the live heap, 167-179 MB and 235-251 MB, with no more
 * CPU when idle. The price is more frequent collections of a heap that is mostly long lived
 * (bots, their state), marked beside the program on V8's own threads: at 100,000 accounts
 * (four processes of 25,000 bots, two cores) a growth of 30 % cost each process ~18 CPU-s
 * more of its start and tripled its idle CPU; 60 % is the measured middle (one run each of
 * the 100,000 bench: every bot answering 143 s at 30 %, 116 s at 60 %, 100 s with V8's own;
 * memory in all 3.14, 3.28 and 4.09 GB; idle CPU of the four 24.7, 13.5 and 12.4 % of a core).
 *
 * Only for a process whose state is shared (`--state redis…`), where many thousands of bots
 * share a few processes and memory is what sizes the deployment. A process with its state in
 * a directory keeps V8's own choice: measured on the hosting bench (10,000 bots, one process,
 * quiet machine), the fixed growth cost its reply p99 (42 ms without, 76-79 ms with) for
 * ~105 MB less RSS after a flood, and that case is not to get slower.
 *
 * Set from inside the process (`v8.setFlagsFromString`: V8 reads it at each collection), as
 * `bot start` has no other way to pass V8 a flag (NODE_OPTIONS does not take this one); a
 * `--heap-growing-percent` given to node itself is left as it is.
 */
import { setFlagsFromString } from "node:v8";

/** The heap's growth past its live size before the next full collection, in percent. */
export const HEAP_GROWING_PERCENT = 60;

/**
 * Sets the heap's growth (see the module comment) for a process sharing its state, unless node
 * was given one; returns the flag set, if any.
 */
export function keepHeapNearLive(
  process_: { shared: boolean },
  execArgv: readonly string[] = process.execArgv,
  setFlags: (flags: string) => void = setFlagsFromString,
): string | undefined {
  if (!process_.shared) return undefined;
  if (execArgv.some((arg) => /^--heap[-_]growing[-_]percent\b/.test(arg))) return undefined;
  const flag = `--heap-growing-percent=${HEAP_GROWING_PERCENT}`;
  setFlags(flag);
  return flag;
}
