/**
 * `npm test` checks the format of `plugins/` and `test/` (Biome), so what `bot new plugin`
 * writes must already be formatted as `biome.json` says: otherwise a newcomer's first
 * `npm test` fails on files they did not write. Each file goes through `biome format` as it
 * would at its place in the tree.
 */
import { describe, expect, it } from "vitest";
import {
  dialogPluginTemplate,
  dialogTestTemplate,
  pluginTemplate,
  pluginTestTemplate,
} from "../../src/cli/scaffold.ts";
import { biomeFormat } from "../helpers/biome.ts";

describe("bot new plugin", () => {
  for (const name of ["shout", "shout-back", "a-rather-long-plugin-name-that-answers-mentions-in-a-loud-voice"]) {
    it(`writes ${name} and its test formatted as biome.json says`, () => {
      const plugin = pluginTemplate(name);
      const test = pluginTestTemplate(name, `../plugins/${name}.ts`);
      expect(biomeFormat(`plugins/${name}.ts`, plugin)).toBe(plugin);
      expect(biomeFormat(`test/${name}.test.ts`, test)).toBe(test);
    });
  }
});

describe("bot new plugin --dialog", () => {
  for (const name of ["order", "take-an-order"]) {
    it(`writes ${name} and its test formatted as biome.json says`, () => {
      const plugin = dialogPluginTemplate(name);
      const test = dialogTestTemplate(name, `../plugins/${name}.ts`);
      expect(biomeFormat(`plugins/${name}.ts`, plugin)).toBe(plugin);
      expect(biomeFormat(`test/${name}.test.ts`, test)).toBe(test);
    });
  }
});
