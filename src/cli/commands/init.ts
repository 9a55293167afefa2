/**
 * `bot init [DIR]`: a new bot project that depends on postbot (./init.ts says what it holds),
 * so a user's bots live in a project of their own and postbot is a versioned dependency.
 */
import type { Command } from "commander";

export default function register(program: Command): void {
  program
    .command("init")
    .description(
      "write a new bot project into DIR: package.json (depending on postbot), two example bots, a plugin and its test, a README",
    )
    .argument("[dir]", "the project's folder (created when missing; it must be empty)", ".")
    .option("--force", "write the project's files even if DIR has files (those of the same name are replaced)")
    .action(async (dir: string, options: { force?: boolean }) => {
      const [{ initProject }, { builtInSchemaText }] = await Promise.all([
        import("../init.ts"),
        import("../built-in-schema.ts"),
      ]);
      const files = await initProject(dir, { force: options.force ?? false, schema: await builtInSchemaText() });
      const cd = dir === "." ? "" : `  cd ${dir}\n`;
      process.stdout.write(
        `wrote a bot project in ${dir === "." ? "this folder" : dir} (${files.length} files: bots/, plugins/, test/, templates/, package.json, README.md...). Next:\n${cd}  npm install && npm start   # its bots on an embedded sandbox, with simulated users\n  npm test                   # its own tests\n`,
      );
    });
}
