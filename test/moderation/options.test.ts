import { describe, expect, it } from "vitest";
import { moderateOptions } from "../../plugins/moderate.ts";
import { UserError } from "../../src/errors.ts";
import { createClassifier, ModerationOptionError } from "../../src/moderation/index.ts";

describe("moderation options reported as data", () => {
  it("names the option and the list entry on the error, not only in its message", () => {
    const cases: Array<[unknown, string, number | undefined]> = [
      [{ threshold: 2 }, "threshold", undefined],
      [{ block: ["spam", " "] }, "block", 1],
      [{ allow: "nice" }, "allow", undefined],
      [{ allow: ["Cockburn", "treat:kys"] }, "allow", 1],
    ];
    for (const [options, option, index] of cases) {
      let caught: unknown;
      try {
        createClassifier(options as never);
      } catch (error) {
        caught = error;
      }
      expect(caught, JSON.stringify(options)).toBeInstanceOf(ModerationOptionError);
      expect(caught).toBeInstanceOf(UserError);
      expect(caught).toMatchObject({ option, index });
      const { message, problem } = caught as ModerationOptionError;
      expect(message).toBe(`moderation option ${option}${index === undefined ? "" : `[${index}]`} ${problem}`);
    }
  });

  it("refuses an allow entry naming a kind of rule that does not exist, and accepts real ones and phrases with colons", () => {
    expect(() => createClassifier({ allow: ["treat:kys"] })).toThrow(
      /allow\[0\] names a rule of kind "treat", which does not exist/,
    );
    expect(() =>
      createClassifier({ allow: ["threat:kys", "profanity:damn", "Insult:idiot", "re: cocktails", "10:30"] }),
    ).not.toThrow();
  });

  it("reaches the moderate plugin's option check, at the entry's place in the bot file", () => {
    const result = moderateOptions.safeParse({ allow: ["Cockburn", "treat:kys"] });
    expect(result.success).toBe(false);
    expect(result.error?.issues).toEqual([
      expect.objectContaining({
        path: ["allow", 1],
        message: expect.stringMatching(/^names a rule of kind "treat", which does not exist/),
      }),
    ]);
    expect(moderateOptions.safeParse({ allow: ["threat:kys"] }).success).toBe(true);
  });
});
