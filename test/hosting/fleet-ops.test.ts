/**
 * The live fleet's operations on a running runtime (issue 23 item 1): a bot added, replaced,
 * removed, paused and resumed while the others run. The others notice nothing: their app's
 * stream stays connected (one connection throughout), its rules change by the smallest step,
 * and no event is lost or handled twice. On the sandbox with a frozen clock; where the
 * stream crosses a socket the tests wait for the outcome, never for a time.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { FleetError } from "../../src/hosting/fleet-error.ts";
import { provisionBots } from "../../src/hosting/provision.ts";
import { definePlugin } from "../../src/plugins/plugin.ts";
import { createTestBed, testBotConfig, type TestBed } from "../../src/testing.ts";
import type { BotFileInput } from "../../src/config/index.ts";
import { captureLogs } from "../helpers/log.ts";

/** Every mention handled, as `bot post-id`, to find one handled twice or never. */
const handled: string[] = [];
const echo = definePlugin({
  name: "echo",
  options: z.object({ text: z.string() }),
  setup(bot, options) {
    bot.on("mention", async (ctx) => {
      handled.push(`${bot.name} ${ctx.post.text}`);
      await ctx.reply(`${options.text} (${ctx.post.text.replace(/@/g, "")})`);
    });
    bot.on("post", (ctx) => void handled.push(`${bot.name} post ${ctx.post.text}`));
  },
});
const plugins = { echo };

let bed: TestBed | undefined;
afterEach(async () => {
  await bed?.close();
  bed = undefined;
  handled.length = 0;
});

const eventually = (check: () => void) => vi.waitFor(check, { timeout: 20_000, interval: 10 });

const rulesRequests = async (b: TestBed) => {
  const stats = (await b.sandbox.admin.stats()) as { routes: Record<string, Record<string, number>> };
  return Object.values(stats.routes["POST /2/posts/search/stream/rules"] ?? {}).reduce((a, n) => a + n, 0);
};
const appRules = (b: TestBed) => Object.values(b.sandbox.context.data.world.stream_rules).map((r) => r.value);
const stream = (b: TestBed) => b.runtime.apps()[0]!.stream!;
const texts = (b: TestBed, bot: string) => b.postsBy(bot).map((p) => p.text);

const echoBot = (name: string, text: string, extra: Partial<BotFileInput> = {}): BotFileInput => ({
  name,
  plan: "pro",
  triggers: { mentions: {} },
  plugins: { echo: { text } },
  ...extra,
});
const hostedOf = async (b: TestBed, input: BotFileInput) =>
  (await provisionBots(b.sandbox, [testBotConfig(input, plugins)]))[0]!;

