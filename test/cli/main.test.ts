import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { killBots, runBot } from "../helpers/cli.ts";
import { botIndex } from "../helpers/prebuilt.ts";

afterEach(killBots);

describe("bot", () => {
  it("--version prints the version of package.json", async () => {
    const { version } = JSON.parse(readFileSync("package.json", "utf8")) as { version: string };
    expect(await runBot(["--version"])).toEqual({ code: 0, stdout: `${version}\n`, stderr: "" });
  }, 30_000);

  it('gives a plugin\'s `import "postbot"` the postbot it runs itself, not a second copy', async () => {
    // The plugin prints where its import goes; under the suite's bundled bot, tsx's loader is
    // registered late and told where postbot is (src/plugins/load.ts, test/helpers/prebuilt-setup.ts).
    const run = await runBot(["schema", "--plugins", "test/fixtures/one-postbot"]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(`postbot: ${pathToFileURL(botIndex()).href}\n`);
  }, 30_000);
});
