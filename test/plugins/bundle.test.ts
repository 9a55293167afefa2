/**
 * A project's plugin bundled as the installed postbot loads it (src/plugins/bundle.ts): the
 * bundle is built once and reused while its files are unchanged (esbuild is not started
 * again), an edit to a module the plugin imports makes a new bundle with its new code, each
 * module keeps its own `import.meta.url`, and `import "postbot"` is the running postbot.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { definePlugin } from "../../src/index.ts";
import { bundleCounts, bundledPlugin } from "../../src/plugins/bundle.ts";
import { postbotEntries } from "../../src/plugins/self-import.ts";

let project = "";
const write = (path: string, text: string) => {
  mkdirSync(join(project, path, ".."), { recursive: true });
  writeFileSync(join(project, path), text);
};

const PLUGIN = `import { definePlugin } from "postbot";
import { words, wordsUrl } from "./lib/words.ts";

export const ownUrl = import.meta.url;
export const ownDir = import.meta.dirname;
export { definePlugin, words, wordsUrl };
export default definePlugin({ name: "greet", setup() {} });
`;

beforeAll(() => {
  project = mkdtempSync(join(tmpdir(), "postbot-bundle-"));
  write("package.json", '{ "type": "module" }\n');
  write("plugins/greet.ts", PLUGIN);
  write("plugins/lib/words.ts", 'export const words: string = "hello";\nexport const wordsUrl = import.meta.url;\n');
});
afterAll(() => rmSync(project, { recursive: true, force: true }));

const pluginFile = () => join(project, "plugins", "greet.ts");
const load = async ({ url }: { url: URL }) => (await import(url.href)) as Record<string, unknown>;

describe("a bundled plugin", () => {
  it("is built once, then reused without esbuild while its files are unchanged", async () => {
    const built = bundleCounts.built;
    const first = await bundledPlugin(pluginFile(), project, postbotEntries());
    expect(bundleCounts.built).toBe(built + 1);
    expect(first.files.sort()).toEqual([pluginFile(), join(project, "plugins", "lib", "words.ts")]);
    expect(fileURLToPath(first.url).startsWith(join(project, ".postbot", "plugins", "greet-"))).toBe(true);
    const reused = bundleCounts.reused;
    const again = await bundledPlugin(pluginFile(), project, postbotEntries());
    expect(again.url.href).toBe(first.url.href);
    expect(bundleCounts).toMatchObject({ built: built + 1, reused: reused + 1 });
    // Its manifest lists the plugin's files, the module it imports included.
    const cache = join(project, ".postbot", "plugins");
    const manifests = readdirSync(cache).filter((f) => f.endsWith(".json"));
    expect(manifests).toHaveLength(1);
    const { inputs } = JSON.parse(readFileSync(join(cache, manifests[0]!), "utf8")) as { inputs: object };
    expect(Object.keys(inputs).sort()).toEqual([pluginFile(), join(project, "plugins", "lib", "words.ts")]);
  });

  it("keeps each module's own import.meta, and imports the running postbot", async () => {
    const mod = await load(await bundledPlugin(pluginFile(), project, postbotEntries()));
    expect(mod.ownUrl).toBe(pathToFileURL(pluginFile()).href);
    expect(mod.ownDir).toBe(join(project, "plugins"));
    expect(mod.wordsUrl).toBe(pathToFileURL(join(project, "plugins", "lib", "words.ts")).href);
    expect(mod.definePlugin).toBe(definePlugin);
  });

  it("imports the postbot it is given, not the one the project's node_modules has", async () => {
    write("node_modules/postbot/package.json", '{ "name": "postbot", "type": "module", "exports": "./index.js" }\n');
    write("node_modules/postbot/index.js", 'export const definePlugin = (p) => ({ ...p, from: "node_modules" });\n');
    write("other-postbot/index.js", 'export const definePlugin = (p) => ({ ...p, from: "the running postbot" });\n');
    const entries = { ...postbotEntries(), postbot: pathToFileURL(join(project, "other-postbot", "index.js")).href };
    const mod = await load(await bundledPlugin(pluginFile(), project, entries));
    expect(mod.default).toMatchObject({ name: "greet", from: "the running postbot" });
  });

  it("is built again with the new code of a module the plugin imports", async () => {
    const before = await bundledPlugin(pluginFile(), project, postbotEntries());
    write(
      "plugins/lib/words.ts",
      'export const words: string = "good morning";\nexport const wordsUrl = import.meta.url;\n',
    );
    // A later modification time, whatever the file system's resolution.
    const later = new Date(Date.now() + 5000);
    utimesSync(join(project, "plugins", "lib", "words.ts"), later, later);
    const built = bundleCounts.built;
    const after = await bundledPlugin(pluginFile(), project, postbotEntries());
    expect(bundleCounts.built).toBe(built + 1);
    expect(after.url.href).not.toBe(before.url.href);
    expect((await load(after)).words).toBe("good morning");
  });

  it("fails on a syntax error with esbuild's location of it", async () => {
    write("plugins/broken.ts", 'export default {\n  name: "broken",\n  setup( {\n};\n');
    const error = (await bundledPlugin(join(project, "plugins", "broken.ts"), project, postbotEntries()).catch(
      (e: unknown) => e,
    )) as { errors: { location: { file: string; line: number } }[] };
    expect(error.errors[0]!.location).toMatchObject({ file: join(project, "plugins", "broken.ts"), line: 4 });
  });
});
