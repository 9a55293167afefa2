import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { botJsonSchemaText } from "../../src/config/schema.ts";
import { killBots, runBot } from "../helpers/cli.ts";
import { exampleSchemas } from "../helpers/examples.ts";

afterEach(killBots);

const bot = runBot;

const FIXTURES = "test/fixtures/config";
const PLUGINS = "test/fixtures/plugins";

describe("bot validate", () => {
  it("exits 0 with a one-line summary when every bot is valid", async () => {
    const run = await bot(["validate", "--bots", `${FIXTURES}/valid/bots`, "--plugins", PLUGINS], {
      GREETER_TOKEN: "t",
      COUNTER_STEP: "3",
    });
    expect(run).toEqual({
      code: 0,
      stdout: [
        // The fixtures' reply and like are the project's own, in place of the built-ins.
        'note: test/fixtures/plugins/reply.ts replaces the built-in plugin "reply" for greeter, watcher (a project\'s plugins/ comes first; rename it to use both)',
        'note: test/fixtures/plugins/like.js replaces the built-in plugin "like" for greeter, watcher (a project\'s plugins/ comes first; rename it to use both)',
        // The fixtures' broken plugins are in the directory, and no valid bot uses them.
        'test/fixtures/plugins/broken-syntax.js: warning: no bot uses the plugin "broken-syntax", so it never runs; list it under plugins: in a bot file (plugins: { broken-syntax: {} })',
        'test/fixtures/plugins/not-a-plugin.ts: warning: no bot uses the plugin "not-a-plugin", so it never runs; list it under plugins: in a bot file (plugins: { not-a-plugin: {} })',
        'test/fixtures/plugins/throws-on-import.ts: warning: no bot uses the plugin "throws-on-import", so it never runs; list it under plugins: in a bot file (plugins: { throws-on-import: {} })',
        "OK: 3 bots in 3 files (greeter, minimal, watcher), 3 plugins checked",
        "",
      ].join("\n"),
      stderr: "",
    });
  });

  it("prints every problem as file:line:col and exits 1", async () => {
    const run = await bot(["validate", "--bots", `${FIXTURES}/broken/bots`, "--plugins", PLUGINS]);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe("");
    const lines = run.stdout.trimEnd().split("\n");
    expect(lines).toHaveLength(16);
    expect(lines.slice(0, 3)).toEqual([
      `${FIXTURES}/broken/bots/alias-bomb.yaml:5:8 aliases expand into too much data (more than 100 expansions; a "billion laughs" file?); a bot file needs few aliases, so write the values out`,
      `${FIXTURES}/broken/bots/bad-cron.yaml:6:13 triggers.schedule[0].cron: "61" is not a valid minute (0-59); the 5 fields are read as minute hour day-of-month month day-of-week`,
      `${FIXTURES}/broken/bots/bad-plugin-option.yaml:5:11 plugins.reply.text: expected text, got 42`,
    ]);
    for (const line of lines.slice(0, -1))
      expect(line).toMatch(/^test\/fixtures\/config\/broken\/bots\/[a-z-]+\.yaml:\d+:\d+ \S/);
    expect(lines.at(-1)).toBe("15 problems in 15 files; fix them before bot start");
  });

  it("names a plugin's file and line when it cannot be loaded", async () => {
    const run = await bot(["validate", "--bots", `${FIXTURES}/plugin-errors/bots`, "--plugins", PLUGINS]);
    const at = `${FIXTURES}/plugin-errors/bots/uses-broken.yaml`;
    expect(run).toEqual({
      code: 1,
      stderr: "",
      stdout: [
        `${at}:5:3 plugins.broken-syntax: plugin "broken-syntax" could not be loaded from ${PLUGINS}/broken-syntax.js: Expected ")" but found ";" (${PLUGINS}/broken-syntax.js:5:2)`,
        `${at}:6:3 plugins.throws-on-import: plugin "throws-on-import" could not be loaded from ${PLUGINS}/throws-on-import.ts: the weather service is down`,
        `${at}:7:3 plugins.not-a-plugin: plugin "not-a-plugin" (${PLUGINS}/not-a-plugin.ts) is not a plugin: its default export has no setup function; write export default definePlugin({ name, options, setup })`,
        "3 problems in 1 file; fix them before bot start",
        "",
      ].join("\n"),
    });
  });

  it("says what to do about a missing bots directory, without a stack trace", async () => {
    const run = await bot(["validate", "--bots", "no/such/dir"]);
    expect(run).toEqual({
      code: 1,
      stdout: "",
      stderr:
        "bot: the bots directory no/such/dir does not exist; create it with one YAML file per bot, or pass --bots DIR\n",
    });
  });

  it("has --help", async () => {
    const run = await bot(["validate", "--help"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("Usage: bot validate [options]");
    expect(run.stdout).toContain("--bots <dir>");
    expect(run.stdout).toContain("--plugins <dir>");
  });
});

describe("bot schema", () => {
  it("reports a plugin whose setup throws, with its bot's file, and exits 1 (bot start would not start that bot)", async () => {
    const dir = await mkdtemp(join(tmpdir(), "postbot-validate-setup-"));
    try {
      await mkdir(join(dir, "bots"));
      await writeFile(join(dir, "bots", "bad.yaml"), "name: bad\nplan: pro\nplugins:\n  boom: {}\n");
      await writeFile(join(dir, "bots", "good.yaml"), 'name: good\nplan: pro\nplugins:\n  echo: { text: "hi" }\n');
      const run = await bot(["validate", "--bots", join(dir, "bots"), "--plugins", "test/fixtures/fleet/plugins"]);
      expect(run).toEqual({
        code: 1,
        stdout: [
          `${join(dir, "bots", "bad.yaml")} plugins.boom: plugin "boom" (test/fixtures/fleet/plugins/boom.ts) failed in its setup: boom in setup; bot start would not start bot bad (bot validate runs each setup against a stand-in bot: no service, no state)`,
          "1 problem in 1 file; fix them before bot start",
          "",
        ].join("\n"),
        stderr: "",
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("warns about options that drop unknown keys and two plugins handling mentions, and still exits 0", async () => {
    const dir = `${FIXTURES}/warnings`;
    const run = await bot(["validate", "--bots", `${dir}/bots`, "--plugins", `${dir}/plugins`]);
    expect(run).toEqual({
      code: 0,
      stdout: [
        `${dir}/plugins/loud.ts: warning: plugin "loud" ignores options it does not know (its schema is z.object), so a misspelt option in a bot file is dropped without a word; use z.strictObject`,
        `${dir}/bots/twice.yaml: warning: bot twice has 2 plugins handling mentions (echo, loud): if they all answer, a post gets one answer, from echo (listed first), and the reply of loud resolves "duplicate"; keep one, or filter in each handler`,
        "OK: 1 bot in 1 file (twice), 2 plugins checked",
        "",
      ].join("\n"),
      stderr: "",
    });
  });

  it("prints the schema of the built-in plugins anywhere (bot.schema.json's plugins)", async () => {
    // In a folder without plugins/: the built-ins come from postbot itself.
    const dir = await mkdtemp(join(tmpdir(), "postbot-schema-"));
    try {
      const run = await bot(["schema"], {}, { cwd: dir });
      expect(run).toEqual({ code: 0, stdout: botJsonSchemaText(await exampleSchemas()), stderr: "" });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    const help = await bot(["schema", "--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("Usage: bot schema");
  });
});
