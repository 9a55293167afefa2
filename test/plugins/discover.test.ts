import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fileURLToPath } from "node:url";
import { BUILT_IN_PLUGINS } from "../../src/plugins/built-ins.ts";
import { findPlugin, localCandidates, localPluginNames, packageCandidates } from "../../src/plugins/discover.ts";

/** postbot's own plugins/ (the built-ins' source; under vitest, postbot runs from source). */
const builtIn = (name: string) => fileURLToPath(new URL(`../../plugins/${name}.ts`, import.meta.url));

let dir = "";
const write = (path: string, text = "export default {};\n") => {
  mkdirSync(join(dir, path, ".."), { recursive: true });
  writeFileSync(join(dir, path), text);
};

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "postbot-discover-"));
  write("plugins/reply.ts");
  write("plugins/reply.js");
  write("plugins/like.mjs");
  write("plugins/folder/index.js");
  write("plugins/types.d.ts");
  write("plugins/notes.md");
  write("plugins/empty-dir/readme.txt");
  write(
    "node_modules/postbot-plugin-hello/package.json",
    JSON.stringify({ exports: { ".": { require: "./c.cjs", import: "./e.js" } } }),
  );
  write("node_modules/wave/package.json", JSON.stringify({ module: "m.js", main: "c.js" }));
  write("node_modules/postbot-plugin-plain/package.json", JSON.stringify({ name: "postbot-plugin-plain" }));
  write("app/sub/.keep", "");
  write("node_modules/postbot-plugin-repost/package.json", JSON.stringify({ main: "r.js" }));
  write("node_modules/postbot-plugin-like/package.json", JSON.stringify({ main: "l.js" }));
  // A checkout of postbot: its plugins/ is the built-ins' source, linked here.
  mkdirSync(join(dir, "checkout/plugins"), { recursive: true });
  symlinkSync(builtIn("like"), join(dir, "checkout/plugins/like.ts"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("finding a plugin", () => {
  it("prefers the plugins directory, in the documented order of forms", () => {
    expect(findPlugin("folder", { pluginsDir: "plugins", projectDir: dir })).toEqual({
      kind: "file",
      file: join(dir, "plugins/folder/index.js"),
      label: "plugins/folder/index.js",
    });
    expect(findPlugin("reply", { pluginsDir: "plugins", projectDir: dir })?.file).toBe(join(dir, "plugins/reply.ts"));
    expect(findPlugin("like", { pluginsDir: "plugins", projectDir: dir })?.file).toBe(join(dir, "plugins/like.mjs"));
    expect(findPlugin("folder", { pluginsDir: "plugins", projectDir: dir })?.file).toBe(
      join(dir, "plugins/folder/index.js"),
    );
    expect(findPlugin("empty-dir", { pluginsDir: "plugins", projectDir: dir })).toBeUndefined();
  });

  it("takes a built-in after the plugins directory and before npm packages; a local one replacing it says so", () => {
    expect(findPlugin("repost", { pluginsDir: "plugins", projectDir: dir })).toEqual({
      kind: "built-in",
      file: builtIn("repost"),
      label: "built-in repost",
    });
    expect(findPlugin("reply", { pluginsDir: "plugins", projectDir: dir })).toEqual({
      kind: "file",
      file: join(dir, "plugins/reply.ts"),
      label: "plugins/reply.ts",
      shadows: "built-in",
    });
    // The project's plugins/like.mjs comes first; without it, the built-in, never the npm package.
    expect(findPlugin("like", { pluginsDir: "plugins", projectDir: dir })?.shadows).toBe("built-in");
    expect(findPlugin("like", { pluginsDir: "elsewhere", projectDir: dir })?.kind).toBe("built-in");
    for (const name of BUILT_IN_PLUGINS)
      expect(findPlugin(name, { pluginsDir: "none", projectDir: dir })?.file).toBe(builtIn(name));
  });

  it("in a checkout of postbot, takes plugins/NAME.ts for the built-in it is the source of", () => {
    expect(findPlugin("like", { pluginsDir: "plugins", projectDir: join(dir, "checkout") })).toEqual({
      kind: "built-in",
      file: builtIn("like"),
      label: "plugins/like.ts",
    });
  });

  it("finds npm packages from the project directory upwards, with their import entry", () => {
    expect(findPlugin("hello", { pluginsDir: "plugins", projectDir: join(dir, "app/sub") })).toEqual({
      kind: "package",
      file: join(dir, "node_modules/postbot-plugin-hello/e.js"),
      label: "postbot-plugin-hello",
    });
    expect(findPlugin("wave", { pluginsDir: "plugins", projectDir: dir })?.file).toBe(
      join(dir, "node_modules/wave/m.js"),
    );
    expect(findPlugin("plain", { pluginsDir: "plugins", projectDir: dir })?.file).toBe(
      join(dir, "node_modules/postbot-plugin-plain/index.js"),
    );
    expect(findPlugin("nowhere", { pluginsDir: "plugins", projectDir: dir })).toBeUndefined();
  });

  it("names the places it looks", () => {
    expect(localCandidates("x")).toEqual(["x.ts", "x.js", "x.mts", "x.mjs", "x/index.ts", "x/index.js"]);
    expect(localCandidates("@a/x")).toEqual([]);
    expect(packageCandidates("x")).toEqual(["postbot-plugin-x", "x"]);
    expect(packageCandidates("@a/x")).toEqual(["@a/postbot-plugin-x", "@a/x"]);
    expect(packageCandidates("postbot-plugin-x")).toEqual(["postbot-plugin-x"]);
  });

  it("lists the local plugin names for suggestions", () => {
    expect(localPluginNames("plugins", dir)).toEqual(["folder", "like", "reply"]);
    expect(localPluginNames("missing", dir)).toEqual([]);
  });
});
