import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { createClassifier, WEIGHTS } from "../../src/moderation/index.ts";
import { loadModel, modelText, shippedModel, type ModelFile } from "../../src/moderation/model.ts";
import { normalize } from "../../src/moderation/normalize.ts";
import { FEATURE_BITS, featureClustersId } from "../../src/moderation/features.ts";
import {
  fingerprintDifferences,
  fingerprintedData,
  fingerprintOf,
  trainingFingerprint,
} from "../../src/moderation/fingerprint.ts";
import { assignFolds, chooseCut, crossValidate, repeatedCrossValidate } from "../../scripts/moderation-trainer.ts";
import {
  DEFAULT_TRAIN_OPTIONS,
  probability,
  toModelFile,
  train,
  vectorise,
  type Example,
} from "../../src/moderation/training/trainer.ts";
import { groupTexts } from "../../scripts/moderation-groups.ts";

const withModel = createClassifier();
const rulesAlone = createClassifier({}, null);

describe("the trained abuse model in the classifier", () => {
  it("hides abuse that no rule finds, as the hit model:abuse", () => {
    // Threats, harassment and doxxing with no word a phrase rule lists.
    for (const text of [
      "lovely family you have, shame if they found out where you live",
      "everyone go fill her mentions",
      "your daughter walks home alone doesn't she",
    ]) {
      expect(rulesAlone.classify(text).abusive, text).toBe(false);
      const verdict = withModel.classify(text);
      expect(verdict, text).toMatchObject({
        abusive: true,
        score: WEIGHTS.model,
        rules: [{ rule: "model:abuse", match: text, weight: WEIGHTS.model }],
      });
    }
  });

  it("reads each sentence of a long reply too, so harmless sentences around abuse do not dilute it", () => {
    const abuse = "lovely family you have, shame if they found out where you live.";
    const long = `Great thread, I learned a lot about the history of the canal and the old mills along it. Anyway, ${abuse}`;
    expect(rulesAlone.classify(long).abusive).toBe(false);
    expect(withModel.classify(long).rules.map((r) => r.rule)).toEqual(["model:abuse"]);
    // The same length of harmless text stays harmless.
    const harmless =
      "Thanks for the update on the train times, the 7:42 has been late all week and the app never says why. Really useful bot, keep it up.";
    expect(withModel.classify(harmless).abusive).toBe(false);
  });

  it("leaves swearing for emphasis, warm replies and look-alike words alone", () => {
    for (const text of [
      "this is fucking brilliant, well done",
      "holy shit you did it",
      "you're so fucking talented",
      "i'll be at the station at six, see you there",
      "the sunset over scunthorpe was gorgeous",
    ]) {
      expect(withModel.classify(text), text).toMatchObject({ abusive: false });
      expect(
        withModel.classify(text).rules.map((r) => r.rule),
        text,
      ).not.toContain("model:abuse");
    }
  });

  it("is asked only where no rule but swearing fired, so a rule's verdict and a bot's threshold mean what they did", () => {
    expect(withModel.classify("you're a fucking idiot").rules.map((r) => r.rule)).toEqual([
      "insult:idiot",
      "profanity:fuck",
    ]);
    // Swearing plus what the model finds: both count, like swearing beside an insult.
    const sworn = withModel.classify("everyone go fill her fucking mentions");
    expect(sworn.rules.map((r) => r.rule).sort()).toEqual(["model:abuse", "profanity:fuck"]);
    expect(sworn.score).toBe(0.79);
  });

  it("does not read abuse quoted to report it, as the rules do not", () => {
    const quoted = "he replied 'i know which gym you go to and when you leave' and got suspended";
    expect(modelText(quoted)).toBe("he replied quote and got suspended");
    expect(modelText("i know which gym you go to")).toBe("i know which gym you go to");
    for (const text of [quoted, "got a DM saying 'everyone go flood her replies', blocked and reported"]) {
      expect(withModel.classify(text), text).toEqual({ abusive: false, score: 0, rules: [] });
    }
    // Quoting with no word that reports or rejects it is no disguise.
    expect(withModel.classify("'everyone go fill her mentions'").rules.map((r) => r.rule)).toEqual(["model:abuse"]);
  });

  it("is turned off for a bot by allowing model:abuse", () => {
    const text = "everyone go fill her mentions";
    expect(createClassifier({ allow: ["model:abuse"] }).classify(text)).toEqual({
      abusive: false,
      score: 0,
      rules: [],
    });
  });

  it("ships as data that says how it was made, with a cut chosen by cross-validation", () => {
    const file = JSON.parse(
      readFileSync(new URL("../../src/moderation/model-weights.json", import.meta.url), "utf8"),
    ) as ModelFile;
    expect(file.generated).toMatch(/npm run train:moderation/);
    expect(file.cut).toBeGreaterThan(0);
    expect(file.cut).toBeLessThan(1);
    expect(shippedModel().cut).toBe(file.cut);
    expect(file.measured).toMatchObject({ crossValidated: { folds: 5 } });
    // Never trained on a held-out batch: those are the honest measurements.
    expect((file.measured as { trainedOn: string[] }).trainedOn.filter((f) => f.startsWith("heldout-"))).toEqual([]);
  });

  it("refuses a weights file written for other features or other word clusters, saying how to write it again", () => {
    expect(() =>
      loadModel(
        { generated: "", bits: 16, wordClusters: featureClustersId(), bias: 0, cut: 0.5, buckets: [], weights: [] },
        "model-weights.json",
      ),
    ).toThrow(/model-weights\.json: written for 16-bit features.*npm run train:moderation/);
    // Weights are for one clustering of words: after `npm run gen:word-clusters` they must be retrained.
    expect(() =>
      loadModel(
        {
          generated: "",
          bits: FEATURE_BITS,
          wordClusters: "0123456789abcdef",
          bias: 0,
          cut: 0.5,
          buckets: [],
          weights: [],
        },
        "model-weights.json",
      ),
    ).toThrow(
      /model-weights\.json: trained with word clusters "0123456789abcdef", but word-clusters\.json holds ".+"\. Run `npm run train:moderation`/,
    );
    expect(
      JSON.parse(readFileSync(new URL("../../src/moderation/model-weights.json", import.meta.url), "utf8"))
        .wordClusters,
    ).toBe(featureClustersId());
  });
});

