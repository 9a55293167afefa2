/**
 * README.md's shell commands, run as written (the machinery and what each must print:
 * ./commands.ts). Its own file, so that it runs beside the other documents' commands.
 */
import { describe } from "vitest";
import { documentTests } from "./commands.ts";

describe("the documents' commands", () => {
  documentTests(["README.md"]);
});
