/**
 * Which option schemas `bot validate` calls loose: those that drop a key they do not name
 * (`z.object`), however they are wrapped; not strict ones, and not those that keep unknown
 * keys on purpose (`z.looseObject`).
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { dropsUnknownKeys } from "../../src/cli/plugin-warnings.ts";

describe("dropsUnknownKeys", () => {
  it("is true of z.object, alone, with a default or optional", () => {
    expect(dropsUnknownKeys(z.object({ a: z.number().default(1) }))).toBe(true);
    expect(dropsUnknownKeys(z.object({ a: z.number() }).default({ a: 1 }))).toBe(true);
    expect(dropsUnknownKeys(z.object({ a: z.number() }).optional())).toBe(true);
  });

  it("is false of strict objects, loose objects kept on purpose, and schemas that are not objects", () => {
    expect(dropsUnknownKeys(z.strictObject({ a: z.number().default(1) }))).toBe(false);
    expect(dropsUnknownKeys(z.strictObject({ a: z.number() }).default({ a: 1 }))).toBe(false);
    expect(dropsUnknownKeys(z.looseObject({ a: z.number() }))).toBe(false);
    expect(dropsUnknownKeys(z.string())).toBe(false);
  });
});
