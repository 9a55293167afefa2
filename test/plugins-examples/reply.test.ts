import { afterEach, describe, expect, it } from "vitest";
import { createTestBed, type TestBed } from "../../src/testing.ts";
import reply from "../../plugins/reply.ts";

let bed: TestBed | undefined;
afterEach(async () => {
  await bed?.close();
  bed = undefined;
});

describe("the reply plugin", () => {
  it("answers a mention with the rendered template", async () => {
    bed = await createTestBed({
      bots: [{ name: "greeter", plan: "pro", triggers: { mentions: {} }, plugins: { reply: { text: "Hi @{author.username} ({author.name}), you said: {post.text} [{post.id}]" } } }],
      plugins: { reply },
    });
    const alice = await bed.sandbox.admin.createUser({ username: "alice", name: "Alice Liddell" });
    const mention = await bed.post(alice, "@greeter how does this work?");
    await bed.advance(60_000);
    await bed.settle();
    const replies = bed.postsBy("greeter");
    expect(replies.map((p) => p.text)).toEqual([`Hi @alice (Alice Liddell), you said: @greeter how does this work? [${mention.id}]`]);
    expect(replies[0]!.in_reply_to_post_id).toBe(mention.id);
  });
});
