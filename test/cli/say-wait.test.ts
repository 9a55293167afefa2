/**
 * `bot say --wait`: the text is never taken for --wait's number, and --wait alone waits as
 * long as the bots the post is for need to see it (their poll interval and a margin).
 */
import { describe, expect, it } from "vitest";
import { demoAccessOf, demoBots, type DemoAccess } from "../../src/cli/demo-access.ts";
import {
  awaitedBots,
  defaultWaitMs,
  describeAwaited,
  FALLBACK_WAIT_S,
  sayDmInput,
  sayInput,
  WAIT_MARGIN_MS,
} from "../../src/cli/say-wait.ts";
import { UserError } from "../../src/errors.ts";

const demo: DemoAccess = {
  url: "http://127.0.0.1:1",
  admin_token: "t",
  pid: 1,
  bots: ["fan", "greeter", "host"],
  answers: {
    greeter: { events: ["mention"], via: "poll", every_ms: 90_000 },
    host: { events: ["reply"], via: "stream", every_ms: 3_000 },
  },
};

describe("sayInput", () => {
  it("reads --wait followed by the text as --wait alone and the text", () => {
    expect(sayInput(undefined, "@greeter hello")).toEqual({ text: "@greeter hello", wait: true });
    expect(sayInput("@greeter hello", true)).toEqual({ text: "@greeter hello", wait: true });
    expect(sayInput("@greeter hello", "45")).toEqual({ text: "@greeter hello", wait: 45 });
    expect(sayInput("@greeter hello", undefined)).toEqual({ text: "@greeter hello", wait: undefined });
  });

  it("refuses a missing text and a --wait that is not whole seconds, with exit code 2", () => {
    expect(() => sayInput(undefined, undefined)).toThrow(
      /^missing the text to post: bot say --as USER \[--wait\] TEXT$/,
    );
    expect(() => sayInput(undefined, "30")).toThrow(/^missing the text to post/);
    for (const bad of ["soon", "0", "601", "1.5"]) {
      let err: unknown;
      try {
        sayInput("hi", bad);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(UserError);
      expect((err as UserError).exitCode).toBe(2);
      expect((err as Error).message).toMatch(new RegExp(`^--wait ${bad.replace(".", "\\.")}: expected whole seconds`));
    }
  });
});

describe("awaitedBots and defaultWaitMs", () => {
  it("waits for a mentioned bot that answers mentions: its poll interval and a margin", () => {
    const awaited = awaitedBots(demo, "@Greeter hello @fan");
    expect(awaited.map((a) => a.bot)).toEqual(["greeter"]);
    expect(defaultWaitMs(awaited)).toBe(90_000 + WAIT_MARGIN_MS);
    expect(describeAwaited(awaited[0]!)).toBe("@greeter (a mention, seen at its next mentions poll, every 90 s)");
  });

  it("waits for the bot whose post a reply answers, when it answers replies", () => {
    const awaited = awaitedBots(demo, "great question", "host");
    expect(awaited.map((a) => [a.bot, a.event])).toEqual([["host", "reply"]]);
    expect(describeAwaited(awaited[0]!)).toBe("@host (a reply to its post, seen through the stream, within seconds)");
    expect(awaitedBots(demo, "thanks", "greeter")).toEqual([]); // greeter answers mentions only
  });

  it("matches a connected account's bot by its account's username", () => {
    const connected: DemoAccess = {
      ...demo,
      bots: [...demo.bots, "greeter-for-maya-codes"],
      answers: { ...demo.answers, "greeter-for-maya-codes": { events: ["mention"], via: "poll", every_ms: 90_000 } },
      usernames: { "greeter-for-maya-codes": "maya_codes" },
    };
    const awaited = awaitedBots(connected, "@maya_codes hello");
    expect(awaited.map((a) => [a.bot, a.username, a.event])).toEqual([
      ["greeter-for-maya-codes", "maya_codes", "mention"],
    ]);
    expect(describeAwaited(awaited[0]!)).toBe(
      "@maya_codes (bot greeter-for-maya-codes) (a mention, seen at its next mentions poll, every 90 s)",
    );
    // Its bot's name is no account: the service reads "@greeter-for-maya-codes" as a mention of @greeter.
    expect(awaitedBots(connected, "@greeter-for-maya-codes hello").map((a) => a.bot)).toEqual(["greeter"]);
  });

  it("publishes each bot's account username in demo.json, so a connected account's bot is awaited by it", () => {
    const running = (username: string) => ({
      identity: { name: "x", userId: "1", username, plan: "basic" as const },
      handles: (e: string) => e === "mention",
      mentionsDelivery: () => ({ via: "poll" as const, everyMs: 90_000 }),
      dmsDelivery: () => undefined,
    });
    const access = demoAccessOf(
      { url: "http://127.0.0.1:1", adminToken: "t" },
      demoBots(
        new Map([
          ["greeter", running("greeter")],
          ["greeter-for-maya-codes", running("maya_codes")],
        ]),
      ),
      "bots",
    );
    expect(access.usernames).toEqual({ "greeter-for-maya-codes": "maya_codes" });
    expect(awaitedBots(access, "@maya_codes hello").map((a) => a.bot)).toEqual(["greeter-for-maya-codes"]);
  });

  it("awaits no one for a post no bot answers, and an older demo's minute when it does not say", () => {
    expect(awaitedBots(demo, "nobody mentioned")).toEqual([]);
    expect(awaitedBots({ ...demo, answers: undefined }, "@greeter hi")).toEqual([]);
    expect(defaultWaitMs([])).toBe(FALLBACK_WAIT_S * 1000);
  });
});

describe("sayDmInput", () => {
  it("reads the bot and the text, whether --wait took the bot as its value or not", () => {
    expect(sayDmInput("friendly", "hi there", undefined)).toEqual({
      bot: "friendly",
      text: "hi there",
      wait: undefined,
    });
    expect(sayDmInput("hi there", undefined, "friendly")).toEqual({ bot: "friendly", text: "hi there", wait: true });
    expect(sayDmInput("@friendly", "hi", true)).toEqual({ bot: "friendly", text: "hi", wait: true });
    expect(sayDmInput("friendly", "hi", "30")).toEqual({ bot: "friendly", text: "hi", wait: 30 });
  });

  it("refuses one word or three, with exit code 2", () => {
    for (const [a, b, w] of [
      ["friendly", undefined, undefined],
      [undefined, undefined, "friendly"],
      ["hi", "there", "friendly"],
    ] as const) {
      let error: unknown;
      try {
        sayDmInput(a, b, w);
      } catch (err) {
        error = err;
      }
      expect(error).toBeInstanceOf(UserError);
      expect((error as UserError).exitCode).toBe(2);
      expect((error as Error).message).toMatch(/the bot and the text of the message: bot say --dm --as USER/);
    }
  });
});