describe("the live fleet: changes while the runtime runs", () => {
  it("adds a bot: one rules request gives it its mentions, the stream stays connected, a mention made before it came is answered", async () => {
    const { lines, logger } = captureLogs("info");
    bed = await createTestBed({ logger, bots: [echoBot("old", "old here")], plugins });
    await eventually(() => expect(stream(bed!).state).toBe("connected"));
    const alice = await bed.user("alice");
    const before = await rulesRequests(bed);
    const hosted = await hostedOf(bed, echoBot("newbie", "newbie here"));
    await bed.post(alice, "@newbie early");

    await bed.runtime.add(hosted);
    await bed.runtime.rulesSettled();
    expect(await rulesRequests(bed)).toBe(before + 1);
    expect(appRules(bed).some((v) => v.includes("@newbie OR to:newbie"))).toBe(true);
    await bed.post(alice, "@newbie hello");
    await bed.post(alice, "@old hello");
    await eventually(() =>
      expect(texts(bed!, "newbie").sort()).toEqual(["newbie here (newbie early)", "newbie here (newbie hello)"]),
    );
    await eventually(() => expect(texts(bed!, "old")).toEqual(["old here (old hello)"]));
    expect(stream(bed).connects).toBe(1);
    expect(stream(bed).reconnects).toBe(0);
    expect(
      bed.runtime
        .status()
        .map((s) => s.bot)
        .sort(),
    ).toEqual(["newbie", "old"]);
    // The capacity line says what changed.
    expect(lines.map((l) => String(l.msg))).toContainEqual(
      expect.stringMatching(
        /^capacity now: 2 bots get mentions through the stream of app \S+ .*\(was: 1 bot gets mentions/,
      ),
    );
    await expect(bed.runtime.add(hosted)).rejects.toThrow(FleetError);
    await expect(bed.runtime.add(hosted)).rejects.toThrow(/a bot named newbie runs already/);
  });

  it("replaces a bot: its new configuration answers, its state is kept (nothing answered again), its rules change by one add and one delete", async () => {
    bed = await createTestBed({
      bots: [
        echoBot("a", "v1", { triggers: { mentions: {}, stream: [{ value: "#cats", tag: "cats" }] } }),
        echoBot("b", "b"),
      ],
      plugins,
    });
    await eventually(() => expect(stream(bed!).state).toBe("connected"));
    const alice = await bed.user("alice");
    await bed.post(alice, "@a one");
    await eventually(() => expect(texts(bed!, "a")).toEqual(["v1 (a one)"]));

    const before = await rulesRequests(bed);
    await bed.runtime.replace(
      await hostedOf(
        bed,
        echoBot("a", "v2", { triggers: { mentions: {}, stream: [{ value: "#dogs", tag: "dogs" }] } }),
      ),
    );
    await bed.runtime.rulesSettled();
    expect(await rulesRequests(bed)).toBe(before + 2);
    expect(appRules(bed)).toContain("#dogs");
    expect(appRules(bed)).not.toContain("#cats");
    await bed.post(alice, "@a two");
    await bed.post(alice, "#dogs are here");
    await bed.post(alice, "#cats are gone");
    await bed.post(alice, "@b hi");
    await eventually(() => expect(texts(bed!, "a")).toEqual(["v1 (a one)", "v2 (a two)"]));
    await eventually(() => expect(handled).toContain("a post #dogs are here"));
    await eventually(() => expect(texts(bed!, "b")).toEqual(["b (b hi)"]));
    await bed.settle();
    expect(handled).not.toContain("a post #cats are gone");
    expect(handled.filter((h) => h === "a @a one")).toHaveLength(1);
    expect(stream(bed).connects).toBe(1);

    // The same configuration again: the rules stay as they are.
    const now = await rulesRequests(bed);
    await bed.runtime.replace(
      await hostedOf(
        bed,
        echoBot("a", "v3", { triggers: { mentions: {}, stream: [{ value: "#dogs", tag: "dogs" }] } }),
      ),
    );
    await bed.runtime.rulesSettled();
    expect(await rulesRequests(bed)).toBe(now);
  });

  it("loses no event and handles none twice while bots are replaced, removed and added in a flood of mentions", async () => {
    bed = await createTestBed({ bots: [echoBot("a", "a"), echoBot("b", "b"), echoBot("c", "c")], plugins });
    await eventually(() => expect(stream(bed!).state).toBe("connected"));
    const alice = await bed.user("alice");
    const expected: string[] = [];
    for (let round = 0; round < 6; round++) {
      const changing = bed.runtime.replace(await hostedOf(bed, echoBot("a", `a${round}`)));
      for (const bot of ["a", "b", "c"]) {
        const text = `@${bot} round ${round}`;
        expected.push(`${bot} ${text}`);
        await bed.post(alice, text);
      }
      await changing;
    }
    await eventually(() => expect([...handled].sort()).toEqual([...expected].sort()));
    await bed.settle();
    expect([...handled].sort()).toEqual([...expected].sort());
    expect(texts(bed, "a")).toHaveLength(6);
    expect(texts(bed, "b")).toHaveLength(6);
    expect(stream(bed).connects).toBe(1);
  });

  it("removes a bot: its rule leaves the app's stream, it answers no more, its state stays for a return", async () => {
    bed = await createTestBed({ bots: [echoBot("a", "a"), echoBot("b", "b")], plugins });
    await eventually(() => expect(stream(bed!).state).toBe("connected"));
    const alice = await bed.user("alice");
    await bed.post(alice, "@a before");
    await eventually(() => expect(texts(bed!, "a")).toHaveLength(1));
    const hostedA = bed.runtime.hosted("a")!;

    await bed.runtime.remove("a");
    await bed.runtime.rulesSettled();
    expect(appRules(bed).some((v) => v.includes("@a OR to:a"))).toBe(false);
    expect(appRules(bed).some((v) => v.includes("@b OR to:b"))).toBe(true);
    expect(bed.runtime.status().map((s) => s.bot)).toEqual(["b"]);
    expect(bed.store.get("status", "a")).toBeUndefined();
    await bed.post(alice, "@a anyone?");
    await bed.post(alice, "@b still here?");
    await eventually(() => expect(texts(bed!, "b")).toHaveLength(1));
    await bed.settle();
    expect(texts(bed, "a")).toHaveLength(1);
    expect(stream(bed).connects).toBe(1);
    await expect(bed.runtime.remove("a")).rejects.toThrow(/no bot a runs here; the bots are b/);

    // Back again: what came while it was away is answered (its catch-up poll), what it answered before is not.
    await bed.runtime.add(hostedA);
    await eventually(() => expect(texts(bed!, "a")).toEqual(["a (a before)", "a (a anyone?)"]));
    await bed.settle();
    expect(handled.filter((h) => h === "a @a before")).toHaveLength(1);
  });

  it("pauses and resumes a bot: what comes meanwhile waits in its inbox and is answered once on resume", async () => {
    bed = await createTestBed({ bots: [echoBot("a", "a"), echoBot("b", "b")], plugins });
    await eventually(() => expect(stream(bed!).state).toBe("connected"));
    const alice = await bed.user("alice");
    await bed.runtime.pause("a", "paused by ops");
    expect(bed.runtime.status().find((s) => s.bot === "a")!.paused?.reason).toBe("paused by ops");
    await bed.post(alice, "@a are you there?");
    await bed.post(alice, "@b are you there?");
    await eventually(() => expect(texts(bed!, "b")).toHaveLength(1));
    await eventually(() => expect(bed!.runtime.status().find((s) => s.bot === "a")!.inbox).toBe(1));
    expect(texts(bed, "a")).toEqual([]);

    await bed.runtime.resume("a");
    await eventually(() => expect(texts(bed!, "a")).toEqual(["a (a are you there?)"]));
    await bed.settle();
    expect(handled.filter((h) => h.startsWith("a "))).toEqual(["a @a are you there?"]);
    expect(bed.runtime.status().find((s) => s.bot === "a")!.paused).toBeUndefined();
    expect(stream(bed).connects).toBe(1);
  });

  it("the poll intervals shared by an app's bots follow its bots, and the log says what changed", async () => {
    const { lines, logger } = captureLogs("info");
    const poller = (name: string) => echoBot(name, name, { plan: "basic", triggers: { mentions: { via: "poll" } } });
    bed = await createTestBed({ logger, bots: [poller("p1"), poller("p2")], plugins });
    const every = () => bed!.runtime.bots.get("p1")!.mentionsDelivery()!.everyMs;
    const two = every();
    await bed.runtime.add(await hostedOf(bed, poller("p3")));
    const three = every();
    expect(three).toBeGreaterThan(two);
    expect(bed.runtime.bots.get("p3")!.mentionsDelivery()!.everyMs).toBe(three);
    expect(lines.map((l) => String(l.msg))).toContainEqual(
      expect.stringMatching(/^capacity now: 3 bots poll mentions on basic .*\(was: 2 bots poll mentions on basic/),
    );
    await bed.runtime.remove("p3");
    expect(every()).toBe(two);
    // The new interval holds from the last poll: the next poll comes on time.
    const alice = await bed.user("alice");
    await bed.post(alice, "@p1 hi");
    await bed.advance(two);
    await bed.settle();
    expect(texts(bed, "p1")).toEqual(["p1 (p1 hi)"]);
  });
});
