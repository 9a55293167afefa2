/**
 * What `bot new` writes: a bot file that validates as written, and a plugin with its test on
 * `postbot/testing` that passes as written (`npm test`), so a newcomer starts from working
 * code rather than a blank page. Existing files are never overwritten.
 */
import { existsSync, readFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join, relative, resolve } from "node:path";
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

export function pluginTemplate(name: string, by = "bot new plugin"): string {
  return `// plugins/${name}.ts, written by \`${by}\`: it answers mentions (postbot's README, "Your first plugin").
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

/**
 * The start both scaffolded tests share, up to the test's own steps: the test bed on the
 * sandbox with one pro bot "tester" running the plugin, and a user alice.
 */
function testOpening(name: string, pluginFile: string, title: string): string {
  return `// The test of plugins/${name}.ts: the sandbox in-process, on a clock that moves only when told.
import { afterEach, expect, it } from "vitest";
import { createTestBed, type TestBed } from "postbot/testing";
import plugin from "${pluginFile}";

let bed: TestBed | undefined;
afterEach(async () => {
  await bed?.close();
});

it("${title}", async () => {
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
  const alice = await bed.user("alice");`;
}

export function pluginTestTemplate(name: string, pluginFile: string): string {
  return `${testOpening(name, pluginFile, "answers a mention")}
  await bed.post(alice, "@tester hello");
  await bed.advance(3_000); // the next mentions poll on the pro plan
  await bed.settle();
  expect(bed.postsBy("tester").map((p) => p.text)).toEqual(["Hello @alice!"]);
});
`;
}

/**
 * A plugin holding a dialog (`bot new plugin NAME --dialog`): a question in the
 * thread of the mention that starts it, the answer checked, kept in the user's session, a
 * timeout and a cancel word (docs/dialogs.md explains each part).
 */
export function dialogPluginTemplate(name: string): string {
  return `// plugins/${name}.ts (written by \`bot new plugin --dialog\`; see docs/dialogs.md).
// List it in a bot file to run it:  plugins: { ${name}: {} }
import { definePlugin } from "postbot";
import { z } from "zod";

export default definePlugin({
  name: "${name}",
  options: z.strictObject({
    start: z.string().min(1).default("order").describe("a mention containing this word starts the dialog"),
  }),
  // What the plugin keeps per user, the dialog's answers too (turn.session is ctx.session): {} for a user it never met.
  session: z.strictObject({ size: z.string().optional() }),
  setup(bot, options) {
    // A dialog is named steps; each turn says something and waits in a step, or ends.
    // Its state is saved with the message it sends, so a crash never asks a question twice.
    const order = bot.dialog("order", {
      start(turn) {
        turn.wait("size", { say: "Which size: S, M or L?" });
      },
      steps: {
        size(turn) {
          const size = turn.text.toUpperCase(); // the answer, without the @mentions it starts with
          if (!["S", "M", "L"].includes(size)) return turn.wait("size", { say: "S, M or L, please." });
          turn.session.size = size;
          turn.say(\`Size \${size}, noted. Thanks!\`); // no wait: the dialog ends
        },
      },
      timeoutMs: 10 * 60_000,
      timeout(turn) {
        turn.say("No answer, so I stopped.");
      },
      cancel: ["stop"],
    });
    bot.on("mention", async (ctx) => {
      if (ctx.post.text.toLowerCase().includes(options.start)) await order.start(ctx);
    });
  },
});
`;
}

/** The test of {@link dialogPluginTemplate}: the dialog in a thread, on the sandbox. */
export function dialogTestTemplate(name: string, pluginFile: string): string {
  return `${testOpening(name, pluginFile, "asks in the thread, takes the answer there, and keeps it in the session")}
  await bed.post(alice, "@tester I'd like to order");
  await bed.settle();
  expect(bed.postsBy("tester").map((p) => p.text)).toEqual(["@alice Which size: S, M or L?"]);
  expect(bed.dialog("tester", alice)?.step).toBe("size");

  await bed.answer(alice, "tester", "XL"); // a reply to the question, in its thread
  await bed.settle();
  await bed.answer(alice, "tester", "m");
  await bed.settle();
  expect(bed.postsBy("tester").map((p) => p.text)).toEqual([
    "@alice Which size: S, M or L?",
    "@alice S, M or L, please.",
    "@alice Size M, noted. Thanks!",
  ]);
  expect(bed.dialog("tester", alice)).toBeUndefined();
});
`;
}

/**
 * What a plugin's test needs installed in the project and is not there: vitest runs it,
 * and `postbot/testing` is imported from the project's own postbot (found as Node would,
 * up from `projectDir`; in postbot's own repository, itself). Empty when the test can run.
 */
export function missingForTests(projectDir: string): string[] {
  const missing: string[] = [];
  if (!installed("vitest", projectDir)) missing.push("vitest");
  if (!installed("postbot", projectDir) && nearestPackageName(projectDir) !== "postbot") missing.push("postbot");
  return missing;
}

function installed(pkg: string, from: string): boolean {
  for (let dir = resolve(from); ; dir = dirname(dir)) {
    if (existsSync(join(dir, "node_modules", pkg, "package.json"))) return true;
    if (dirname(dir) === dir) return false;
  }
}

function nearestPackageName(from: string): string | undefined {
  for (let dir = resolve(from); ; dir = dirname(dir)) {
    const file = join(dir, "package.json");
    if (existsSync(file)) {
      try {
        return (JSON.parse(readFileSync(file, "utf8")) as { name?: string }).name;
      } catch {
        return undefined;
      }
    }
    if (dirname(dir) === dir) return undefined;
  }
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

/**
 * Writes `PLUGINS/NAME.ts` and `TESTS/NAME.test.ts` (with `dialog`: a plugin holding a
 * dialog); returns the files written.
 */
export async function newPlugin(
  name: string,
  pluginsDir: string,
  testsDir: string,
  options: { dialog?: boolean } = {},
): Promise<string[]> {
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
  const dialog = options.dialog ?? false;
  await writeNew(plugin, dialog ? dialogPluginTemplate(name) : pluginTemplate(name));
  await writeNew(test, dialog ? dialogTestTemplate(name, importPath) : pluginTestTemplate(name, importPath));
  return [plugin, test];
}
