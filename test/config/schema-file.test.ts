import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { ACTION_NAMES, botJsonSchema, botJsonSchemaText } from "../../src/config/schema.ts";
import { killBots, runBot } from "../helpers/cli.ts";
import { BUILT_IN_PLUGINS } from "../../src/plugins/built-ins.ts";
import { EXAMPLE_PLUGINS, exampleSchemas } from "../helpers/examples.ts";

afterEach(killBots);

type Schema = {
  anyOf?: Schema[];
  type?: string;
  properties?: Record<string, Schema>;
  items?: Schema;
  enum?: unknown[];
};

describe("bot.schema.json", () => {
  it("holds what `bot schema` prints for the example plugins, whatever other plugins it has (regenerate: npx bot schema > bot.schema.json)", async () => {
    // The README tells users to regenerate the file after adding a plugin: their plugins'
    // entries are theirs, so only the rest is compared (built from the example plugins).
    type File = { properties: { plugins: { properties: Record<string, unknown> } } };
    const file = JSON.parse(readFileSync("bot.schema.json", "utf8")) as File;
    const expected = JSON.parse(botJsonSchemaText(await exampleSchemas())) as File;
    const examples = expected.properties.plugins.properties;
    const theirs = Object.fromEntries(
      Object.entries(file.properties.plugins.properties).filter(([name]) => name in examples),
    );
    expect(theirs).toEqual(examples);
    file.properties.plugins.properties = {};
    expected.properties.plugins.properties = {};
    expect(file).toEqual(expected);
  });

  it("checks each plugin's options, so an editor flags reply.text: 42", async () => {
    const schema = botJsonSchema(await exampleSchemas()) as {
      properties: { plugins: { properties: Record<string, Schema>; additionalProperties: unknown } };
    };
    const plugins = schema.properties.plugins;
    expect(Object.keys(plugins.properties)).toEqual([...EXAMPLE_PLUGINS]);
    const [reply, empty] = plugins.properties.reply!.anyOf!;
    expect(empty).toEqual({ type: "null" }); // `reply:` alone means the defaults
    const text = reply!.properties!.text!;
    // A string or a list of strings: 42 matches neither.
    expect(text.anyOf!.map((s) => s.type)).toEqual(["string", "array"]);
    expect(text.anyOf![1]!.items!.type).toBe("string");
    expect(reply!.properties!.events!.items!.enum).toBeDefined();
    // Names not in plugins/ (npm plugins) stay open.
    expect(plugins.additionalProperties).toEqual({});
  });

  it("`bot schema --plugins DIR` includes the options of the built-ins and the plugins there, and warns about those that do not load", async () => {
    const run = await runBot(["schema", "--plugins", "test/fixtures/plugins"]);
    expect(run.code).toBe(0);
    const schema = JSON.parse(run.stdout) as { properties: { plugins: { properties: Record<string, Schema> } } };
    const plugins = schema.properties.plugins.properties;
    expect(Object.keys(plugins)).toEqual([...new Set([...BUILT_IN_PLUGINS, "counter", "like", "reply"])].sort());
    // The fixtures' own reply (text and max_length) in place of the built-in's.
    expect(JSON.stringify(plugins.reply)).toContain("max_length");
    expect(JSON.stringify(plugins.reply)).not.toContain("events");
    expect(run.stderr).toMatch(
      /^warning: plugin broken-syntax could not be loaded from test\/fixtures\/plugins\/broken-syntax\.js: .*; its options are left unchecked in the schema$/m,
    );
  }, 30_000);

  it("describes bot files as users write them", () => {
    const schema = botJsonSchema() as {
      required: string[];
      additionalProperties: boolean;
      properties: Record<string, { properties?: Record<string, unknown>; enum?: string[]; pattern?: string }>;
    };
    expect(schema.required).toEqual(["name", "plan"]);
    expect(schema.additionalProperties).toBe(false);
    expect(schema.properties.plan!.enum).toEqual(["pro", "basic", "free"]);
    expect(Object.keys(schema.properties.triggers!.properties!)).toEqual([
      "mentions",
      "followers",
      "dms",
      "stream",
      "schedule",
    ]);
    expect(Object.keys(schema.properties.budget!.properties!)).toEqual(["reserve", ...ACTION_NAMES, "llm"]);
    // Durations and the reserve are strings in the file, numbers only after loading.
    expect(schema.properties.reply_cooldown).toMatchObject({ type: "string", default: "15m" });
    expect(schema.properties.budget!.properties!.reserve).toMatchObject({ type: "string", default: "0%" });
  });
});
