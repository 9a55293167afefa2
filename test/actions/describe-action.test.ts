/**
 * An action's log line names its target as a person reads it when the plugin's event said who
 * or what it is (`like post 123 (@ana: "any tips")`), and by id alone otherwise.
 */
import { describe, expect, it } from "vitest";
import { describeAction } from "../../src/actions/report.ts";

describe("describeAction", () => {
  it("adds who or what the target is, when known, to likes, reposts, hides, follows and DMs", () => {
    const about = (kind: string, target: string, text?: string, path: Record<string, string> = {}) =>
      describeAction({
        kind: kind as "like",
        target,
        path,
        ...(text ? { body: { text } } : {}),
        context: { about: kind === "follow" || kind === "dm" ? "@ana" : '@ana: "any tips for Lisbon?"' },
      });
    expect(about("like", "123")).toBe('like post 123 (@ana: "any tips for Lisbon?")');
    expect(about("repost", "123")).toBe('repost post 123 (@ana: "any tips for Lisbon?")');
    expect(about("hide", "123")).toBe('hide post 123 (@ana: "any tips for Lisbon?")');
    expect(about("follow", "42")).toBe("follow user 42 (@ana)");
    expect(about("dm", "42:ab12", "welcome!", { participant_id: "42" })).toBe('dm to user 42 (@ana) "welcome!"');
  });

  it("shortens the text of a line to 60 characters, unless the whole text is asked for (a dry run's line)", () => {
    const text = `${"a very long answer ".repeat(5)}end.`;
    const reply = { kind: "reply" as const, target: "7", path: {}, body: { text } };
    expect(describeAction(reply)).toBe(`reply to post 7 "${text.slice(0, 57)}..."`);
    expect(describeAction(reply, true)).toBe(`reply to post 7 "${text}"`);
  });

  it("names the target by id alone when nothing says more", () => {
    expect(describeAction({ kind: "like", target: "123", path: {} })).toBe("like post 123");
    expect(describeAction({ kind: "follow", target: "42", path: {} })).toBe("follow user 42");
  });
});
