/**
 * What `bot say --wait` says when no answer came: read from the bot's own state, as a bot
 * left it (the test bed runs the example `reply` plugin against the sandbox in-process).
 */
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { describeFate, dmFate, postFate, type SentDm } from "../../src/cli/post-fate.ts";
import type { Plugin } from "../../src/plugins/index.ts";
import { createTestBed, type TestBed, type TestDm } from "../../src/testing.ts";

const reply = (await import(join(process.cwd(), "plugins", "reply.ts"))).default as Plugin;
const dialog = (await import(join(process.cwd(), "plugins", "dialog.ts"))).default as Plugin;

/** A message as `bot say --dm` knows it: its id, its sender, when it was sent. */
const sent = (m: TestDm): SentDm => ({ id: m.id, senderId: m.sender_id, sentAt: Date.parse(m.created_at) });

let bed: TestBed | undefined;
afterEach(async () => {
  await bed?.close();
  bed = undefined;
});

describe("postFate", () => {
  it("tells unseen, answered, refused by the reply cooldown, and handled without an answer", async () => {
    bed = await createTestBed({
      bots: [
        {
          name: "greeter",
          plan: "pro",
          triggers: { mentions: {} },
          plugins: { reply: { text: ["hi {post.id}"], events: ["mention", "reply"] } },
        },
      ],
      plugins: { reply },
    });
    const b = bed;
    const fate = (postId: string, conversation = postId) =>
      postFate(b.store, "greeter", postId, conversation, b.clock.now());
    const alice = await b.user("alice");
    const first = await b.post(alice, "@greeter hello");
    expect(fate(first.id)).toEqual({ kind: "unseen" });

    await b.advance(3_000); // the next mentions poll on pro
    await b.settle();
    const answer = b.postsBy("greeter")[0]!;
    const answered = fate(first.id);
    expect(answered).toMatchObject({ kind: "answered", replyId: answer.id });
    expect(describeFate("greeter", answered)).toMatch(
      /^@greeter answered it at \d\d:\d\d:\d\d, after the wait \(post \d+\)$/,
    );

    // A second mention in the same conversation, within the default 15 min cooldown.
    const again = await b.post(alice, "@greeter again?", answer.id);
    await b.advance(3_000);
    await b.settle();
    const refused = fate(again.id, first.id);
    expect(refused).toMatchObject({ kind: "cooldown", until: expect.any(Number) });
    expect(describeFate("greeter", refused)).toMatch(
      /^@greeter saw it and sent no answer: it replied in this conversation at .*reply_cooldown allows no second reply there until .* \(set reply_cooldown in its bot file; 0s turns it off\)$/,
    );

    // Once the cooldown is over, a mention it saw and did not answer is only "no answer".
    await b.advance(16 * 60_000);
    await b.settle();
    expect(fate(again.id, first.id)).toEqual({ kind: "no-answer" });
  });

  it("tells an answer waiting for budget, and until when", async () => {
    bed = await createTestBed({
      bots: [
        {
          name: "greeter",
          plan: "pro",
          triggers: { mentions: {} },
          plugins: { reply: { text: ["hi {post.id}"] } },
          budget: { reply: { max: 1, per: "10m" } },
        },
      ],
      plugins: { reply },
    });
    const alice = await bed.user("alice");
    const bob = await bed.user("bob");
    await bed.post(alice, "@greeter hello");
    const second = await bed.post(bob, "@greeter and me?");
    await bed.advance(3_000);
    await bed.settle();
    expect(bed.postsBy("greeter")).toHaveLength(1);
    const waiting = postFate(bed.store, "greeter", second.id, second.id, bed.clock.now());
    expect(waiting).toMatchObject({ kind: "queued" });
    expect(describeFate("greeter", waiting)).toMatch(/^@greeter saw it; its answer waits for budget/);
  });

  it("tells an answer dropped because the budget would not come back in time", async () => {
    bed = await createTestBed({
      bots: [
        {
          name: "greeter",
          plan: "pro",
          triggers: { mentions: {} },
          plugins: { reply: { text: ["hi {post.id}"] } },
          budget: { reply: { max: 1, per: "24h" } },
        },
      ],
      plugins: { reply },
    });
    await bed.post(await bed.user("alice"), "@greeter hello");
    const second = await bed.post(await bed.user("bob"), "@greeter and me?");
    await bed.advance(3_000);
    await bed.settle();
    const dropped = postFate(bed.store, "greeter", second.id, second.id, bed.clock.now());
    expect(dropped).toMatchObject({ kind: "ended", state: "dropped" });
    expect(describeFate("greeter", dropped)).toMatch(
      /^@greeter saw it, but dropped its answer: would wait past its time-to-live/,
    );
  });
});

