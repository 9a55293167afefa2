import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ACTION_NAMES, botJsonSchema, botJsonSchemaText } from "../../src/config/schema.ts";

describe("bot.schema.json", () => {
  it("is what `bot schema` prints now (regenerate: node bin/bot.js schema > bot.schema.json)", () => {
    expect(readFileSync("bot.schema.json", "utf8")).toBe(botJsonSchemaText());
  });

  it("describes bot files as users write them", () => {
    const schema = botJsonSchema() as {
      required: string[];
      additionalProperties: boolean;
      properties: Record<string, { properties?: Record<string, unknown>; enum?: string[]; pattern?: string }>;
    };
    expect(schema.required).toEqual(["name", "plan"]);
    expect(schema.additionalProperties).toBe(false);
    expect(schema.properties.plan!.enum).toEqual(["pro", "basic", "free"]);
    expect(Object.keys(schema.properties.triggers!.properties!)).toEqual(["mentions", "followers", "stream", "schedule"]);
    expect(Object.keys(schema.properties.budget!.properties!)).toEqual(["reserve", ...ACTION_NAMES]);
    // Durations and the reserve are strings in the file, numbers only after loading.
    expect(schema.properties.reply_cooldown).toMatchObject({ type: "string", default: "15m" });
    expect(schema.properties.budget!.properties!.reserve).toMatchObject({ type: "string", default: "0%" });
  });
});
