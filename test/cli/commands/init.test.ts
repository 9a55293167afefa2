/**
 * `bot init`: the project it writes, its refusal of a folder with files, and that the project
 * validates as written (its node_modules linked to this checkout's, as `npm install` would
 * give it). The whole path from the packed tarball is test/package/pack.test.ts.
 */
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { killBots, runBot } from "../../helpers/cli.ts";
import { ROOT } from "../../helpers/built.ts";

afterEach(killBots);
const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "postbot-init-"));
  dirs.push(dir);
  return dir;
}

describe("bot init", () => {
  it("writes a project that depends on postbot, says what to do next, and validates as written", async () => {
    const parent = await tempDir();
    const made = await runBot(["init", "My Bots"], {}, { cwd: parent });
    expect(made).toEqual({
      code: 0,
      stdout:
        "wrote a bot project in My Bots (10 files: bots/, plugins/, test/, templates/, package.json, README.md...). Next:\n  cd My Bots\n  npm install && npm start   # its bots on an embedded sandbox, with simulated users\n  npm test                   # its own tests\n",
      stderr: "",
    });
    const dir = join(parent, "My Bots");
    expect((await readdir(dir)).sort()).toEqual(
      [
        ".gitignore",
        "README.md",
        "bot.schema.json",
        "bots",
        "package.json",
        "plugins",
        "templates",
        "test",
        "tsconfig.json",
      ].sort(),
    );
    const { version, dependencies, devDependencies } = JSON.parse(await readFile(join(ROOT, "package.json"), "utf8"));
    expect(JSON.parse(await readFile(join(dir, "package.json"), "utf8"))).toEqual({
      name: "my-bots",
      version: "0.1.0",
      private: true,
      type: "module",
      scripts: { start: "bot start --http 127.0.0.1:0", test: "tsc --noEmit && vitest run" },
      dependencies: { postbot: `^${version}`, zod: dependencies.zod },
      devDependencies: {
        "@types/node": devDependencies["@types/node"],
        typescript: devDependencies.typescript,
        vitest: devDependencies.vitest,
      },
    });
    const readme = await readFile(join(dir, "README.md"), "utf8");
    expect(readme.split("\n").slice(0, 5)).toEqual([
      "# my-bots",
      "",
      "```sh",
      "npm install && npm start   # the bots on an embedded sandbox of the service, with simulated users",
      "npm test                   # this project's tests",
    ]);
    expect((await readFile(join(dir, ".gitignore"), "utf8")).split("\n")).toEqual([
      ".postbot/",
      ".env",
      "node_modules/",
      "",
    ]);
    // The schema an editor checks the bot files with: the built-ins' options.
    const schema = JSON.parse(await readFile(join(dir, "bot.schema.json"), "utf8"));
    expect(Object.keys(schema.properties.plugins.properties)).toContain("dialog");

    // As after npm install: postbot (this checkout) and its dependencies.
    await mkdir(join(dir, "node_modules"));
    for (const entry of await readdir(join(ROOT, "node_modules")))
      await symlink(join(ROOT, "node_modules", entry), join(dir, "node_modules", entry));
    await symlink(ROOT, join(dir, "node_modules", "postbot"));
    const valid = await runBot(["validate"], {}, { cwd: dir });
    expect(valid).toEqual({
      code: 0,
      stdout: "OK: 2 bots in 2 files (greeter, survey), 1 template (greeter), 4 plugins checked\n",
      stderr: "",
    });
  }, 60_000);

  it("refuses a folder with files without --force, and writes over them with it", async () => {
    const dir = await tempDir();
    await writeFile(join(dir, "notes.txt"), "mine\n");
    const refused = await runBot(["init"], {}, { cwd: dir });
    expect(refused).toEqual({
      code: 2,
      stdout: "",
      stderr:
        "bot: . is not empty (notes.txt): give a new folder (bot init my-bots), or --force to write the project's files over what is there\n",
    });
    expect(await readdir(dir)).toEqual(["notes.txt"]);
    const forced = await runBot(["init", "--force"], {}, { cwd: dir });
    expect(forced.code, forced.stderr).toBe(0);
    expect(forced.stdout).toMatch(/^wrote a bot project in this folder \(10 files: .*\n  npm install && npm start/);
    expect(await readFile(join(dir, "notes.txt"), "utf8")).toBe("mine\n");
    expect(await readdir(join(dir, "bots"))).toEqual(["greeter.yaml", "survey.yaml"]);
  }, 60_000);
});
