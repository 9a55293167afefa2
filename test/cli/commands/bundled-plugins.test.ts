/**
 * The compiled `bot` (as the package runs it) loads a project's TypeScript plugin as a bundle in
 * the project's `.postbot/plugins/` (src/plugins/bundle.ts): built on the first `bot validate`,
 * imported as it is by the next while no file of it changed (esbuild is not started), and,
 * where `.postbot` cannot be written, loaded through the module hooks instead.
 * `NODE_DEBUG=postbot` says which. While `bot start` runs, a change to a module the plugin
 * imports restarts its bots with the new code (a plugin bundled again).
 */
import { mkdir, mkdtemp, readdir, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { killBots, lineReader, runBot, spawnBot } from "../../helpers/cli.ts";

const dirs: string[] = [];
afterEach(killBots);
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

const PLUGIN = `import { definePlugin } from "postbot";
import { z } from "zod";
import { GREETING, NAME } from "./lib/words.ts";

export default definePlugin({
  name: "greet",
  options: z.strictObject({ text: z.string().default(GREETING) }),
  setup(bot, options) {
    bot.on("mention", async (ctx) => {
      await ctx.reply(\`\${options.text}, \${NAME}: \${ctx.post.text.replace(/@\\w+\\s*/g, "")}\`);
    });
  },
});
`;

const words = (name: string) => `export const GREETING: string = "hello";\nexport const NAME = "${name}";\n`;

/** A project: ES modules, zod in its node_modules, one bot that uses its plugin `greet`. */
async function project(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "postbot-bundled-"));
  dirs.push(dir);
  await writeFile(join(dir, "package.json"), '{ "type": "module" }\n');
  await mkdir(join(dir, "node_modules"));
  await symlink(resolve("node_modules/zod"), join(dir, "node_modules", "zod"));
  await mkdir(join(dir, "plugins", "lib"), { recursive: true });
  await writeFile(join(dir, "plugins", "greet.ts"), PLUGIN);
  await writeFile(join(dir, "plugins", "lib", "words.ts"), words("friend"));
  await mkdir(join(dir, "bots"));
  await writeFile(
    join(dir, "bots", "hi.yaml"),
    "name: hi\nplan: pro\ntriggers:\n  mentions: {}\nplugins:\n  greet: {}\n",
  );
  return dir;
}

const validate = (cwd: string) => runBot(["validate"], { NODE_DEBUG: "postbot" }, { cwd });
const OK = "OK: 1 bot in 1 file (hi), 1 plugin checked\n";

describe("a project's plugin, compiled postbot", () => {
  it("is bundled into .postbot/plugins on the first bot validate and reused unchanged by the next", async () => {
    const dir = await project();
    const first = await validate(dir);
    expect(first).toMatchObject({ code: 0, stdout: OK });
    expect(first.stderr).toMatch(/plugin \S+greet\.ts: bundled into greet-[0-9a-f]{8}\.[0-9a-f]{12}\.mjs \(2 files\)/);
    expect((await readdir(join(dir, ".postbot", "plugins"))).sort()).toEqual([
      expect.stringMatching(/^greet-[0-9a-f]{8}\.[0-9a-f]{12}\.mjs$/),
      expect.stringMatching(/^greet-[0-9a-f]{8}\.json$/),
    ]);

    const second = await validate(dir);
    expect(second).toMatchObject({ code: 0, stdout: OK });
    expect(second.stderr).toMatch(/plugin \S+greet\.ts: its bundle greet-\S+\.mjs is up to date/);
    expect(second.stderr).not.toContain("bundled into");
  }, 60_000);

  it("names the plugin's file, not its bundle, when a package it imports is missing", async () => {
    const dir = await project();
    await writeFile(
      join(dir, "plugins", "lib", "words.ts"),
      'export { GREETING } from "no-such-package";\nexport const NAME = "x";\n',
    );
    const run = await validate(dir);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(
      `could not be loaded from plugins/greet.ts: Cannot find package 'no-such-package' imported from plugins/greet.ts`,
    );
    expect(run.stdout).not.toContain(".postbot");
  }, 60_000);

  it("is loaded through the module hooks where .postbot cannot be written", async () => {
    const dir = await project();
    await writeFile(join(dir, ".postbot"), "not a directory\n");
    const run = await validate(dir);
    expect(run).toMatchObject({ code: 0, stdout: OK });
    expect(run.stderr).toMatch(/plugin \S+greet\.ts: not bundled \(.+\), loaded through module hooks/);
  }, 60_000);

  it("restarts the bots of a plugin with the new code of a module it imports, while bot start runs", async () => {
    const dir = await project();
    const data = join(dir, "data");
    const child = spawnBot(["start", "--data", data, "--http", "127.0.0.1:0"], { cwd: dir });
    const out = lineReader(child.stdout);
    await out.waitFor(/"msg":"all bots started/);
    const say = async (text: string) => {
      const run = await runBot(["say", "--as", "alice", "--data", data, "--wait", "60", text], {}, { cwd: dir });
      expect(run.stderr).toBe("");
      return run.stdout;
    };
    expect(await say("@hi there")).toContain("hello, friend: there");

    await writeFile(join(dir, "plugins", "lib", "words.ts"), words("neighbour"));
    await out.waitFor(/"msg":"bot hi restarted with the new code of plugin greet \(by plugins\/lib\/words\.ts\)/);
    expect(await say("@hi again")).toContain("hello, neighbour: again");
    expect(out.lines.join("\n")).not.toContain("restart bot start to use it");

    const exit = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    child.kill("SIGTERM");
    expect(await exit).toBe(0);
  }, 120_000);
});
