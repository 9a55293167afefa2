/**
 * The stream hub calls no bot: what it routes waits in its outbox as data, each bot's events
 * by name, and the runtime's side of the stream (`takeStreamed`) pulls it and commits it to the
 * bots as they are when it comes: the posts its own rules matched to the bot, its mentions to
 * its mentions feed. A process's map of running bots is such a lookup as it is, so a bot
 * replaced by its new configuration gets the next post at once, and one taken out gets
 * nothing. The stream's mark moves past a post only once what it brought was taken, so a
 * kill -9 never finds the mark ahead of the events. On the sandbox with a frozen clock.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { createClock } from "../../src/clock.ts";
import { silentLogger } from "../../src/log.ts";
import { takeStreamed, type StreamedBot } from "../../src/runtime/mentions-feed.ts";
import type { BotEvent } from "../../src/triggers/events.ts";
import { startStreamHub } from "../../src/triggers/stream-hub.ts";
import type { StreamMark } from "../../src/triggers/stream/marks.ts";
import { SandboxHubs } from "../helpers/hub.ts";
import { T0 } from "../helpers/sandbox.ts";

const t = new SandboxHubs();
afterEach(() => t.close());

const eventually = (check: () => void) => vi.waitFor(check, { timeout: 20_000, interval: 10 });

/** A running bot as the runtime's intake sees it, keeping the ids of what it was handed. */
function bot(): StreamedBot & { posts: string[]; got: string[] } {
  const posts: string[] = [];
  const got: string[] = [];
  return {
    posts,
    got,
    deliver: (events: readonly BotEvent[]) => void posts.push(...events.map((e) => e.id)),
    mentions: { accept: (events: readonly BotEvent[]) => void got.push(...events.map((e) => e.id)) },
  };
}

/** A sandbox app with a fan who posts and a bot `greeter` wanting `#cats` and its mentions. */
async function world() {
  const clock = createClock({ frozen: true, start: T0 });
  const { sandbox, connection } = await t.open(clock);
  const fan = await sandbox.admin.createUser({ username: "fan", name: "fan" });
  const greeter = await sandbox.admin.createUser({ username: "greeter", name: "greeter" });
  const post = async (text: string) => (await sandbox.admin.createPost({ author_id: fan.id, text })).id;
  const marks: StreamMark[] = [];
  const hub = (t.hub = startStreamHub({
    appId: "app",
    clock,
    log: silentLogger,
    ...connection,
    wants: [{ bot: "greeter", userId: greeter.id, rules: [{ value: "#cats" }] }],
    mentionBots: [{ bot: "greeter", userId: greeter.id, username: "greeter" }],
    onMark: (mark) => void marks.push(mark),
  }));
  await eventually(() => expect(hub.status().state).toBe("connected"));
  return { hub, post, marks };
}

describe("the stream hub's bots", () => {
  it("are handed their posts and mentions by the runtime's intake, under their name when they come, none to a bot taken out", async () => {
    const { hub, post } = await world();
    const first = bot();
    const running = new Map<string, StreamedBot>([["greeter", first]]);
    const taking = takeStreamed(hub, running, silentLogger);

    const hello = await post("@greeter hello");
    const cats = await post("#cats one");
    await eventually(() => expect(first.got).toEqual([`mention:${hello}`]));
    await eventually(() => expect(first.posts).toEqual([`post:${cats}`]));

    // Replaced (its new configuration): the next post goes to the new one, not the old.
    const second = bot();
    running.set("greeter", second);
    const again = await post("@greeter again");
    await eventually(() => expect(second.got).toEqual([`mention:${again}`]));

    // Taken out (stopped): the hub routes the post and it is handed to nobody.
    running.delete("greeter");
    const gone = await post("@greeter #cats are you there");
    await eventually(() => expect(hub.has(gone)).toBe(true));
    await eventually(() => expect(hub.busy()).toBe(false));
    expect(first.got).toEqual([`mention:${hello}`]);
    expect(first.posts).toEqual([`post:${cats}`]);
    expect(second.got).toEqual([`mention:${again}`]);
    expect(second.posts).toEqual([]);

    // Closed: the intake ends once everything routed was taken.
    hub.close();
    await taking;
  });

  it("moves the stream's mark past a post only once what it brought was taken", async () => {
    const { hub, post, marks } = await world();
    const hello = await post("@greeter hello");
    await eventually(() => expect(hub.has(hello)).toBe(true));
    // Routed, waiting in the outbox: the mark has not moved past it, and the hub is busy.
    expect(marks.some((m) => m.id === hello)).toBe(false);
    expect(hub.busy()).toBe(true);

    const batch = (await hub.take())!;
    expect(batch.entries).toEqual([
      { bot: "greeter", kind: "mentions", events: [expect.objectContaining({ id: `mention:${hello}` })] },
    ]);
    expect(marks.some((m) => m.id === hello)).toBe(false);
    hub.taken(batch);
    expect(marks.at(-1)?.id).toBe(hello);
    expect(hub.busy()).toBe(false);
  });
});
