/**
 * What `bot new` writes: a bot file that validates as written, and a plugin with its test on
 * `postbot/testing` that passes as written (`npm test`), so a newcomer starts from working
 * code rather than a blank page. Existing files are never overwritten.
 */
import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join, relative } from "node:path";
import { BOT_NAME_PATTERN } from "../config/schema.ts";
import { UserError } from "../errors.ts";

/** Local plugin names `bot new plugin` accepts: what a file name and a bot file key can both be. */
const LOCAL_PLUGIN_NAME = /^[a-z][a-z0-9-]*$/;

/** `shout` or `"shout-back"`: the name as an object key, quoted only when it must be (as Biome writes keys). */
const key = (name: string) => (/^[a-z][a-z0-9]*$/.test(name) ? name : JSON.stringify(name));

export function botTemplate(name: string): string {
  return `# yaml-language-server: $schema=../bot.schema.json
# ${name}: answers each mention (written by \`bot new bot\`; see README.md, "Your first bot").
name: ${name}
plan: basic                      # pro | basic | free: the limits of the app's plan
triggers:
  mentions: {}                   # poll the mention timeline as often as the plan allows
plugins:                         # run in this order
  reply:
    text: "Hello @{author.username}!"
`;
}

export function pluginTemplate(name: string): string {
  return `// plugins/${name}.ts (written by \`bot new plugin\`; see README.md, "Your first plugin").
// List it in a bot file to run it:  plugins: { ${name}: {} }
import { definePlugin } from "postbot";
import { z } from "zod";

export default definePlugin({
  name: "${name}",
  // Strict: an option the schema does not name (a typo) is a \`bot validate\` problem, not silently ignored.
  options: z.strictObject({
    text: z.string().min(1).default("Hello @{username}!").describe("the answer; {username} is the author's username"),
  }),
  setup(bot, options) {
    bot.on("mention", async (ctx) => {
      const outcome = await ctx.reply(options.text.replaceAll("{username}", ctx.author.username));
      // "sent" (outcome.result.data.id is the reply's id), or why not: "duplicate", "refused", "dropped", ...
      ctx.log.info({ status: outcome.status }, \`answered: \${outcome.status}\`);
    });
  },
});
`;
}

export function pluginTestTemplate(name: string, pluginFile: string): string {
  return `// The test of plugins/${name}.ts: the sandbox in-process, on a clock that moves only when told.
import { afterEach, expect, it } from "vitest";
import { createTestBed, type TestBed } from "postbot/testing";
import plugin from "${pluginFile}";

let bed: TestBed | undefined;
afterEach(async () => {
  await bed?.close();
});

it("answers a mention", async () => {
  bed = await createTestBed({
    bots: [
      {
        name: "tester",
        plan: "pro",
        triggers: { mentions: {} },
        plugins: { ${key(name)}: {} },
      },
    ],
    plugins: { ${key(name)}: plugin },
  });
  const alice = await bed.user("alice");
  await bed.post(alice, "@tester hello");
  await bed.advance(3_000); // the next mentions poll on the pro plan
  await bed.settle();
  expect(bed.postsBy("tester").map((p) => p.text)).toEqual(["Hello @alice!"]);
});
`;
}

async function writeNew(file: string, text: string): Promise<void> {
  if (existsSync(file))
    throw new UserError(`${file} exists already; choose another name (bot new never overwrites a file)`);
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, text, { flag: "wx" });
}

/** Writes `DIR/NAME.yaml`; returns the file written. */
export async function newBot(name: string, botsDir: string): Promise<string> {
  if (!BOT_NAME_PATTERN.test(name))
    throw new UserError(`"${name}" is not a bot name: use lower-case letters, digits and dashes (a-z, 0-9, -)`, {
      exitCode: 2,
    });
  const file = join(botsDir, `${name}.yaml`);
  await writeNew(file, botTemplate(name));
  return file;
}

/** Writes `PLUGINS/NAME.ts` and `TESTS/NAME.test.ts`; returns the files written. */
export async function newPlugin(name: string, pluginsDir: string, testsDir: string): Promise<string[]> {
  if (!LOCAL_PLUGIN_NAME.test(name))
    throw new UserError(
      `"${name}" is not a plugin name: use lower-case letters, digits and dashes, starting with a letter`,
      { exitCode: 2 },
    );
  const plugin = join(pluginsDir, `${name}.ts`);
  const test = join(testsDir, `${name}.test.ts`);
  if (existsSync(test))
    throw new UserError(`${test} exists already; choose another name (bot new never overwrites a file)`);
  let importPath = relative(testsDir, plugin).split("\\").join("/");
  if (!importPath.startsWith(".")) importPath = `./${importPath}`;
  await writeNew(plugin, pluginTemplate(name));
  await writeNew(test, pluginTestTemplate(name, importPath));
  return [plugin, test];
}
