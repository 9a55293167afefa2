/**
 * Seeded randomness: a seed gives the same choices in the same order every time. The
 * sandbox's crowd draws its users, texts and actions from it (tests rely on that; a demo can
 * be replayed), and the moderation trainer its training order, so the same labels train the
 * same model, bit for bit.
 */

/** A source of pseudo-random choices. */
export interface Random {
  /** A number in [0, 1). */
  next(): number;
  /** A whole number in [0, n). */
  int(n: number): number;
  /** One item of a non-empty list. */
  pick<T>(items: readonly T[]): T;
  /** True with probability `p`. */
  chance(p: number): boolean;
  /** One key of `weights`, with probability proportional to its weight (weights > 0). */
  weighted<K extends string>(weights: Readonly<Partial<Record<K, number>>>): K;
}

/**
 * A seeded {@link Random} (mulberry32: small, fast, and good enough for picking texts; not
 * for anything secret).
 *
 * @example
 * ```ts
 * const rng = seededRandom(42);
 * rng.pick(["a", "b", "c"]); // the same letter for seed 42, every run
 * ```
 */
export function seededRandom(seed: number): Random {
  let state = Math.floor(seed) >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  const int = (n: number) => Math.floor(next() * n);
  return {
    next,
    int,
    pick(items) {
      if (items.length === 0) throw new RangeError("pick() needs at least one item");
      return items[int(items.length)]!;
    },
    chance: (p) => next() < p,
    weighted(weights) {
      const entries = Object.entries(weights).filter(
        (e): e is [string, number] => typeof e[1] === "number" && e[1] > 0,
      );
      if (entries.length === 0) throw new RangeError("weighted() needs at least one positive weight");
      let at = next() * entries.reduce((sum, [, w]) => sum + w, 0);
      for (const [key, w] of entries) {
        at -= w;
        if (at < 0) return key as never;
      }
      return entries[entries.length - 1]![0] as never;
    },
  };
}
