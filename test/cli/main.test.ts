import { readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { killBots, runBot } from "../helpers/cli.ts";
import { botIndex, ROOT } from "../helpers/built.ts";

afterEach(killBots);

describe("bot", () => {
  it("imports only the command its command line names, and every command otherwise", async () => {
    const { buildProgram } = await import("../../src/cli/main.ts");
    const names = async (argv?: string[]) => (await buildProgram(argv)).commands.map((c) => c.name());
    expect(await names(["node", "bot", "validate", "--bots", "x"])).toEqual(["validate"]);
    const all = await names();
    expect(all).toContain("start");
    expect(all.length).toBeGreaterThan(10);
    for (const argv of [
      ["node", "bot", "--help"],
      ["node", "bot", "validat"],
      ["node", "bot", "help", "start"],
    ])
      expect(await names(argv)).toEqual(all);
  });

  it("--version prints the version of package.json", async () => {
    const { version } = JSON.parse(readFileSync("package.json", "utf8")) as { version: string };
    expect(await runBot(["--version"])).toEqual({ code: 0, stdout: `${version}\n`, stderr: "" });
  }, 30_000);

  it('gives a plugin\'s `import "postbot"` the postbot it runs itself, not a second copy', async () => {
    // The plugin prints where its import goes. Under the suite's compiled bot, tsx's loader is
    // registered late, with a hook that sends "postbot" to the running one (src/plugins/self-import.ts),
    // whatever the tsconfig here says (its `paths` name src/).
    const run = await runBot(["schema", "--plugins", "test/fixtures/one-postbot"]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(`postbot: ${pathToFileURL(botIndex()).href}\n`);
    // The checkout's bin/bot.js runs the source, and so does the plugin's import, from any folder.
    const source = await runBot(
      ["schema", "--plugins", join(ROOT, "test/fixtures/one-postbot")],
      {},
      {
        checkout: true,
        cwd: tmpdir(),
      },
    );
    expect(source.code, source.stderr).toBe(0);
    expect(source.stderr).toContain(`postbot: ${pathToFileURL(join(ROOT, "src", "index.ts")).href}\n`);
  }, 60_000);
});
