/**
 * What `bot init [DIR]` writes: a bot project of its own that depends on postbot, rather than
 * a clone of postbot's repository. Its files come from the package's starter/ folder (bot
 * files, a template, tsconfig.json, .gitignore, a README opening with the two commands), its
 * example plugin and test from `bot new plugin`'s templates (./scaffold.ts), its package.json
 * and bot.schema.json from this postbot: the version that runs, and the dependency ranges
 * postbot itself is built and tested with.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { cp, mkdir, readFile, writeFile } from "node:fs/promises";
import { basename, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { ZodType } from "zod";
import { UserError } from "../errors.ts";
import { packageFile } from "../package-files.ts";
import { pluginTemplate, pluginTestTemplate } from "./scaffold.ts";

/** The example plugin a new project has, used by its greeter bot. */
const EXAMPLE_PLUGIN = "hello";

/** postbot's own manifest, where the versions a project starts with are written once. */
interface Manifest {
  version: string;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
}

function manifest(): Manifest {
  return JSON.parse(readFileSync(packageFile("package.json"), "utf8")) as Manifest;
}

/** A package name from a folder's name (`My Bots` → `my-bots`), as npm accepts it. */
export function projectName(dir: string): string {
  const name = basename(resolve(dir))
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, "-")
    .replace(/^[._-]+|[-]+$/g, "");
  return name || "bots";
}

/** The new project's package.json: postbot at the running version; vitest and typescript to test its plugins. */
export function projectManifest(name: string, postbot: Manifest = manifest()): string {
  const dev = (pkg: string) => postbot.devDependencies[pkg] ?? postbot.dependencies[pkg] ?? "*";
  const pkg = {
    name,
    version: "0.1.0",
    private: true,
    type: "module",
    scripts: {
      start: "bot start --http 127.0.0.1:0",
      test: "tsc --noEmit && vitest run",
    },
    dependencies: { postbot: `^${postbot.version}`, zod: postbot.dependencies.zod ?? "*" },
    devDependencies: { "@types/node": dev("@types/node"), typescript: dev("typescript"), vitest: dev("vitest") },
  };
  return `${JSON.stringify(pkg, null, 2)}\n`;
}

/** Entries that do not make a folder "not empty": a fresh `git init` leaves `.git`. */
const IGNORED = new Set([".git"]);

/** The files `bot init` writes, relative to the project (for the message that lists them). */
export const PROJECT_FILES = [
  "package.json",
  "tsconfig.json",
  ".gitignore",
  "README.md",
  "bot.schema.json",
  "bots/greeter.yaml",
  "bots/survey.yaml",
  `plugins/${EXAMPLE_PLUGIN}.ts`,
  `test/${EXAMPLE_PLUGIN}.test.ts`,
  "templates/greeter.yaml",
];

export interface InitOptions {
  force?: boolean;
  /** The bot file JSON Schema to write (`bot schema`'s text, with the built-in plugins' options). */
  schema: string;
}

/**
 * Writes the project into `dir` (created when missing); returns the files written.
 *
 * @throws UserError when `dir` has files and `force` is not set: nothing is written then.
 */
export async function initProject(dir: string, options: InitOptions): Promise<string[]> {
  if (existsSync(dir) && !options.force) {
    const present = readdirSync(dir).filter((entry) => !IGNORED.has(entry));
    if (present.length > 0)
      throw new UserError(
        `${dir} is not empty (${present.slice(0, 3).join(", ")}${present.length > 3 ? ", ..." : ""}): give a new folder (bot init my-bots), or --force to write the project's files over what is there`,
        { exitCode: 2 },
      );
  }
  const starter = fileURLToPath(packageFile("starter/"));
  await mkdir(dir, { recursive: true });
  await cp(join(starter, "bots"), join(dir, "bots"), { recursive: true });
  await cp(join(starter, "templates"), join(dir, "templates"), { recursive: true });
  // npm leaves a .gitignore out of a package, so the starter's is named gitignore.
  await cp(join(starter, "gitignore"), join(dir, ".gitignore"));
  await cp(join(starter, "tsconfig.json"), join(dir, "tsconfig.json"));
  const name = projectName(dir);
  const readme = await readFile(join(starter, "README.md"), "utf8");
  await writeFile(join(dir, "README.md"), readme.replace(/^# NAME$/m, `# ${name}`));
  await writeFile(join(dir, "package.json"), projectManifest(name));
  await writeFile(join(dir, "bot.schema.json"), options.schema);
  await mkdir(join(dir, "plugins"), { recursive: true });
  await mkdir(join(dir, "test"), { recursive: true });
  await writeFile(join(dir, "plugins", `${EXAMPLE_PLUGIN}.ts`), pluginTemplate(EXAMPLE_PLUGIN, "bot init"));
  await writeFile(
    join(dir, "test", `${EXAMPLE_PLUGIN}.test.ts`),
    pluginTestTemplate(EXAMPLE_PLUGIN, `../plugins/${EXAMPLE_PLUGIN}.ts`),
  );
  return PROJECT_FILES.map((file) => join(dir, file));
}

/** The options schemas of the built-in plugins, by name, for the project's bot.schema.json. */
export type PluginSchemas = Record<string, ZodType | undefined>;
