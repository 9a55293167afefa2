/**
 * Moderation that learns from its operator: a fresh state is taught labelled replies of a
 * kind the shipped model misses (put-downs in a gaming community's words, with harmless
 * gaming talk in the same words), trained, and measured on other replies of the same kind
 * and style, written apart from postbot's training data (test/fixtures/moderation-teach,
 * sealed before anything was scored). Then a bot started on that state hides with the
 * taught model, and says so.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import moderate from "../../plugins/moderate.ts";
import { sandboxUsername } from "../../src/hosting/provision.ts";
import { createClassifier } from "../../src/moderation/index.ts";
import { parseLabelFile, type LabelRow } from "../../src/moderation/training/label-file.ts";
import { keepLabels, operatorLabels } from "../../src/moderation/training/labels.ts";
import { scoreLabels } from "../../src/moderation/training/score-labels.ts";
import {
  forgetTaughtModel,
  keepTaughtModel,
  taughtModel,
  trainTaught,
  type TaughtModel,
} from "../../src/moderation/training/taught.ts";
import { createMemoryStore, type Store } from "../../src/store/store.ts";
import { createTestBed, type TestBed } from "../../src/testing.ts";
import { captureLogs } from "../helpers/log.ts";

const DIR = new URL("../fixtures/moderation-teach/", import.meta.url);
const read = (file: string): readonly LabelRow[] => parseLabelFile(file, readFileSync(new URL(file, DIR), "utf8")).rows;

const taughtRows = read("gaming-taught.tsv");
const measured = read("gaming-measured.tsv");
const shipped = createClassifier();

/** The fresh state, taught and trained once for the file (training takes a few seconds). */
let state: Store;
let model: TaughtModel;
beforeAll(() => {
  state = createMemoryStore();
  keepLabels(
    state,
    taughtRows.map((r) => ({
      text: r.text,
      abusive: r.abusive,
      by: "cli:op",
      at: 1,
      from: { file: "t", line: r.line },
    })),
  );
  model = trainTaught(operatorLabels(state), () => 1_000);
  keepTaughtModel(state, model);
}, 120_000);

const taughtClassifier = () => {
  const use = taughtModel(state);
  if (!use || !("model" in use)) throw new Error(`no taught model: ${JSON.stringify(use)}`);
  return createClassifier({}, use.model);
};

describe("teaching the abuse model", () => {
  it("measures on replies written apart and sealed before they were scored", () => {
    const sealed = readFileSync(new URL("sealed.sha256", DIR), "utf8").trim().split("\n");
    for (const line of sealed) {
      const [digest, file] = line.split(/\s+/);
      expect(
        createHash("sha256")
          .update(readFileSync(new URL(file!, DIR)))
          .digest("hex"),
        file,
      ).toBe(digest);
    }
    expect(sealed.map((l) => l.split(/\s+/)[1])).toEqual(["apart.tsv", "gaming-measured.tsv", "gaming-taught.tsv"]);
    expect([taughtRows.filter((r) => r.abusive).length, measured.filter((r) => r.abusive).length]).toEqual([100, 100]);
  });

  it("learns from a hundred replies of a kind the shipped model misses: recall rises, precision holds", () => {
    // The kind is one the shipped model mostly misses.
    expect(
      scoreLabels(
        shipped,
        taughtRows.filter((r) => r.abusive),
      ).recall,
    ).toBeLessThan(0.5);
    expect(model.taught).toMatchObject({ labels: 161, abusive: 100, fine: 61, weight: 12, at: 1_000 });

    const before = scoreLabels(shipped, measured);
    const after = scoreLabels(taughtClassifier(), measured);
    // Other replies of the same kind: found more often. Harmless ones in the same words: no more false alarms.
    expect(after.recall).toBeGreaterThanOrEqual(before.recall + 0.05);
    expect(after.fp).toBeLessThanOrEqual(before.fp);
    expect(after.precision).toBeGreaterThanOrEqual(0.95);
    // The abuse found before is still found: teaching added, it did not move the line elsewhere.
    const foundBefore = measured.filter((r) => r.abusive && shipped.classify(r.text).abusive);
    expect(scoreLabels(taughtClassifier(), foundBefore).recall).toBe(1);
  });

  it("keeps the model in the state, where --reset removes it and the labels stay", () => {
    const copy = createMemoryStore();
    keepTaughtModel(copy, model);
    keepLabels(copy, operatorLabels(state));
    expect(taughtModel(copy)).toMatchObject({ taught: { labels: 161 } });
    expect(forgetTaughtModel(copy)).toBe(true);
    expect(taughtModel(copy)).toBeUndefined();
    expect(forgetTaughtModel(copy)).toBe(false);
    expect(operatorLabels(copy)).toHaveLength(161);
  });

  it("refuses a model trained behind other rules, saying what trains it again", () => {
    const copy = createMemoryStore();
    keepTaughtModel(copy, { ...model, fingerprint: { ...model.fingerprint!, rules: "0123456789abcdef" } });
    expect(taughtModel(copy)).toMatchObject({
      refused: expect.stringMatching(
        /^the model taught in the state: trained behind other rules than this tree's: .*Run `bot moderation train` to train it again on the same labels \(until then the shipped model is used\)$/,
      ),
      taught: { labels: 161 },
    });
  });
});

describe("a bot started on a taught state", () => {
  let bed: TestBed | undefined;
  afterEach(async () => {
    await bed?.close();
    bed = undefined;
  });

  it("hides with the taught model, and says so at start", async () => {
    const taught = taughtClassifier();
    const abuse = measured.find(
      (r) => r.abusive && !shipped.classify(`@host ${r.text}`).abusive && taught.classify(`@host ${r.text}`).abusive,
    );
    const harmless = measured.find((r) => !r.abusive)!;
    expect(abuse, "a measured reply only the taught model finds").toBeDefined();
    const { lines, logger } = captureLogs();
    bed = await createTestBed({
      logger,
      store: state,
      bots: [{ name: "host", plan: "pro", triggers: { mentions: {} }, plugins: { moderate: {} } }],
      plugins: { moderate },
    });
    expect(lines.map((l) => l.msg)).toContain(
      "moderation: the abuse model trained in the state on 161 of the operator's labels (100 abusive, 61 fine) at 1970-01-01T00:00:01.000Z replaces the shipped one; bot moderation train --reset goes back to it",
    );
    const me = await bed.user(sandboxUsername("host"));
    const root = await bed.post(me, "Who's up for the tournament tonight?");
    const [alice, bob] = await Promise.all(["alice", "bob"].map((n) => bed!.user(n)));
    const hit = await bed.post(alice!, `@host ${abuse!.text}`, root.id);
    const kept = await bed.post(bob!, `@host ${harmless.text}`, root.id);
    await bed.advance(60_000);
    await bed.settle();
    const posts = bed.sandbox.context.data.world.posts;
    expect(posts[hit.id]!.hidden).toBe(true);
    expect(posts[kept.id]!.hidden).toBeFalsy();
    expect(lines.find((l) => l.post === hit.id && String(l.msg).startsWith("hid "))).toMatchObject({
      rule: "model:abuse",
    });
  });
});
