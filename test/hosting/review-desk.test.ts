/**
 * A person's review (src/hosting/review-desk.ts, review-requests.ts): the replies the
 * `moderate` plugin listed, decisions sent once through the bot's action pipeline
 * (`PUT /2/posts/:id/hidden`), remembered and followed by later replies; and `bot review`'s
 * requests picked up from the data directory.
 */
import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import moderate from "../../plugins/moderate.ts";
import reply from "../../plugins/reply.ts";
import { sandboxUsername } from "../../src/hosting/provision.ts";
import { decisionLabel, ReviewDesk, reviewList } from "../../src/hosting/review-desk.ts";
import { reviewRequestsDir, watchReviewRequests, writeReviewRequest } from "../../src/hosting/review-requests.ts";
import { moderationTallies } from "../../src/moderation/index.ts";
import { operatorLabels } from "../../src/moderation/training/labels.ts";
import { openFileStore } from "../../src/store/index.ts";
import type { Store } from "../../src/store/store.ts";
import { createTestBed, type TestBed } from "../../src/testing.ts";
import { captureLogs } from "../helpers/log.ts";

let bed: TestBed | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await bed?.close();
  bed = undefined;
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

const ANSWER = "Thanks {post.id}, @{author.username}!";

async function start(store?: Store) {
  const { lines, logger } = captureLogs();
  bed = await createTestBed({
    logger,
    ...(store ? { store } : {}),
    bots: [
      {
        name: "host",
        plan: "pro",
        reply_cooldown: "0s",
        triggers: { mentions: {} },
        plugins: { moderate: {}, reply: { text: ANSWER, events: ["reply"] } },
      },
    ],
    plugins: { moderate, reply },
  });
  const me = await bed.user(sandboxUsername("host"));
  const root = await bed.post(me, "What are you building this week?");
  const desk = new ReviewDesk({
    store: bed.store,
    clock: bed.clock,
    log: logger,
    layerOf: (b) => bed!.runtime.bots.get(b)?.layer,
  });
  return { lines, root, desk };
}

const posts = () => bed!.sandbox.context.data.world.posts;
const hides = () => bed!.sandbox.context.data.meter.stats["PUT /2/posts/:id/hidden"] ?? {};
const answered = () =>
  bed!
    .postsBy("host")
    .filter((p) => p.in_reply_to_post_id !== undefined)
    .map((p) => p.in_reply_to_post_id);

describe("the review list", () => {
  it("lists the replies hidden and those in the unsure band, with why; not the sure clean ones", async () => {
    const { root } = await start();
    const [alice, bob, carol] = await Promise.all(["alice", "bob", "carol"].map((n) => bed!.user(n)));
    const hidden = await bed!.post(alice!, "@host you're an idiot", root.id);
    const unsure = await bed!.post(bob!, "@host get lost clown 😂", root.id);
    await bed!.post(carol!, "@host lovely idea, count me in", root.id);
    await bed!.settle();
    const list = reviewList(bed!.store);
    expect(list.map((i) => [i.post, i.bot, i.state, i.listed, i.source, i.rule]).sort()).toEqual(
      [
        [hidden.id, "host", "hidden", "hidden", "built-in", "insult:idiot"],
        [unsure.id, "host", "visible", "unsure", "built-in", "insult:clown"],
      ].sort(),
    );
    expect(list.find((i) => i.post === unsure.id)).toMatchObject({
      author: { username: "bob" },
      text: "@host get lost clown 😂",
      reasons: ["unsure: evidence 0.35 in [0.3, 0.75)"],
    });
  });
});

