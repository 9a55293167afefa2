/**
 * A scratch copy of this checkout as a newcomer has it after `git clone` and `npm install`,
 * for running the documentation's commands as written: the code (`src/`, `bin/`,
 * `node_modules/`, the configuration, the folders of `test/`) is linked, and what a reader
 * is told to write or regenerate (`bots/`, `templates/`, `plugins/`, the top of `test/`, `bot.schema.json`,
 * `.postbot/`) is the scratch copy's own, starting from the examples postbot ships (never
 * what a user added here; the built-in plugins' files are linked). Nothing the documents run
 * may write into what is linked.
 *
 * Within the suite, `bin/` runs the compiled postbot (test/helpers/built.ts): the documents'
 * `npx bot` and `npm start` run what the package ships, compiled once per run rather than by
 * tsx in every command (about 0.5 s of CPU each); TypeScript plugins still load through tsx.
 */
import { cp, mkdir, mkdtemp, readdir, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { EXAMPLE_BOTS, EXAMPLE_PLUGINS, EXAMPLE_TEMPLATES } from "./examples.ts";
import { botBin } from "./built.ts";

/** What the scratch copy links from this checkout: the code and its configuration (and `bin/`, below). */
const LINKED = ["src", "scripts", "node_modules", "package.json", "tsconfig.json", "biome.json", "vitest.config.ts"];

export interface ScratchClone {
  dir: string;
  remove(): Promise<void>;
}

export async function scratchClone(): Promise<ScratchClone> {
  const root = resolve(".");
  const dir = await mkdtemp(join(tmpdir(), "postbot-clone-"));
  for (const entry of LINKED) await symlink(join(root, entry), join(dir, entry));
  // The checkout's bin/, or the one that runs the suite's build.
  await symlink(dirname(botBin()), join(dir, "bin"));
  await mkdir(join(dir, "bots"));
  for (const name of EXAMPLE_BOTS) await cp(join(root, "bots", `${name}.yaml`), join(dir, "bots", `${name}.yaml`));
  await mkdir(join(dir, "templates"));
  for (const name of EXAMPLE_TEMPLATES)
    await cp(join(root, "templates", `${name}.yaml`), join(dir, "templates", `${name}.yaml`));
  // The built-ins' source, as a clone has it: linked, so that each is the built-in itself, not a
  // plugin of the project replacing it (src/plugins/discover.ts); the documents add their own beside.
  await mkdir(join(dir, "plugins"));
  for (const name of EXAMPLE_PLUGINS)
    await symlink(join(root, "plugins", `${name}.ts`), join(dir, "plugins", `${name}.ts`));
  await symlink(join(root, "plugins", "lib"), join(dir, "plugins", "lib"));
  // The repository's own tests (the documents run some: `npx vitest run test/moderation/...`),
  // folder by folder; the top of test/ is the reader's (`bot new plugin` writes test/NAME.test.ts).
  await mkdir(join(dir, "test"));
  for (const entry of await readdir(join(root, "test"), { withFileTypes: true }))
    if (entry.isDirectory() && !entry.name.startsWith("."))
      await symlink(join(root, "test", entry.name), join(dir, "test", entry.name));
  await cp(join(root, "bot.schema.json"), join(dir, "bot.schema.json"));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}
