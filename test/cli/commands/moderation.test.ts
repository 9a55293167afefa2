/**
 * `bot moderation teach|train|score` as an operator runs them on a state directory: labels
 * kept from a file (bad lines reported by number and skipped, a file bad as a whole refused
 * with nothing kept), a model trained and kept in the state, figures before and after, and
 * clear refusals.
 */
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { operatorLabels } from "../../../src/moderation/training/labels.ts";
import { openFileStore } from "../../../src/store/index.ts";
import { killBots, runBot } from "../../helpers/cli.ts";

const FIXTURES = join(import.meta.dirname, "../../fixtures/moderation-teach");
const TAUGHT = join(FIXTURES, "gaming-taught.tsv");
const MEASURED = join(FIXTURES, "gaming-measured.tsv");
const FIGURES = /^precision (\d\.\d{3}) recall (\d\.\d{3}) \(tp (\d+) fp (\d+) fn (\d+) tn (\d+)\)\n/;

let data: string;
beforeEach(async () => {
  data = await mkdtemp(join(tmpdir(), "postbot-moderation-cli-"));
});
afterEach(async () => {
  await killBots();
  await rm(data, { recursive: true, force: true });
});

/** How many labels the state directory holds, read as `bot start` reads it. */
async function labelsIn(state: string): Promise<number> {
  const store = await openFileStore(state, { readOnly: true });
  try {
    return operatorLabels(store).length;
  } finally {
    await store.close();
  }
}

describe("bot moderation", () => {
  it("teaches, trains and scores: recall rises on replies of the taught kind, and --reset goes back", async () => {
    const state = join(data, ".postbot");
    const before = await runBot(["moderation", "score", MEASURED, "--data", state]);
    expect(before.stderr).toBe("");
    expect(before.stdout).toMatch(FIGURES);
    expect(before.stdout).toContain("scored 220 labelled replies with the shipped model (none trained in the state)");

    const taught = await runBot(["moderation", "teach", TAUGHT, "--data", state]);
    expect([taught.code, taught.stderr]).toEqual([0, ""]);
    expect(taught.stdout).toBe(
      `${TAUGHT}: kept 161 labels (161 new, 0 relabelled, 0 as before). The state holds 161 labels (100 abusive, 61 fine): bot moderation train teaches them to the model\n`,
    );
    expect((await stat(join(state, "state", "moderation-labels.json"))).mode & 0o777).toBe(0o600);

    const trained = await runBot(["moderation", "train", "--data", state]);
    expect([trained.code, trained.stderr]).toEqual([0, ""]);
    expect(trained.stdout).toMatch(
      /^trained on 7621 shipped replies and 161 of the operator's labels \(100 abusive, 61 fine\), each counting as 12, in \d+\.\d s; kept in the state: bot start uses it from its next start/,
    );

    const after = await runBot(["moderation", "score", MEASURED, "--misses", "--data", state]);
    expect(after.stderr).toBe("");
    const [b, a] = [FIGURES.exec(before.stdout)!, FIGURES.exec(after.stdout)!];
    expect(Number(a[2])).toBeGreaterThan(Number(b[2]));
    expect(Number(a[4])).toBeLessThanOrEqual(Number(b[4]));
    expect(after.stdout).toContain(
      "scored 220 labelled replies with the model trained on 161 of the operator's labels (100 abusive, 61 fine)",
    );
    const misses = after.stdout.split("\n").filter((l) => l.startsWith("line "));
    expect(misses).toHaveLength(Number(a[4]) + Number(a[5]));
    expect(misses[0]).toMatch(/^line \d+: (missed|false alarm \([^)]*\)) ".+"$/);

    const reset = await runBot(["moderation", "train", "--reset", "--data", state]);
    expect(reset.stdout).toBe(
      "removed the trained model from the state: bot start uses the shipped model from its next start (the 161 labels stay; bot moderation train teaches them again)\n",
    );
    const back = await runBot(["moderation", "score", MEASURED, "--data", state]);
    expect(back.stdout).toBe(before.stdout);
  }, 180_000);

  it("reports bad lines by number and keeps the rest; keeps nothing of a file bad as a whole", async () => {
    const state = join(data, ".postbot");
    const file = join(data, "decisions.tsv");
    await writeFile(
      file,
      "id\tlabel\ttext\n1\tabusive\tlog off forever\n2\tabusve\tgo away\n3\tfine\t\n4\tfine\tgg all\n",
    );
    const run = await runBot(["moderation", "teach", file, "--data", state]);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe(
      `bot: ${file}:3: skipped: label "abusve": expected abusive or fine\nbot: ${file}:4: skipped: no text\n`,
    );
    expect(run.stdout).toMatch(
      /kept 2 labels \(2 new, 0 relabelled, 0 as before\); skipped 2 bad lines\. The state holds 2 labels/,
    );

    const csv = join(data, "decisions.csv");
    await writeFile(csv, "label,text\nabusive,uninstall\n");
    const bad = await runBot(["moderation", "teach", csv, "--data", state]);
    expect([bad.code, bad.stdout]).toEqual([1, ""]);
    expect(bad.stderr).toBe(
      `bot: ${csv}:1: neither a TSV header line (label<TAB>text) nor a JSON object; give a TSV file with a header line label<TAB>text (other columns are ignored), or JSONL with label and text\n`,
    );
    expect(await labelsIn(state)).toBe(2);
  }, 60_000);

  it("refuses what it cannot do, saying what to do", async () => {
    const state = join(data, ".postbot");
    const none = await runBot(["moderation", "train", "--data", state]);
    expect([none.code, none.stderr]).toEqual([
      1,
      "bot: the state has no labels to train on: keep some with bot moderation teach FILE, or decide about replies with bot review\n",
    ]);
    expect(existsSync(state), "no state directory made to say it holds nothing").toBe(false);
    const missing = await runBot(["moderation", "teach", join(data, "nope.tsv"), "--data", state]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^bot: cannot read .*nope\.tsv: /);

    // A running bot start holds the directory: teaching waits for it to stop.
    await runBot(["moderation", "teach", TAUGHT, "--data", state]);
    await writeFile(join(state, "state.lock"), `${process.pid}\n`);
    const locked = await runBot(["moderation", "teach", TAUGHT, "--data", state]);
    expect(locked.code).toBe(1);
    expect(locked.stderr).toMatch(/^bot: the state in .* is in use by another process: pid \d+/);
  }, 60_000);
});
