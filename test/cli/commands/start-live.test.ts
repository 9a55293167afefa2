/**
 * A running `bot start` (a real process, the embedded sandbox, real time) while its bot files
 * change (issue 23 items 1 and 3): a new file's bot answers, a changed file's bot answers with
 * its new text, a broken file is reported as `bot validate` reports it while its bot goes on
 * as it was, a removed file's bot stops; SIGHUP reads the directory again; the admin API of
 * its `--http` server takes its token from the environment; a changed plugin's bots restart
 * with its new code. The process is killed after each test, whatever happened.
 */
import { mkdir, mkdtemp, rm, unlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { killBots, lineReader, runBot, spawnBot } from "../../helpers/cli.ts";

const TOKEN = "live-fleet-admin-token-0123456789";
const dirs: string[] = [];
afterEach(killBots);
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

const botFile = (name: string, text: string, plan = "pro") =>
  `name: ${name}\nplan: ${plan}\ntriggers:\n  mentions: {}\nplugins:\n  echo:\n    text: "${text}"\n`;

/** The project's own plugin (its directory is watched too): answers "TEXT: what was said". */
const ECHO = `import { z } from ${JSON.stringify(resolve("node_modules/zod/index.js"))};
import { definePlugin } from ${JSON.stringify(resolve("src/plugins/plugin.ts"))};

export default definePlugin({
  name: "echo",
  options: z.strictObject({ text: z.string() }),
  setup(bot, options) {
    bot.on("mention", async (ctx) => {
      await ctx.reply(\`\${options.text}: \${ctx.post.text.replace(/@\\w+\\s*/g, "")}\`);
    });
  },
});
`;

describe("bot start while its bot files change", () => {
  it("starts, restarts and stops bots as their files are added, changed, broken and removed; SIGHUP reads them again", async () => {
    const dir = await mkdtemp(join(tmpdir(), "postbot-live-"));
    dirs.push(dir);
    const bots = join(dir, "bots");
    const data = join(dir, "data");
    const plugins = join(dir, "plugins");
    await mkdir(bots);
    await mkdir(plugins);
    await writeFile(join(plugins, "echo.ts"), ECHO);
    await writeFile(join(dir, "package.json"), '{"type": "module"}\n'); // as a project's: ES modules
    await writeFile(join(bots, "alpha.yaml"), botFile("alpha", "alpha v1"));
    const child = spawnBot(["start", "--bots", bots, "--plugins", plugins, "--data", data, "--http", "127.0.0.1:0"], {
      env: { POSTBOT_ADMIN_TOKEN: TOKEN, POSTBOT_ADMIN_TOKEN_NAME: "tester" },
    });
    const out = lineReader(child.stdout);
    const logged = async (msg: RegExp) =>
      JSON.parse(await out.waitFor(new RegExp(`"msg":"${msg.source}`))) as Record<string, unknown>;
    const say = async (text: string) => {
      const run = await runBot(["say", "--as", "alice", "--data", data, "--wait", "60", text]);
      expect(run.stderr).toBe("");
      return run.stdout;
    };
    await logged(/all bots started/);
    const http = String((await logged(/status page at/)).http);

    // Added.
    await writeFile(join(bots, "beta.yaml"), botFile("beta", "beta v1"));
    await logged(/bot beta started/);
    expect(await say("@beta hello")).toContain("beta v1: hello");

    // Changed: it answers with its new text; the other bot is untouched.
    await writeFile(join(bots, "alpha.yaml"), botFile("alpha", "alpha v2"));
    await logged(/bot alpha restarted with its new configuration/);
    expect(await say("@alpha how are you")).toContain("alpha v2: how are you");

    // Broken: reported as bot validate says it; the running version goes on.
    await writeFile(join(bots, "beta.yaml"), botFile("beta", "beta v2", "gold"));
    const problem = await logged(/[^"]*beta\.yaml:2:7 plan: \\"gold\\" is not a plan/);
    expect(String(problem.msg)).toMatch(/beta\.yaml:2:7 plan: "gold" is not a plan; use one of/);
    await logged(/[^"]*beta\.yaml changed but has a problem; bot beta goes on with the configuration it had/);
    expect(await say("@beta still there")).toContain("beta v1: still there");

    // Removed.
    await unlink(join(bots, "alpha.yaml"));
    await logged(/bot alpha stopped: [^"]*alpha\.yaml was removed/);

    // A plugin's code changed: the bot that uses it restarts with the new code (with the
    // configuration it runs, not its broken file's), and answers with it.
    await writeFile(join(plugins, "echo.ts"), ECHO.replace("options.text", "options.text.toUpperCase()"));
    await logged(/bot beta restarted with the new code of plugin echo \(by [^"]*echo\.ts\)/);
    expect(await say("@beta after the plugin changed")).toContain("BETA V1: after the plugin changed");
    // A new plugin no bot names yet, and a module plugins import: each said as it is.
    await writeFile(join(plugins, "shout.ts"), ECHO.replace('name: "echo"', 'name: "shout"'));
    await logged(
      /[^"]*shout\.ts changed: no running bot uses plugin shout; a bot file that names it gets its code as it is now/,
    );
    await mkdir(join(plugins, "lib"));
    await writeFile(join(plugins, "lib", "words.ts"), "export const WORDS = 1;\n");
    await logged(
      /[^"]*lib\/words\.ts changed: it is a module that plugins import, not a plugin's own file, and a module is imported once: restart bot start to use it/,
    );
    expect(out.lines.join("\n")).not.toContain("plugin code is loaded once");

    // SIGHUP: the whole directory again (beta is still broken, so it is reported again).
    child.kill("SIGHUP");
    await logged(/SIGHUP: reading [^"]*bots again/);

    // The admin API, with the token from the environment.
    const list = async (token: string) =>
      fetch(`${http}/api/admin/bots`, { headers: { authorization: `Bearer ${token}` } });
    expect((await list("not-the-token-at-all")).status).toBe(401);
    const bots200 = await list(TOKEN);
    expect(bots200.status).toBe(200);
    expect(((await bots200.json()) as { bots: Array<{ name: string }> }).bots.map((b) => b.name)).toEqual(["beta"]);
    expect(out.lines.join("\n")).not.toContain(TOKEN);

    const exit = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    child.kill("SIGTERM");
    expect(await exit).toBe(0);
  }, 120_000);
});
