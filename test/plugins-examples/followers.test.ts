import { afterEach, describe, expect, it } from "vitest";
import followBack from "../../plugins/follow-back.ts";
import welcomeDm from "../../plugins/welcome-dm.ts";
import { createTestBed, type TestBed } from "../../src/testing.ts";

let bed: TestBed | undefined;
afterEach(async () => {
  await bed?.close();
  bed = undefined;
});

const plugins = { "follow-back": followBack, "welcome-dm": welcomeDm };

function friendly(options: Record<string, unknown>) {
  return { name: "friendly", plan: "pro" as const, triggers: { followers: {} }, plugins: options };
}

describe("follow-back and welcome-dm", () => {
  it("follow a new follower back and DM them once, however many polls follow", async () => {
    bed = await createTestBed({
      bots: [friendly({ "follow-back": {}, "welcome-dm": { text: "Welcome, @{user.username} ({user.name})!" } })],
      plugins,
    });
    const alice = await bed.sandbox.admin.createUser({ username: "alice", name: "Alice L." });
    await bed.follow(alice, "friendly");
    for (let i = 0; i < 5; i++) {
      await bed.advance(60_000);
      await bed.settle();
    }
    const world = bed.sandbox.context.data.world;
    const me = bed.runtime.bots.get("friendly")!.identity.userId;
    expect(world.follows.filter((f) => f.source_id === me).map((f) => f.target_id)).toEqual([alice.id]);
    const dms = Object.values(world.dm_events).filter((e) => e.sender_id === me);
    expect(dms.map((d) => d.text)).toEqual(["Welcome, @alice (Alice L.)!"]);
    expect(world.dm_conversations[dms[0]!.dm_conversation_id]!.participant_ids.sort()).toEqual([alice.id, me].sort());
  });

  it("welcome each follower once, across a restart with a changed text, using a list of texts in turn", async () => {
    const texts = ["Hi @{user.username}, thanks for the follow!", "Welcome aboard, {user.name}."];
    bed = await createTestBed({ bots: [friendly({ "welcome-dm": { text: texts } })], plugins });
    const [alice, bob] = [await bed.user("alice"), await bed.user("bob")];
    await bed.follow(alice, "friendly");
    await bed.advance(60_000);
    await bed.settle();
    await bed.follow(bob, "friendly");
    await bed.advance(60_000);
    await bed.settle();
    const { sandbox, store } = bed;
    await bed.stop();
    // A restart with another text: nobody is welcomed a second time.
    bed = await createTestBed({
      sandbox,
      store,
      bots: [friendly({ "welcome-dm": { text: "Changed: hello {user.name}" } })],
      plugins,
    });
    await bed.advance(3 * 60_000);
    await bed.settle();
    const me = bed.runtime.bots.get("friendly")!.identity.userId;
    const dms = Object.values(sandbox.context.data.world.dm_events).filter((e) => e.sender_id === me);
    expect(dms.map((d) => d.text)).toEqual(["Hi @alice, thanks for the follow!", "Welcome aboard, bob."]);
    await bed.close();
    await sandbox.close();
    bed = undefined;
  });

  it("follow back only accounts with at least min_followers followers", async () => {
    bed = await createTestBed({ bots: [friendly({ "follow-back": { min_followers: 1 } })], plugins });
    const [lonely, known, fan] = [await bed.user("lonely"), await bed.user("known"), await bed.user("fan1")];
    await bed.follow(fan, "known");
    await bed.follow(lonely, "friendly");
    await bed.follow(known, "friendly");
    await bed.advance(60_000);
    await bed.settle();
    const me = bed.runtime.bots.get("friendly")!.identity.userId;
    expect(bed.sandbox.context.data.world.follows.filter((f) => f.source_id === me).map((f) => f.target_id)).toEqual([
      known.id,
    ]);
  });
});
