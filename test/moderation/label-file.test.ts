/**
 * Label files as operators bring them (`bot moderation teach` and `score`): TSV with a header
 * naming label and text, or JSONL; a bad line is reported by its number and skipped, a file
 * bad as a whole is refused whole.
 */
import { describe, expect, it } from "vitest";
import { UserError } from "../../src/errors.ts";
import { parseLabelFile } from "../../src/moderation/training/label-file.ts";
import { createMemoryStore } from "../../src/store/store.ts";
import { keepLabels, labelCounts, operatorLabels } from "../../src/moderation/training/labels.ts";
import { shippedBatches } from "../../src/moderation/training/shipped.ts";

const refused = (contents: string) => {
  try {
    parseLabelFile("labels.tsv", contents);
  } catch (err) {
    expect(err).toBeInstanceOf(UserError);
    return (err as Error).message;
  }
  throw new Error("the file was not refused");
};

describe("a label file", () => {
  it("reads TSV by its header, other columns ignored, in any order, quoted as spreadsheets quote", () => {
    const file = [
      "id\tauthor\ttext\tlabel\tnote",
      "1\tann\tuninstall the game, you're a liability\tabusive\tseen twice",
      '2\tbob\t"he said ""gg"" and left"\tFine\t',
      "3\tcy\t  uninstall and reinstall, it fixes the crash  \tfine",
    ].join("\r\n");
    expect(parseLabelFile("labels.tsv", `\uFEFF${file}\r\n`)).toEqual({
      format: "tsv",
      rows: [
        { text: "uninstall the game, you're a liability", abusive: true, line: 2 },
        { text: 'he said "gg" and left', abusive: false, line: 3 },
        { text: "uninstall and reinstall, it fixes the crash", abusive: false, line: 4 },
      ],
      skipped: [],
    });
  });

  it("reads JSONL with label and text, other fields ignored", () => {
    const file = [
      '{"label": "abusive", "text": "log off forever", "id": 9}',
      "",
      '{"text": "gg all", "label": "fine"}',
    ];
    expect(parseLabelFile("labels.jsonl", file.join("\n"))).toEqual({
      format: "jsonl",
      rows: [
        { text: "log off forever", abusive: true, line: 1 },
        { text: "gg all", abusive: false, line: 3 },
      ],
      skipped: [],
    });
  });

  it("reports each bad line by its number and keeps the good ones", () => {
    const tsv = parseLabelFile(
      "labels.tsv",
      [
        "label\ttext",
        "abusve\tlog off",
        "abusive\t",
        "fine",
        "abusive\tquit now",
        "fine\tquit now",
        "abusive\tquit now",
        "fine\tgg",
      ].join("\n"),
    );
    expect(tsv.rows).toEqual([
      { text: "quit now", abusive: true, line: 5 },
      { text: "gg", abusive: false, line: 8 },
    ]);
    expect(tsv.skipped).toEqual([
      { line: 2, problem: 'label "abusve": expected abusive or fine' },
      { line: 3, problem: "no text" },
      { line: 4, problem: "1 column, the header has 2" },
      { line: 6, problem: "the same text as line 5, labelled the other way" },
    ]);
    const jsonl = parseLabelFile(
      "labels.jsonl",
      ['{"label": "fine", "text": "gg"}', "{not json", "[1, 2]", '{"label": true, "text": "x"}'].join("\n"),
    );
    expect(jsonl.skipped).toEqual([
      { line: 2, problem: "not JSON" },
      { line: 3, problem: "not a JSON object with label and text" },
      { line: 4, problem: "label true: expected abusive or fine" },
    ]);
  });

  it("refuses a file that is bad as a whole, naming it and what it needs", () => {
    expect(refused("")).toMatch(/^labels\.tsv: the file is empty; give a TSV file with a header line label<TAB>text/);
    expect(refused("label,text\nabusive,log off\n")).toMatch(
      /^labels\.tsv:1: neither a TSV header line \(label<TAB>text\) nor a JSON object/,
    );
    expect(refused("verdict\tcomment\nabusive\tlog off\n")).toMatch(
      /^labels\.tsv:1: the header line names the columns "verdict", "comment"; it needs label and text/,
    );
    expect(refused("label\ttext\n")).toMatch(/no line has a label and a text \(it has only its header line\)/);
    expect(refused("label\ttext\nbad\tx\nworse\ty\n")).toMatch(
      /no line has a label and a text \(2 bad lines, the first: line 2: label "bad": expected abusive or fine\)/,
    );
  });
});

describe("the operator's labels in the state", () => {
  it("keeps one label per text, the latest, with who, when and where from", () => {
    const store = createMemoryStore();
    const first = keepLabels(store, [
      { text: "log off forever", abusive: true, by: "cli:op", at: 1, from: { file: "a.tsv", line: 2 } },
      { text: "gg all", abusive: false, by: "cli:op", at: 1, from: { file: "a.tsv", line: 3 } },
    ]);
    expect(first).toEqual({ added: 2, relabelled: 0, same: 0 });
    const again = keepLabels(store, [
      { text: "gg all", abusive: true, by: "admin:ops", at: 2, from: "review", bot: "host", post: "9" },
      { text: "log off forever", abusive: true, by: "cli:op", at: 3, from: { file: "b.tsv", line: 2 } },
    ]);
    expect(again).toEqual({ added: 0, relabelled: 1, same: 1 });
    expect(operatorLabels(store)).toEqual([
      { text: "gg all", abusive: true, by: "admin:ops", at: 2, from: "review", bot: "host", post: "9" },
      { text: "log off forever", abusive: true, by: "cli:op", at: 3, from: { file: "b.tsv", line: 2 } },
    ]);
    expect(labelCounts(operatorLabels(store))).toEqual({ abusive: 2, fine: 0 });
  });
});

describe("the shipped training data", () => {
  it("is found from the package's root, and its absence is said plainly", () => {
    expect(shippedBatches().reduce((n, b) => n + b.rows.length, 0)).toBe(7621);
    expect(() => shippedBatches("/nonexistent/training/data")).toThrow(
      new UserError(
        "postbot's training data is not in this installation (/nonexistent/training/data is missing), so the model cannot be trained here; install postbot again, or train where it is (a checkout of postbot has it)",
      ),
    );
  });
});