describe("decisions", () => {
  it("are sent once through the action pipeline: unhide puts the reply back, and a second unhide sends nothing", async () => {
    const { root, desk, lines } = await start();
    const alice = await bed!.user("alice");
    const rude = await bed!.post(alice, "@host you're an idiot", root.id);
    await bed!.settle();
    expect(posts()[rude.id]!.hidden).toBe(true);
    expect(hides()).toEqual({ "200": 1 });
    const before = moderationTallies.reviews.get({ bot: "host", decision: "unhide" });

    const first = await desk.decide("host", rude.id, "unhide", "cli:op");
    expect(first).toMatchObject({
      status: "sent",
      item: { state: "visible", decision: { decision: "unhide", by: "cli:op" } },
    });
    expect(posts()[rude.id]!.hidden).toBe(false);
    const again = await desk.decide("host", rude.id, "unhide", "cli:op");
    expect(again.status).toBe("done already");
    expect(hides()).toEqual({ "200": 2 });
    expect(moderationTallies.reviews.get({ bot: "host", decision: "unhide" }) - before).toBe(1);
    // Through the pipeline: the action layer logged it with its idempotency key.
    expect(lines.filter((l) => l.action === "hide" && l.status === "sent").map((l) => l.key)).toEqual([
      `host:hide:${rude.id}`,
      `host:hide:${rude.id}:review-unhide`,
    ]);
    expect(lines.find((l) => l.decision === "unhide")!.msg).toBe(
      `review of host's reply ${rude.id} by @alice: unhide, decided by cli:op (sent); later near-identical replies follow it`,
    );
    // Kept as a label for bot moderation train: the person says this text is fine.
    expect(operatorLabels(bed!.store)).toEqual([
      {
        text: "@host you're an idiot",
        abusive: false,
        by: "cli:op",
        at: bed!.clock.now(),
        from: "review",
        bot: "host",
        post: rude.id,
      },
    ]);
  });

  it("are followed later: a near-identical text from anyone, and the same author's unsure replies", async () => {
    const { root, desk } = await start();
    const [alice, bob] = await Promise.all(["alice", "bob"].map((n) => bed!.user(n)));
    const rude = await bed!.post(alice!, "@host you're an idiot", root.id);
    await bed!.settle();
    await desk.decide("host", rude.id, "unhide", "cli:op"); // banter between friends, says the operator

    const same = await bed!.post(bob!, "@host YOU'RE AN IDIOT!!", root.id);
    const alicesNext = await bed!.post(alice!, "@host what a moron", root.id);
    const alicesThreat = await bed!.post(alice!, "@host I will kill you", root.id);
    await bed!.settle();
    expect(posts()[same.id]!.hidden).toBeFalsy(); // near-identical text: kept
    expect(posts()[alicesNext.id]!.hidden).toBeFalsy(); // the same author, unsure: kept
    expect(posts()[alicesThreat.id]!.hidden).toBe(true); // a sure threat is not spared by the author's example
    expect(answered()).toEqual(expect.arrayContaining([same.id, alicesNext.id]));
    const item = reviewList(bed!.store).find((i) => i.post === same.id)!;
    expect(item).toMatchObject({ source: "review", state: "visible" });
    expect(item.reasons.at(-1)).toBe(
      `follows a person's decision (unhide) about a near-identical reply, post ${rude.id}`,
    );
  });

  it("hide on an unsure reply hides it; keep sends nothing; a reply not listed is refused with what to do", async () => {
    const { root, desk } = await start();
    const [bob, carol] = await Promise.all(["bob", "carol"].map((n) => bed!.user(n)));
    const unsure = await bed!.post(bob!, "@host get lost clown 😂", root.id);
    const other = await bed!.post(carol!, "@host you clown 😂 honestly", root.id);
    await bed!.settle();
    expect(posts()[unsure.id]!.hidden).toBeFalsy();
    expect(await desk.decide("host", unsure.id, "hide", "cli:op")).toMatchObject({
      status: "sent",
      item: { state: "hidden" },
    });
    expect(posts()[unsure.id]!.hidden).toBe(true);
    expect(await desk.decide("host", other.id, "keep", "cli:op")).toMatchObject({
      status: "none",
      item: { state: "visible" },
    });
    expect(hides()).toEqual({ "200": 1 });
    // Each decision a label: hide of an unsure reply says abusive; keep of a visible one, fine.
    expect(operatorLabels(bed!.store).map((l) => [l.post, l.abusive, l.from])).toEqual([
      [unsure.id, true, "review"],
      [other.id, false, "review"],
    ]);
    await expect(desk.decide("host", "12345", "hide", "cli:op")).rejects.toThrow(
      "post 12345 is not on bot host's review list (bot review --bot host lists it)",
    );
    await expect(desk.decide("nobody", unsure.id, "hide", "cli:op")).rejects.toThrow("bot nobody does not run here");
  });
});

