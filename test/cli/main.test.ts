import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { killBots, runBot } from "../helpers/cli.ts";

afterEach(killBots);

describe("bot", () => {
  it("--version prints the version of package.json", async () => {
    const { version } = JSON.parse(readFileSync("package.json", "utf8")) as { version: string };
    expect(await runBot(["--version"])).toEqual({ code: 0, stdout: `${version}\n`, stderr: "" });
  }, 30_000);
});