describe("dmFate", () => {
  it("tells a direct message unseen, answered, waiting for budget, and seen without an answer", async () => {
    bed = await createTestBed({
      bots: [
        {
          name: "desk",
          plan: "pro",
          triggers: { dms: {} },
          plugins: { reply: { text: ["hi {author.username}"], events: ["dm"] } },
          budget: { dm: { max: 1, per: "10m" } },
        },
      ],
      plugins: { reply },
    });
    const b = bed;
    const alice = await b.user("alice");
    const bob = await b.user("bob");
    const first = await b.dm(alice, "desk", "hello");
    expect(dmFate(b.store, "desk", sent(first))).toEqual({ kind: "unseen", checked: "DMs" });
    expect(describeFate("desk", { kind: "unseen", checked: "DMs", lastCheckAt: b.clock.now() })).toMatch(
      /^@desk has not seen it yet \(its DMs were last checked at \d\d:\d\d:\d\d\): the demo may be busy/,
    );
    const second = await b.dm(bob, "desk", "and me?");
    await b.advance(60_000); // the next DM poll on pro
    await b.settle();
    expect(dmFate(b.store, "desk", sent(first))).toMatchObject({ kind: "answered" });
    expect(describeFate("desk", dmFate(b.store, "desk", sent(first)))).toMatch(
      /^@desk answered it at \d\d:\d\d:\d\d, after the wait$/,
    );
    // The bot file's dm cap lets one answer through in 10 minutes: bob's waits.
    expect(dmFate(b.store, "desk", sent(second))).toMatchObject({ kind: "queued" });
    // Its own answers are passed by the cursor at the next poll and never handled: "no answer".
    await b.advance(60_000);
    await b.settle();
    const own = b.dmsWith(alice, "desk").find((m) => m.sender === "desk")!;
    expect(dmFate(b.store, "desk", sent(own))).toEqual({ kind: "no-answer" });
  });

  it("finds the answer whichever plugin sent it: a dialog's DM turn, sent or waiting for budget", async () => {
    bed = await createTestBed({
      bots: [
        {
          name: "quiz",
          plan: "pro",
          triggers: { dms: {} },
          plugins: {
            dialog: { start: ["quiz"], steps: [{ ask: "What's your name?", save: "name" }, { say: "Bye!" }] },
          },
          budget: { dm: { max: 1, per: "10m" } },
        },
      ],
      plugins: { dialog },
    });
    const b = bed;
    const alice = await b.user("alice");
    const bob = await b.user("bob");
    const carol = await b.user("carol");
    const started = await b.dm(alice, "quiz", "quiz");
    const waiting = await b.dm(bob, "quiz", "quiz");
    const nothing = await b.dm(carol, "quiz", "hello");
    await b.advance(60_000); // the next DM poll on pro
    await b.settle();
    expect(b.dmsWith(alice, "quiz").map((m) => m.text)).toEqual(["quiz", "What's your name?"]);
    // The dialog's question is its answer (filed under the dialog's own key, not the message's).
    const answered = dmFate(b.store, "quiz", sent(started));
    expect(answered).toMatchObject({ kind: "answered" });
    expect(describeFate("quiz", answered)).toMatch(/^@quiz answered it at \d\d:\d\d:\d\d, after the wait$/);
    // bob's question waits for the bot file's dm cap.
    expect(dmFate(b.store, "quiz", sent(waiting))).toMatchObject({ kind: "queued" });
    // A message that starts nothing: seen, and no plugin answered it.
    expect(dmFate(b.store, "quiz", sent(nothing))).toEqual({ kind: "no-answer" });
    // Her answer's reply ("Bye!") waits for the cap too: her earlier question is no answer to it.
    const later = await b.dm(alice, "quiz", "Ann");
    await b.advance(60_000);
    await b.settle();
    expect(dmFate(b.store, "quiz", sent(later))).toMatchObject({ kind: "queued" });
  });
});
