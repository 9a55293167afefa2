import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { definitionOf, definitionProblem } from "../../src/plugins/definition.ts";
import { loadPlugin } from "../../src/plugins/load.ts";

const fixture = (name: string) => ({
  kind: "file" as const,
  file: resolve("test/fixtures/plugins", name),
  label: `plugins/${name}`,
});

describe("plugin definitions", () => {
  it("say what is wrong with a default export", () => {
    const usage = "write export default definePlugin({ name, options, setup })";
    expect(definitionProblem(undefined)).toBe(`it has no default export; ${usage}`);
    expect(definitionProblem(() => {})).toBe(`its default export is a function, not a plugin; ${usage}`);
    expect(definitionProblem({ setup() {} })).toBe(`its default export has no name (a non-empty string); ${usage}`);
    expect(definitionProblem({ name: "x" })).toBe(`its default export has no setup function; ${usage}`);
    expect(definitionProblem({ name: "x", setup() {}, options: { text: "string" } })).toBe(
      "its options are not a zod schema; write options: z.object({ ... })",
    );
    expect(definitionProblem({ name: "x", setup() {}, options: z.object({}) })).toBeUndefined();
    expect(definitionProblem({ name: "x", setup() {} })).toBeUndefined();
  });

  it("are found in a CommonJS build's nested default too", () => {
    const plugin = { name: "x", setup() {} };
    expect(definitionOf({ default: { default: plugin } })).toBe(plugin);
    expect(definitionOf({ default: plugin })).toBe(plugin);
  });
});

describe("loadPlugin", () => {
  it("loads TypeScript plugins without a build step", async () => {
    const loaded = await loadPlugin(fixture("reply.ts"));
    expect(loaded.ok).toBe(true);
    if (loaded.ok) expect(loaded.definition.name).toBe("reply");
  });

  it("turns import failures and wrong exports into one message naming the file", async () => {
    expect(await loadPlugin(fixture("throws-on-import.ts"))).toMatchObject({
      ok: false,
      message: "could not be loaded from plugins/throws-on-import.ts: the weather service is down",
    });
    expect(await loadPlugin(fixture("not-a-plugin.ts"))).toMatchObject({
      ok: false,
      message:
        "(plugins/not-a-plugin.ts) is not a plugin: its default export has no setup function; write export default definePlugin({ name, options, setup })",
    });
    const broken = await loadPlugin(fixture("broken-syntax.js"));
    expect(broken.ok).toBe(false);
    if (!broken.ok) expect(broken.message).toMatch(/^could not be loaded from plugins\/broken-syntax\.js: \S/);
  });
});