describe("a decision on a state directory", () => {
  it("is in the bot's review queue and among the operator's labels after a restart", async () => {
    const data = await mkdtemp(join(tmpdir(), "postbot-review-state-"));
    dirs.push(data);
    const store = await openFileStore(data);
    const { root, desk } = await start(store);
    const alice = await bed!.user("alice");
    const rude = await bed!.post(alice, "@host you're an idiot", root.id);
    await bed!.settle();
    await desk.decide("host", rude.id, "keep", "cli:op");
    await bed!.close();
    bed = undefined;
    await store.close();

    const again = await openFileStore(data, { readOnly: true });
    try {
      expect(reviewList(again).map((i) => [i.bot, i.post, i.decision?.decision])).toEqual([["host", rude.id, "keep"]]);
      expect(operatorLabels(again).map((l) => [l.text, l.abusive, l.by, l.bot])).toEqual([
        ["@host you're an idiot", true, "cli:op", "host"],
      ]);
    } finally {
      await again.close();
    }
  });
});

describe("a decision as a label", () => {
  it("says abusive when the person wants the reply hidden, fine when visible", () => {
    const label = (decision: "hide" | "unhide" | "keep", state: "hidden" | "visible") =>
      decisionLabel("host", { post: "9", text: "gg", state }, decision, "admin:ops", 5).abusive;
    expect([label("hide", "visible"), label("keep", "hidden")]).toEqual([true, true]);
    expect([label("unhide", "hidden"), label("keep", "visible")]).toEqual([false, false]);
    expect(decisionLabel("host", { post: "9", text: "gg", state: "hidden" }, "keep", "admin:ops", 5)).toEqual({
      text: "gg",
      abusive: true,
      by: "admin:ops",
      at: 5,
      from: "review",
      bot: "host",
      post: "9",
    });
  });
});

describe("bot review's requests in the data directory", () => {
  it("are sent by the running process, removed once sent; a bad one is moved aside with a clear log line", async () => {
    const { root, desk } = await start();
    const data = await mkdtemp(join(tmpdir(), "postbot-review-"));
    dirs.push(data);
    const alice = await bed!.user("alice");
    const rude = await bed!.post(alice, "@host you're an idiot", root.id);
    await bed!.settle();
    await writeReviewRequest(data, { bot: "host", post: rude.id, decision: "unhide", by: "cli:op", at: 1 });
    await writeFile(join(reviewRequestsDir(data), "2-host-x-hide.json"), "{not json");
    const { lines, logger } = captureLogs();
    const watcher = watchReviewRequests({
      data,
      desk,
      clock: bed!.clock,
      log: logger,
      runsHere: (b) => bed!.runtime.bots.has(b),
    });
    await watcher.round();
    await watcher.stop();
    expect(posts()[rude.id]!.hidden).toBe(false);
    expect(operatorLabels(bed!.store).map((l) => [l.text, l.abusive, l.by, l.from])).toEqual([
      ["@host you're an idiot", false, "cli:op", "review"],
    ]);
    expect(await readdir(reviewRequestsDir(data))).toEqual(["2-host-x-hide.json.bad"]);
    expect(lines.map((l) => l.msg)).toEqual([
      `review request ${join(reviewRequestsDir(data), "2-host-x-hide.json")} is not valid (it is not JSON); moved aside as 2-host-x-hide.json.bad`,
    ]);
  });
});
