/**
 * The README's examples run: its plugin answers as its test says, its bot file validates,
 * and its commands exist. A README whose examples rot teaches newcomers wrong.
 */
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runBot } from "../helpers/cli.ts";
import type { PluginDefinition } from "../../src/plugins/index.ts";
import { createTestBed } from "../../src/testing.ts";

const readme = await readFile("README.md", "utf8");

/** The fenced block of `lang` whose first line contains `marker`. */
function block(lang: string, marker: string): string {
  for (const m of readme.matchAll(new RegExp("```" + lang + "\\n([\\s\\S]*?)```", "g"))) if (m[1]!.split("\n")[0]!.includes(marker)) return m[1]!;
  throw new Error(`README.md has no \`\`\`${lang} block starting with ${marker}`);
}

// Inside the repository, so `import ... from "postbot"` resolves as in a user's project.
const work = join("test", ".readme-work");
afterAll(() => rm(work, { recursive: true, force: true }));

const run = runBot;

describe("README.md", () => {
  it("opens with the two commands a newcomer runs", () => {
    const first = readme.split("\n").slice(0, 6).join("\n");
    expect(first).toContain("npm install && npm start");
    expect(first).toContain("npm test");
  });

  it("its plugin does what its test says", async () => {
    await mkdir(join(work, "plugins"), { recursive: true });
    const file = join(work, "plugins", "shout.ts");
    await writeFile(file, block("ts", "// plugins/shout.ts"));
    const shout = (await import(join(process.cwd(), file))).default as PluginDefinition;
    const bed = await createTestBed({ bots: [{ name: "loud", plan: "pro", triggers: { mentions: {} }, plugins: { shout: {} } }], plugins: { shout } });
    const alice = await bed.user("alice");
    await bed.post(alice, "@loud hello");
    await bed.advance(3_000);
    await bed.settle();
    // The README's test expects exactly this.
    expect(block("ts", 'import { afterEach, expect, it } from "vitest";')).toContain('toEqual(["@alice @LOUD HELLO"])');
    expect(bed.postsBy("loud").map((p) => p.text)).toEqual(["@alice @LOUD HELLO"]);
    await bed.close();
  });

  it("its first bot file validates with the example plugins", async () => {
    await mkdir(join(work, "bots"), { recursive: true });
    await writeFile(join(work, "bots", "hello.yaml"), block("yaml", "yaml-language-server"));
    const res = await run(["validate", "--bots", join(work, "bots"), "--plugins", "plugins"]);
    expect(res.stdout).toMatch(/^OK: 1 bot in 1 file \(hello\)/);
    expect(res.code).toBe(0);
  });

  it("documents commands that exist", async () => {
    const help = await run(["--help"]);
    for (const command of ["start", "validate", "schema", "status", "auth", "sandbox"]) {
      expect(readme).toContain(`bot ${command}`);
      expect(help.stdout).toMatch(new RegExp(`^  ${command}\\b`, "m"));
    }
  });
});
