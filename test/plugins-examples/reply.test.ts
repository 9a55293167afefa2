import { afterEach, describe, expect, it } from "vitest";
import { createTestBed, type TestBed } from "../../src/testing.ts";
import reply, { bodyOf } from "../../plugins/reply.ts";
import { sandboxUsername } from "../../src/hosting/provision.ts";

let bed: TestBed | undefined;
afterEach(async () => {
  await bed?.close();
  bed = undefined;
});

describe("the reply plugin", () => {
  it("answers a mention with the rendered template", async () => {
    bed = await createTestBed({
      bots: [
        {
          name: "greeter",
          plan: "pro",
          triggers: { mentions: {} },
          plugins: { reply: { text: "Hi @{author.username} ({author.name}), you said: {post.text} [{post.id}]" } },
        },
      ],
      plugins: { reply },
    });
    const alice = await bed.sandbox.admin.createUser({ username: "alice", name: "Alice Liddell" });
    const mention = await bed.post(alice, "@greeter how does this work?");
    await bed.advance(60_000);
    await bed.settle();
    const replies = bed.postsBy("greeter");
    expect(replies.map((p) => p.text)).toEqual([
      `Hi @alice (Alice Liddell), you said: @greeter how does this work? [${mention.id}]`,
    ]);
    expect(replies[0]!.in_reply_to_post_id).toBe(mention.id);
  });

  it("uses a list of texts in turn, and {post.body} quotes the post without its leading @mentions", async () => {
    bed = await createTestBed({
      bots: [
        {
          name: "greeter",
          plan: "pro",
          triggers: { mentions: {} },
          plugins: { reply: { text: ["One: {post.body}", "Two: {post.body}"] } },
        },
      ],
      plugins: { reply },
    });
    const alice = await bed.user("alice");
    for (const text of ["@greeter first", "@greeter @alice second", "@greeter third, cc @bob"]) {
      await bed.post(alice, text);
      await bed.advance(60_000);
      await bed.settle();
    }
    expect(bed.postsBy("greeter").map((p) => p.text)).toEqual(["One: first", "Two: second", "One: third, cc @bob"]);
  });

  it("answers only the events it is given: replies to the bot's posts, not mentions", async () => {
    bed = await createTestBed({
      bots: [
        {
          name: "host",
          plan: "pro",
          triggers: { mentions: {} },
          plugins: { reply: { text: "Thanks, @{author.username}!", events: ["reply"] } },
        },
      ],
      plugins: { reply },
    });
    const me = await bed.user(sandboxUsername("host"));
    const [alice, bob] = [await bed.user("alice"), await bed.user("bob")];
    const question = await bed.post(me, "What are you reading?");
    const answer = await bed.post(alice, "@host a good book", question.id);
    await bed.post(bob, "@host just saying hi");
    await bed.advance(60_000);
    await bed.settle();
    const replies = bed.postsBy("host").filter((p) => p.in_reply_to_post_id);
    expect(replies.map((p) => [p.in_reply_to_post_id, p.text])).toEqual([[answer.id, "Thanks, @alice!"]]);
  });
});

describe("the reply plugin on direct messages", () => {
  it("answers a DM in its conversation, with the sender and the message as placeholders", async () => {
    bed = await createTestBed({
      bots: [
        {
          name: "helpdesk",
          plan: "pro",
          triggers: { mentions: {}, dms: {} },
          plugins: { reply: { text: 'Hi {author.name}, about "{post.body}": we will look into it.', events: ["dm"] } },
        },
      ],
      plugins: { reply },
    });
    const alice = await bed.sandbox.admin.createUser({ username: "alice", name: "Alice Liddell" });
    await bed.dm(alice, "helpdesk", "my parcel never came");
    await bed.post(alice, "@helpdesk hello in public");
    await bed.advance(60_000);
    await bed.settle();
    expect(bed.dmsWith(alice, "helpdesk").map((m) => [m.sender, m.text])).toEqual([
      ["alice", "my parcel never came"],
      ["helpdesk", 'Hi Alice Liddell, about "my parcel never came": we will look into it.'],
    ]);
    // Only the events it is given: the mention gets no answer.
    expect(bed.postsBy("helpdesk")).toEqual([]);
  });
});

describe("bodyOf", () => {
  it("drops only the @mentions a post starts with", () => {
    expect(bodyOf("@host @alice hello @bob")).toBe("hello @bob");
    expect(bodyOf("hello @host")).toBe("hello @host");
    expect(bodyOf("@host")).toBe("@host");
  });
});
