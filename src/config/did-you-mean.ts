/**
 * "Did you mean" suggestions for misspelt keys and plugin names: the closest candidate by
 * edit distance, when it is close enough to be a plausible typo.
 */

/** Levenshtein distance with adjacent transpositions counting as one edit ("rpely" → "reply"). */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) =>
    Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * The candidate closest to `word` (case-insensitively), if at most a third of its letters
 * (and at least one) would have to change; otherwise undefined, because a far-fetched
 * suggestion misleads more than none.
 *
 * @example
 * ```ts
 * didYouMean("mentoins", ["mentions", "stream", "schedule"]); // "mentions"
 * didYouMean("weather", ["mentions", "stream", "schedule"]); // undefined
 * ```
 */
export function didYouMean(word: string, candidates: readonly string[]): string | undefined {
  const lower = word.toLowerCase();
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const distance = editDistance(lower, candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  const allowed = Math.max(1, Math.floor(word.length / 3));
  return best !== undefined && bestDistance <= allowed ? best : undefined;
}
