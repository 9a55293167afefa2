/**
 * `bot new` as a user runs it: in a fresh project whose node_modules has postbot (and its
 * dependencies), the scaffolded plugin's test passes under `npm test`, and the scaffolded bot
 * validates.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { killBots, runBot } from "../../helpers/cli.ts";

const dirs: string[] = [];
const children = new Set<ChildProcess>();
afterEach(async () => {
  await killBots();
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  children.clear();
});
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

/**
 * A new project: package.json with `npm test` = vitest (and `"type": "module"` unless
 * `commonJs`), and node_modules holding postbot (this checkout) and its dependencies.
 */
async function newProject(commonJs = false): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "postbot-project-"));
  dirs.push(dir);
  await writeFile(
    join(dir, "package.json"),
    JSON.stringify({
      name: "my-bots",
      private: true,
      ...(commonJs ? {} : { type: "module" }),
      scripts: { test: "vitest run" },
    }),
  );
  await mkdir(join(dir, "node_modules"));
  for (const entry of await readdir("node_modules"))
    await symlink(join(process.cwd(), "node_modules", entry), join(dir, "node_modules", entry));
  await symlink(process.cwd(), join(dir, "node_modules", "postbot"));
  return dir;
}

function npmTest(cwd: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn("npm", ["test"], {
      cwd,
      env: { PATH: process.env.PATH ?? "", HOME: cwd, NO_COLOR: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    children.add(child);
    let output = "";
    child.stdout.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr.on("data", (d: Buffer) => (output += d.toString()));
    child.on("close", (code) => resolve({ code, output }));
  });
}

describe("bot new", () => {
  it("plugin NAME and plugin NAME --dialog: write each plugin and its test on postbot/testing, and npm test passes in a new project", async () => {
    const project = await newProject();
    const made = await runBot(["new", "plugin", "shout-back"], {}, { cwd: project });
    expect(made).toEqual({
      code: 0,
      stdout:
        "wrote plugins/shout-back.ts and test/shout-back.test.ts; run its test with `npx vitest run test/shout-back.test.ts` (`npm test` runs every test), and list the plugin in a bot file to run it: plugins: { shout-back: {} }\n",
      stderr: "",
    });
    expect(await readFile(join(project, "test", "shout-back.test.ts"), "utf8")).toContain('from "postbot/testing"');
    // A plugin holding a dialog, beside it: one `npm test` (seconds of CPU) runs both tests.
    const dialog = await runBot(["new", "plugin", "order", "--dialog"], {}, { cwd: project });
    expect(dialog).toMatchObject({ code: 0, stderr: "" });
    expect(await readFile(join(project, "plugins", "order.ts"), "utf8")).toContain('bot.dialog("order"');
    const tested = await npmTest(project);
    expect(tested.output).toMatch(/Tests +2 passed \(2\)/);
    for (const file of ["test/shout-back.test.ts", "test/order.test.ts"])
      expect(tested.output).toMatch(new RegExp(`✓ ${file.replaceAll(".", "\\.")} \\(1 test\\)`));
    expect(tested.code).toBe(0);

    const again = await runBot(["new", "plugin", "shout-back"], {}, { cwd: project });
    expect(again).toMatchObject({
      code: 1,
      stderr: "bot: test/shout-back.test.ts exists already; choose another name (bot new never overwrites a file)\n",
    });
  }, 180_000);

  it("plugin NAME in a project without vitest or postbot installed: says what makes its test run", async () => {
    const dir = await mkdtemp(join(tmpdir(), "postbot-bare-"));
    dirs.push(dir);
    await writeFile(join(dir, "package.json"), JSON.stringify({ name: "bare", type: "module" }));
    expect(await runBot(["new", "plugin", "wave"], {}, { cwd: dir })).toEqual({
      code: 0,
      stdout:
        "wrote plugins/wave.ts and test/wave.test.ts; this project cannot run its test yet: `npm install postbot && npm install --save-dev vitest` first (a project written by `bot init` can), then `npx vitest run test/wave.test.ts`, and list the plugin in a bot file to run it: plugins: { wave: {} }\n",
      stderr: "",
    });
  });

  it('plugin NAME in a project whose package.json lacks "type": "module": bot validate says how to fix it, and passes once it is there', async () => {
    const project = await newProject(true);
    expect(await runBot(["new", "plugin", "greet"], {}, { cwd: project })).toMatchObject({ code: 0 });
    expect(await runBot(["new", "bot", "hello"], {}, { cwd: project })).toMatchObject({ code: 0 });
    const file = join(project, "bots", "hello.yaml");
    await writeFile(file, (await readFile(file, "utf8")).replace(/^plugins:.*$[\s\S]*/m, "plugins:\n  greet: {}\n"));

    const refused = await runBot(["validate"], {}, { cwd: project });
    expect(refused.stdout).toBe(
      'bots/hello.yaml:8:3 plugins.greet: plugin "greet" could not be loaded from plugins/greet.ts: it is read as CommonJS, because package.json does not say "type": "module" (postbot and its plugins are ES modules): add "type": "module" to package.json, or name the plugin greet.mts\n1 problem in 1 file; fix them before bot start\n',
    );
    expect(refused.code).toBe(1);

    const pkg = join(project, "package.json");
    await writeFile(pkg, JSON.stringify({ ...JSON.parse(await readFile(pkg, "utf8")), type: "module" }));
    const valid = await runBot(["validate"], {}, { cwd: project });
    expect(valid.stdout).toMatch(/^OK: 1 bot in 1 file \(hello\), 1 plugin checked$/m);
    expect(valid.code).toBe(0);
  }, 60_000);

  it("bot NAME: writes a bot file that validates as written; a bad name is refused", async () => {
    const dir = await mkdtemp(join(tmpdir(), "postbot-new-bot-"));
    dirs.push(dir);
    const bots = join(dir, "bots");
    const made = await runBot(["new", "bot", "hello", "--bots", bots]);
    expect(made.code).toBe(0);
    expect(made.stdout).toBe(
      `wrote ${join(bots, "hello.yaml")}; check it with \`npx bot validate\`, run it with \`npx bot start --only hello\`\n`,
    );
    const valid = await runBot(["validate", "--bots", bots, "--plugins", "plugins"]);
    expect(valid.stdout).toMatch(/^OK: 1 bot in 1 file \(hello\), 1 plugin checked$/m);
    expect(valid.code).toBe(0);
    const bad = await runBot(["new", "bot", "Hello"]);
    expect(bad).toMatchObject({
      code: 2,
      stderr: 'bot: "Hello" is not a bot name: use lower-case letters, digits and dashes (a-z, 0-9, -)\n',
    });
  }, 60_000);
});
