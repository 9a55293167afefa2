import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findPlugin, localCandidates, localPluginNames, packageCandidates } from "../../src/plugins/discover.ts";

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
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("finding a plugin", () => {
  it("prefers the plugins directory, in the documented order of forms", () => {
    expect(findPlugin("reply", { pluginsDir: "plugins", projectDir: dir })).toEqual({
      kind: "file",
      file: join(dir, "plugins/reply.ts"),
      label: "plugins/reply.ts",
    });
    expect(findPlugin("like", { pluginsDir: "plugins", projectDir: dir })?.file).toBe(join(dir, "plugins/like.mjs"));
    expect(findPlugin("folder", { pluginsDir: "plugins", projectDir: dir })?.file).toBe(
      join(dir, "plugins/folder/index.js"),
    );
    expect(findPlugin("empty-dir", { pluginsDir: "plugins", projectDir: dir })).toBeUndefined();
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
