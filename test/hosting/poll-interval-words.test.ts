/**
 * One truth for how often a bot's mentions are polled: the plan's limit table gives the
 * interval (src/config/plan-rules.ts), and the start's log and `bot status` (the capacity
 * lines), `bot say --wait`, the README, the reference and the example greeter all say that
 * one value, the same way (a poll every 90 s is never "every 2 min" in one place and "every
 * 90 s" in another).
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { describeAwaited } from "../../src/cli/say-wait.ts";
import { fastestMentionIntervalMs } from "../../src/config/plan-rules.ts";
import { capacityLines, humanInterval } from "../../src/hosting/capacity.ts";
import type { Plan } from "../../src/limits/types.ts";

const every = (plan: Plan) => humanInterval(fastestMentionIntervalMs(plan));

describe("the mentions poll interval, said once", () => {
  it("is said exactly, as the limit table gives it, by the log, bot status and bot say --wait", () => {
    const basic = every("basic");
    expect(basic).toBe(`${fastestMentionIntervalMs("basic") / 1000} s`);
    const load = { appId: "a", mentionsStreamed: 0, followers: 0, streamBots: 0, streamRules: 0 };
    expect(capacityLines({ ...load, plan: "basic", mentionsPolled: 1 })[0]).toContain(`each is polled every ${basic};`);
    const waited = describeAwaited({
      bot: "greeter",
      username: "greeter",
      event: "mention",
      answerer: { events: ["mention"], via: "poll", every_ms: fastestMentionIntervalMs("basic") },
    });
    expect(waited).toContain(`every ${basic})`);
    expect([humanInterval(150_000), humanInterval(5_400_000)]).toEqual(["2 min 30 s", "1 h 30 min"]);
  });

  it("is the value the README, the reference and the example greeter state", () => {
    const readme = readFileSync("README.md", "utf8");
    expect(readme).toContain(`\`greeter\` answering mentions (on the basic plan, at most every ${every("basic")})`);
    const greeter = readFileSync("bots/greeter.yaml", "utf8");
    expect(greeter).toContain(`postbot polls at that pace by itself (every ${every("basic")})`);
    const reference = readFileSync("docs/reference.md", "utf8");
    expect(reference).toContain(
      `(pro ${every("pro")}, basic ${every("basic")}, free ${every("free")}, shared by the bots of an app)`,
    );
  });
});
