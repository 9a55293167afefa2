/** What a terminal shows: one readable line per event, the key fields in the message, no JSON tail. */
import { Writable } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { createLogger } from "../../src/log.ts";

function prettyLogger(level: string) {
  let out = "";
  const destination = new Writable({
    write(chunk, _enc, done) {
      out += String(chunk);
      done();
    },
  });
  return { logger: createLogger({ pretty: true, destination, level }), output: () => out };
}

describe("the terminal log", () => {
  it("prints one line per action: time, level, bot (and plugin), message; the fields and secrets stay out", () => {
    const { logger, output } = prettyLogger("info");
    logger
      .child({ bot: "greeter" })
      .info(
        { action: "reply", target: "123", status: "sent", key: "greeter:reply:123" },
        'reply to post 123 "Hello @alice!": sent',
      );
    logger
      .child({ bot: "greeter", plugin: "shout", event: "mention" })
      .error({ err: new Error("boom") }, "the handler threw");
    logger.child({ component: "sandbox" }).info({ token: "s3cret" }, "listening");
    expect(output().split("\n")).toEqual([
      expect.stringMatching(/^\[\d\d:\d\d:\d\d\] INFO: greeter: reply to post 123 "Hello @alice!": sent$/),
      expect.stringMatching(/^\[\d\d:\d\d:\d\d\] ERROR: greeter shout: the handler threw \(boom\)$/),
      expect.stringMatching(/^\[\d\d:\d\d:\d\d\] INFO: sandbox: listening$/),
      "",
    ]);
  });

  it("at debug, adds the fields on the same line (secrets redacted)", () => {
    const { logger, output } = prettyLogger("debug");
    logger.child({ bot: "greeter" }).debug({ status: "sent", token: "s3cret" }, "reply: sent");
    expect(output()).toMatch(
      /^\[\d\d:\d\d:\d\d\] DEBUG: greeter: reply: sent \{"status":"sent","token":"\[redacted\]"\}\n$/,
    );
  });
});

describe("POSTBOT_LOG_LEVEL", () => {
  const before = process.env.POSTBOT_LOG_LEVEL;
  afterEach(() => {
    if (before === undefined) delete process.env.POSTBOT_LOG_LEVEL;
    else process.env.POSTBOT_LOG_LEVEL = before;
  });

  it("sets the level when none is given (default info)", () => {
    delete process.env.POSTBOT_LOG_LEVEL;
    expect(prettyLogger("info").logger.level).toBe("info");
    expect(createLogger({ pretty: false, destination: new Writable({ write: (_c, _e, done) => done() }) }).level).toBe(
      "info",
    );
    process.env.POSTBOT_LOG_LEVEL = "warn";
    expect(createLogger({ pretty: false, destination: new Writable({ write: (_c, _e, done) => done() }) }).level).toBe(
      "warn",
    );
  });
});