describe("the model's fingerprint of the rules, word lists and features it was trained behind", () => {
  const file = (fingerprint: ModelFile["fingerprint"]): ModelFile => ({
    generated: "",
    bits: FEATURE_BITS,
    wordClusters: featureClustersId(),
    ...(fingerprint === undefined ? {} : { fingerprint }),
    bias: 0,
    cut: 0.5,
    buckets: [],
    weights: [],
  });
  const here = trainingFingerprint();

  it("is recorded in the shipped weights, equal to this tree's", () => {
    const shipped = JSON.parse(
      readFileSync(new URL("../../src/moderation/model-weights.json", import.meta.url), "utf8"),
    ) as ModelFile;
    expect(shipped.fingerprint).toEqual(here);
    for (const part of Object.values(here)) expect(part).toMatch(/^[0-9a-f]{16}$/);
  });

  it("moves with a rule's pattern, a word of a list or a feature, and with nothing else", () => {
    const data = fingerprintedData();
    expect(fingerprintOf(data)).toEqual(here);
    const [first, ...others] = data.rules.phrase;
    const changed = fingerprintOf({
      ...data,
      rules: { ...data.rules, phrase: [[first![0], `${first![1]}|new words`], ...others] },
    });
    expect(fingerprintDifferences(changed, here)).toEqual(["rules"]);
    const renamed = fingerprintOf({
      ...data,
      rules: { ...data.rules, phrase: [["threat:new/rule", first![1]], ...others] },
    });
    expect(fingerprintDifferences(renamed, here)).toEqual(["rules"]);
    const listed = fingerprintOf({ ...data, vocabulary: { ...(data.vocabulary as object), extra: ["numpty"] } });
    expect(fingerprintDifferences(listed, here)).toEqual(["vocabulary"]);
    const featured = fingerprintOf({ ...data, features: { ...(data.features as object), bits: 17 } });
    expect(fingerprintDifferences(featured, here)).toEqual(["features"]);
  });

  it("refuses weights trained behind other rules, word lists or features, or with no fingerprint, saying to retrain", () => {
    expect(() => loadModel(file(here), "model-weights.json")).not.toThrow();
    expect(() => loadModel(file({ ...here, rules: "0123456789abcdef" }), "model-weights.json")).toThrow(
      new RegExp(
        `^model-weights\\.json: trained behind other rules than this tree's: rules 0123456789abcdef \\(here ${here.rules}\\)\\..*` +
          "Run `npm run train:moderation` to train it again",
      ),
    );
    expect(() =>
      loadModel(file({ ...here, vocabulary: "0123456789abcdef", features: "fedcba9876543210" }), "model-weights.json"),
    ).toThrow(/trained behind other vocabulary and features than this tree's.*npm run train:moderation/);
    expect(() => loadModel(file(undefined), "model-weights.json")).toThrow(
      /^model-weights\.json: has no fingerprint of the rules, word lists and features it was trained behind.*Run `npm run train:moderation`/,
    );
  });
});

describe("training the abuse model", () => {
  const tiny: Example[] = [
    { text: "i know where you live", abusive: true },
    { text: "you worthless idiot", abusive: true },
    { text: "log off forever, nobody wants you", abusive: true },
    { text: "send me pics now", abusive: true },
    { text: "i love where you live, so green", abusive: false },
    { text: "you absolute legend", abusive: false },
    { text: "log the bug and we'll fix it", abusive: false },
    { text: "send me the slides please", abusive: false },
  ];
  const options = { ...DEFAULT_TRAIN_OPTIONS, epochs: 20 };

  it("gives the same weights every time for the same data and seed", () => {
    const first = train(tiny, options);
    const second = train(tiny, options);
    expect(second.bias).toBe(first.bias);
    expect(Buffer.from(second.weights.buffer).equals(Buffer.from(first.weights.buffer))).toBe(true);
    // The seed is what fixes the order: another seed gives other weights.
    const reseeded = train(tiny, { ...options, seed: options.seed + 1 });
    expect(Buffer.from(reseeded.weights.buffer).equals(Buffer.from(first.weights.buffer))).toBe(false);
  });

  it("learns its examples, and the stored file reads back as the same model", () => {
    const model = train(tiny, options);
    for (const e of tiny) expect(probability(model, vectorise(e.text)) >= 0.5, e.text).toBe(e.abusive);
    const loaded = loadModel(toModelFile(model, 0.5, 0, "test", undefined));
    for (const e of tiny) {
      expect(loaded.probability(normalize(e.text).collapsed.text), e.text).toBeCloseTo(
        probability(model, vectorise(e.text)),
        2,
      );
    }
  });

  it("keeps twins and texts on one sentence frame in one cross-validation fold", () => {
    const texts = [
      "we're coming to your house tonight",
      "we're coming to your house tonight for the party, bringing cake",
      "what a bunch of clowns",
      "what a bunch of legends",
      "the sunset over the harbour was lovely",
      "send me the slides please",
    ];
    const group = groupTexts(texts);
    expect(group[1]).toBe(group[0]);
    expect(group[3]).toBe(group[2]);
    expect(new Set(group).size).toBe(4);
    const examples = texts.map((text, i) => ({ text, abusive: i % 2 === 0 }));
    const fold = assignFolds(examples, 3, 1);
    expect(fold[1]).toBe(fold[0]);
    expect(fold[3]).toBe(fold[2]);
    expect(assignFolds(examples, 3, 1)).toEqual(fold);
  });

  it("repeats cross-validation with each seed and lays the repeats end to end, each in folds of its own", () => {
    const repeated = repeatedCrossValidate(tiny, 2, [3, 4], options);
    const first = crossValidate(tiny, 2, { ...options, seed: 3 });
    const second = crossValidate(tiny, 2, { ...options, seed: 4 });
    expect(repeated.scores).toEqual([...first.scores, ...second.scores]);
    expect(repeated.fold).toEqual([...first.fold, ...second.fold.map((f) => f + 2)]);
    // Another seed is another split or another training order: the repeats differ.
    expect(second.scores).not.toEqual(first.scores);
  });

  it("chooses the lowest cut whose pooled out-of-fold precision reaches the floor, and reports the folds' spread", () => {
    // Two folds of four texts; the rules find nothing, so the cut decides alone.
    const examples = [true, true, false, false, true, true, false, false].map((abusive, i) => ({
      text: String(i),
      abusive,
    }));
    const fold = [0, 0, 0, 0, 1, 1, 1, 1];
    const scores = [0.9, 0.8, 0.7, 0.1, 0.9, 0.6, 0.5, 0.2];
    const rules = scores.map(() => false);
    // At 0.71 both folds have precision 1; below, fold 0's harmless 0.7 is flagged.
    expect(chooseCut(scores, rules, examples, fold, 0.96)).toMatchObject({
      cut: 0.71,
      precision: 1,
      recall: 0.75,
      spread: 0,
    });
    // At 0.51 fold 0 has precision 2/3 and fold 1 has 1: pooled 0.8.
    const lower = chooseCut(scores, rules, examples, fold, 0.8);
    expect(lower).toMatchObject({ cut: 0.51, precision: 0.8, recall: 1, foldPrecision: [2 / 3, 1] });
    expect(lower.spread).toBeCloseTo(Math.SQRT1_2 / 3, 10);
  });
});
