/**
 * The stream hub hands each bot what the stream brings it itself: the posts its own rules
 * matched to the bot, its mentions to its mentions feed, looked up by name in the bots it was
 * given when each post comes. A process's map of running bots is such a lookup as it is, so
 * a bot replaced by its new configuration gets the next post at once, and one taken out gets
 * nothing. On the sandbox with a frozen clock.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { createClock } from "../../src/clock.ts";
import { silentLogger } from "../../src/log.ts";
import type { BotEvent } from "../../src/triggers/events.ts";
import { startStreamHub } from "../../src/triggers/stream-hub.ts";
import type { StreamBot } from "../../src/triggers/stream/routing.ts";
import { SandboxHubs } from "../helpers/hub.ts";
import { T0 } from "../helpers/sandbox.ts";

const t = new SandboxHubs();
afterEach(() => t.close());

const eventually = (check: () => void) => vi.waitFor(check, { timeout: 20_000, interval: 10 });

/** A running bot as the hub sees it, keeping the ids of what it was handed. */
function bot(): StreamBot & { posts: string[]; mentions: StreamBot["mentions"] & { got: string[] } } {
  const posts: string[] = [];
  const got: string[] = [];
  return {
    posts,
    deliver: (events: readonly BotEvent[]) => void posts.push(...events.map((e) => e.id)),
    mentions: { got, accept: (events: readonly BotEvent[]) => void got.push(...events.map((e) => e.id)) },
  };
}

describe("the stream hub's bots", () => {
  it("gets each bot's posts and mentions to the bot under that name when they come, and none to a bot taken out", async () => {
    const clock = createClock({ frozen: true, start: T0 });
    const { sandbox, connection } = await t.open(clock);
    const fan = await sandbox.admin.createUser({ username: "fan", name: "fan" });
    const greeter = await sandbox.admin.createUser({ username: "greeter", name: "greeter" });
    const post = async (text: string) => (await sandbox.admin.createPost({ author_id: fan.id, text })).id;
    const first = bot();
    const running = new Map<string, StreamBot>([["greeter", first]]);
    const hub = (t.hub = startStreamHub({
      appId: "app",
      clock,
      log: silentLogger,
      ...connection,
      wants: [{ bot: "greeter", userId: greeter.id, rules: [{ value: "#cats" }] }],
      mentionBots: [{ bot: "greeter", userId: greeter.id, username: "greeter" }],
      bots: running,
    }));
    await eventually(() => expect(hub.status().state).toBe("connected"));

    const hello = await post("@greeter hello");
    const cats = await post("#cats one");
    await eventually(() => expect(first.mentions.got).toEqual([`mention:${hello}`]));
    await eventually(() => expect(first.posts).toEqual([`post:${cats}`]));

    // Replaced (its new configuration): the next post goes to the new one, not the old.
    const second = bot();
    running.set("greeter", second);
    const again = await post("@greeter again");
    await eventually(() => expect(second.mentions.got).toEqual([`mention:${again}`]));

    // Taken out (stopped): the hub routes the post and hands it to nobody.
    running.delete("greeter");
    const gone = await post("@greeter #cats are you there");
    await eventually(() => expect(hub.has(gone)).toBe(true));
    expect(first.mentions.got).toEqual([`mention:${hello}`]);
    expect(first.posts).toEqual([`post:${cats}`]);
    expect(second.mentions.got).toEqual([`mention:${again}`]);
    expect(second.posts).toEqual([]);
  });
});
