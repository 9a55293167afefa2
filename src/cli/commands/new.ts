/**
 * `bot new bot NAME` and `bot new plugin NAME`: start from files that work as written (a bot
 * that validates; a plugin with a passing test on `postbot/testing`).
 */
import type { Command } from "commander";

export default function register(program: Command): void {
  const create = program.command("new").description("write a new bot file, or a new plugin with its test");
  create
    .command("bot")
    .description("write bots/NAME.yaml: a bot that answers mentions with the reply plugin")
    .argument("<name>", "the bot's name (lower-case letters, digits and dashes)")
    .option("--bots <dir>", "directory of bot files", "bots")
    .action(async (name: string, options: { bots: string }) => {
      const { newBot } = await import("../scaffold.ts");
      const file = await newBot(name, options.bots);
      process.stdout.write(
        `wrote ${file}; check it with \`npx bot validate\`, run it with \`npx bot start --only ${name}\`\n`,
      );
    });
  create
    .command("plugin")
    .description("write plugins/NAME.ts and its test, test/NAME.test.ts (on postbot/testing; npm test runs it)")
    .argument("<name>", "the plugin's name (lower-case letters, digits and dashes)")
    .option("--plugins <dir>", "directory of local plugins", "plugins")
    .option("--tests <dir>", "directory for the plugin's test", "test")
    .option("--dialog", "write a plugin that holds a dialog (a question, the answer, a timeout)")
    .action(async (name: string, options: { plugins: string; tests: string; dialog?: boolean }) => {
      const { newPlugin, missingForTests } = await import("../scaffold.ts");
      const [plugin, test] = await newPlugin(name, options.plugins, options.tests, {
        dialog: options.dialog ?? false,
      });
      const missing = missingForTests(process.cwd());
      // A project without vitest (or its own postbot) cannot run the test yet: say what makes it run.
      const installs = [
        ...(missing.includes("postbot") ? ["npm install postbot"] : []),
        ...(missing.includes("vitest") ? ["npm install --save-dev vitest"] : []),
      ];
      const run =
        installs.length === 0
          ? `run its test with \`npx vitest run ${test}\` (\`npm test\` runs every test)`
          : `this project cannot run its test yet: \`${installs.join(" && ")}\` first (a project written by \`bot init\` can), then \`npx vitest run ${test}\``;
      process.stdout.write(
        `wrote ${plugin} and ${test}; ${run}, and list the plugin in a bot file to run it: plugins: { ${name}: {} }\n`,
      );
    });
}
