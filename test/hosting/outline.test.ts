import { describe, expect, it } from "vitest";
import type { BotFileInput } from "../../src/config/index.ts";
import { Outlines } from "../../src/hosting/outline.ts";
import type { HostedBot } from "../../src/hosting/types.ts";
import { testBotConfig } from "../../src/testing.ts";

const APP = { id: "app-1", key: "key-1", secret: "secret-1", plan: "pro" as const };

/** A bot as the start reads it, with the source its outline is built again from. */
function hosted(input: Omit<BotFileInput, "plan" | "app">): HostedBot {
  // Each file's key is a string of its own, as each file's parse makes it.
  const key = ["key", "1"].join("-");
  const config = testBotConfig({ plan: "pro", app: { consumer_key: key, consumer_secret: "secret-1" }, ...input }, {});
  return { config, app: APP, token: { token: "t", secret: "s" }, source: `source of ${input.name}` };
}

describe("the outlines of the bots a process does not run", () => {
  it("keep what each bot is, sharing the parts equal to another's", () => {
    const outlines = new Outlines();
    const a = outlines.of(hosted({ name: "a", triggers: { mentions: {} } }));
    const b = outlines.of(hosted({ name: "b", triggers: { mentions: {} } }));
    expect(a.config).toEqual({
      name: "a",
      file: "a.yaml",
      plan: "pro",
      triggers: hosted({ name: "a", triggers: { mentions: {} } }).config.triggers,
      app: { consumer_key: "key-1" },
    });
    expect(a).toMatchObject({ app: APP, source: "source of a" });
    expect(b.config.name).toBe("b");
    expect(b.config.triggers).toBe(a.config.triggers);
    expect(b.config.app).toBe(a.config.app);
    // Other triggers are others'.
    const c = outlines.of(hosted({ name: "c", triggers: { mentions: { backfill: "2h" } } }));
    expect(c.config.triggers).not.toBe(a.config.triggers);
    expect(c.config.triggers.mentions?.backfill).toBe(7_200_000);
  });

  it("keep a bot's own stream rules and schedules its own", () => {
    const outlines = new Outlines();
    const rules = { mentions: {}, stream: [{ value: "#same" }] };
    const a = outlines.of(hosted({ name: "a", triggers: rules }));
    const b = outlines.of(hosted({ name: "b", triggers: rules }));
    expect(b.config.triggers).toEqual(a.config.triggers);
    expect(b.config.triggers).not.toBe(a.config.triggers);
  });

  it("keep a bot made without a source whole", () => {
    const whole = { ...hosted({ name: "a" }), source: undefined };
    delete whole.source;
    expect(new Outlines().of(whole)).toBe(whole);
  });
});
