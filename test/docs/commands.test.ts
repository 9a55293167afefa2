/**
 * The shell commands of docs/*.md, run as written (the machinery and what each must print:
 * ./commands.ts; README.md's are ./commands-readme.test.ts), and the check that the table of
 * what each command must do knows every command the documents run, and nothing else.
 */
import { describe, expect, it } from "vitest";
import { docFiles } from "../helpers/doc-blocks.ts";
import { documentedCommands, documentTests } from "./commands.ts";

describe("the documents' commands", () => {
  documentTests(docFiles().filter((file) => file !== "README.md"));

  it("knows what every command the documents run must do, and nothing else", () => {
    const { documented, expected } = documentedCommands();
    expect(expected.filter((c) => !documented.has(c))).toEqual([]);
    expect([...documented].filter((c) => !expected.includes(c))).toEqual([]);
  });
});
