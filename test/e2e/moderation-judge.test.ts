/**
 * The `moderate` plugin with a judge, the author's history and the thread, end to end: the
 * sandbox in-process and the model test server, on one frozen clock. A judge decides the
 * replies the built-in is unsure of; a failing or hanging one leaves the built-in's verdict
 * (logged once per outage) and holds back no other event; a restart does not ask again; an
 * author's history, a mutual follow and a pile-on move the cut, each named in the hide's line.
 */
import { afterEach, describe, expect, it } from "vitest";
import moderate from "../../plugins/moderate.ts";
import reply from "../../plugins/reply.ts";
import { createClock } from "../../src/clock.ts";
import { sandboxUsername } from "../../src/hosting/provision.ts";
import { forgetSharedJudges, moderationTallies } from "../../src/moderation/index.ts";
import { createSandbox, type Sandbox } from "../../src/sandbox/index.ts";
import { createMemoryStore, type Store } from "../../src/store/store.ts";
import { createTestBed, type TestBed } from "../../src/testing.ts";
import { captureLogs } from "../helpers/log.ts";
import { answer, llamaGuard, startModelServer, type ModelServer } from "../helpers/model-server.ts";
import { until } from "../helpers/until.ts";

let bed: TestBed | undefined;
let sandbox: Sandbox | undefined;
let model: ModelServer | undefined;
afterEach(async () => {
  await bed?.close();
  await sandbox?.close();
  await model?.close();
  bed = sandbox = model = undefined;
});

/** The post's id in the answer: the service refuses one account's same text twice in a day. */
const ANSWER = "Thanks for your answer {post.id}, @{author.username}!";
/** In the built-in's unsure band (the trained model leans towards it, no rule fires): a judge decides. */
const PLAIN_DOX = "@host she works at the vets on Park Road, early shifts";

/** The host bot: moderate (with these options) and reply, answering replies and mentions. */
function host(moderateOptions: Record<string, unknown> = {}) {
  return {
    name: "host",
    plan: "pro" as const,
    reply_cooldown: "0s",
    triggers: { mentions: {} },
    plugins: { moderate: moderateOptions, reply: { text: ANSWER, events: ["reply", "mention"] } },
  };
}

/** The judge of the bed: a chat safety model on the model server. */
const chatJudge = (url: string) => ({ kind: "chat", url, model: "llama-guard3:8b" });

/**
 * A sandbox and a model server on one frozen clock, and the bed on them. `options` are the
 * plugin's (given the model server's URL); by default a chat judge.
 */
async function start(
  options: (url: string) => Record<string, unknown> = (url) => ({ judge: chatJudge(url) }),
  o: { store?: Store } = {},
) {
  const clock = createClock({ frozen: true, start: Date.parse("2026-03-02T12:00:00Z") });
  sandbox = await createSandbox({ clock });
  model = await startModelServer({ clock });
  const { lines, logger } = captureLogs();
  bed = await createTestBed({
    logger,
    sandbox,
    bots: [host(options(model.url))],
    plugins: { moderate, reply },
    ...(o.store ? { store: o.store } : {}),
  });
  const me = await bed.user(sandboxUsername("host"));
  const root = await bed.post(me, "What are you building this week?");
  return { lines, root, me, judgeName: `chat llama-guard3:8b at ${new URL(model.url).host}` };
}
const noJudge = () => ({});

/** Requests the sandbox answered for a route, by status. */
const served = (route: string) => bed!.sandbox.context.data.meter.stats[route] ?? {};

const posts = () => bed!.sandbox.context.data.world.posts;
const answered = () =>
  bed!
    .postsBy("host")
    .filter((p) => p.in_reply_to_post_id !== undefined)
    .map((p) => p.in_reply_to_post_id);

/**
 * Everything the posts made start: the bot's mentions come through the app's stream as they
 * are posted (in real time), so no clock moves here; a clock moved while a judge is asked
 * would be its timeout passing.
 */
async function poll() {
  await bed!.settle();
}

describe("a judge for the replies the built-in is unsure of", () => {
  it("hides what the judge finds in the band, keeps what it clears, and is not asked about sure replies", async () => {
    const { lines, root, judgeName } = await start();
    model!.chat.respond(llamaGuard((text) => (text.includes("vets on Park Road") ? ["S7"] : [])));
    const [alice, bob, carol, dave] = await Promise.all(["alice", "bob", "carol", "dave"].map((n) => bed!.user(n)));
    const dox = await bed!.post(alice!, PLAIN_DOX, root.id);
    const cleared = await bed!.post(bob!, "@host you're an idiot", root.id); // 0.7: in the band, the judge says safe
    const threat = await bed!.post(carol!, "@host I will kill you", root.id); // 0.95: sure, no judge
    const benign = await bed!.post(dave!, "@host lovely idea, count me in", root.id); // sure the other way
    await poll();

    expect(posts()[dox.id]!.hidden).toBe(true);
    expect(posts()[cleared.id]!.hidden).toBeFalsy();
    expect(posts()[threat.id]!.hidden).toBe(true);
    expect(answered().sort()).toEqual([cleared.id, benign.id].sort());
    // Asked about the two unsure replies only; each sent as the last user message of the prompt.
    expect(model!.chat.bodies.map((b) => String(b.messages.at(-1)!.content).match(/User: (.*)/)![1]).sort()).toEqual(
      [PLAIN_DOX, "@host you're an idiot"].sort(),
    );

    const hid = lines.filter((l) => l.plugin === "moderate" && String(l.msg).startsWith("hid "));
    const byJudge = hid.find((l) => l.post === dox.id)!;
    expect(byJudge).toMatchObject({ source: "judge", categories: ["S7"], judge: judgeName });
    expect(byJudge.msg).toBe(
      `hid reply ${dox.id} by @alice: judge ${judgeName} found S7 (Privacy) (unsure: evidence 0.391 in [0.3, 0.75); judge ${judgeName}: unsafe S7 (Privacy))`,
    );
    expect(hid.find((l) => l.post === threat.id)).toMatchObject({ source: "built-in", rule: "threat:violence" });
    // One line per hide: the plugins stage adds no "stopped by a filter" line.
    expect(lines.filter((l) => String(l.msg).includes("stopped by"))).toEqual([]);
    expect(moderationTallies.verdicts.get({ bot: "host", verdict: "hidden", source: "judge" })).toBeGreaterThanOrEqual(
      1,
    );
  });

  it("with when: always, the judge is asked about every reply and finds what the built-in missed below the band", async () => {
    const { root } = await start((url) => ({ judge: { kind: "openai-moderation", url, when: "always" } }));
    model!.moderations.respond((req) =>
      answer.moderation(...req.texts.map((t) => (t.includes("bins") ? { "harassment/threatening": 0.9 } : {}))),
    );
    const alice = await bed!.user("alice");
    const quiet = await bed!.post(alice, "@host lovely bins you have, be a shame if they went missing", root.id);
    const nice = await bed!.post(alice, "@host lovely idea, count me in", root.id);
    await poll();
    expect(model!.moderations.bodies.map((b) => b.input).sort()).toEqual(
      ["@host lovely bins you have, be a shame if they went missing", "@host lovely idea, count me in"].sort(),
    );
    expect(posts()[quiet.id]!.hidden).toBe(true);
    expect(posts()[nice.id]!.hidden).toBeFalsy();
  });

  it("records the judge's verdict with the reply: handled again after a restart, the reply is not asked about again", async () => {
    const store = createMemoryStore();
    const { root } = await start(undefined, { store });
    model!.chat.respond(llamaGuard(() => []));
    const bob = await bed!.user("bob");
    const cleared = await bed!.post(bob, "@host you're an idiot", root.id);
    await poll();
    expect(model!.chat.requests).toHaveLength(1);
    expect(answered()).toEqual([cleared.id]);

    // A restart in which the reply comes again (its mentions cursor lost): nothing in memory
    // is kept (shared judges forgotten: their caches too), only the state.
    await bed!.stop();
    forgetSharedJudges();
    store.delete("cursors", "host:mentions");
    const { lines, logger } = captureLogs();
    bed = await createTestBed({
      logger,
      sandbox: sandbox!,
      store,
      bots: [host({ judge: chatJudge(model!.url) })],
      plugins: { moderate, reply },
    });
    await poll();
    expect(model!.chat.requests).toHaveLength(1);
    expect(posts()[cleared.id]!.hidden).toBeFalsy();
    // Still answered once: the ledger knows the answer was sent.
    expect(answered()).toEqual([cleared.id]);
    expect(lines.some((l) => l.plugin === "moderate" && l.post === cleared.id && Number(l.level) >= 40)).toBe(false);
  });
});

describe("when the judge fails, the built-in's verdict stands", () => {
  for (const [what, script] of [
    ["answers 503", () => model!.chat.respond(answer.error(503))],
    ["refuses the request (400)", () => model!.chat.respond(answer.error(400))],
    ["refuses the key (401)", () => model!.chat.respond(answer.error(401))],
    ["answers 500", () => model!.chat.respond(answer.error(500))],
    ["rate limits (429)", () => model!.chat.respond(answer.rateLimited(30))],
  ] as const) {
    it(`when it ${what}: logged once for the outage, counted per reply`, async () => {
      const { lines, root } = await start();
      script();
      const [alice, bob, carol] = await Promise.all(["alice", "bob", "carol"].map((n) => bed!.user(n)));
      const rude = [
        await bed!.post(alice!, "@host you're an idiot", root.id),
        await bed!.post(bob!, "@host what a moron", root.id),
      ];
      const dox = await bed!.post(carol!, PLAIN_DOX, root.id);
      await poll();
      // The built-in hides the insults (0.7 at the cut 0.5) and keeps the plain-word reply.
      for (const r of rude) expect(posts()[r.id]!.hidden).toBe(true);
      expect(posts()[dox.id]!.hidden).toBeFalsy();
      const outage = lines.filter((l) => String(l.msg).startsWith("moderation judge ") && l.level === 40);
      expect(outage).toHaveLength(1);
      expect(String(outage[0]!.msg)).toContain("the built-in classifier's verdicts stand until it answers again");
      const hid = lines.find((l) => l.post === rude[0]!.id && String(l.msg).startsWith("hid "))!;
      expect(hid.source).toBe("built-in");
      expect((hid.reasons as string[]).at(-1)).toMatch(
        /^judge .* gave no opinion \((server-error|refused|rate-limited)\); the built-in's verdict stands$/,
      );
    });
  }

  it("a hanging judge holds back no other event: a mention is answered while it hangs; at the timeout the built-in decides", async () => {
    const { lines, root, judgeName } = await start();
    model!.chat.respond(answer.hang());
    const [alice, erin] = await Promise.all(["alice", "erin"].map((n) => bed!.user(n)));
    const rude = await bed!.post(alice!, "@host you're an idiot", root.id);
    const hello = await bed!.post(erin!, "@host hello, what does this bot do?");
    await model!.whenPending(1);
    // The mention was answered while the judge hangs.
    await until("the mention answered while the judge hangs", () => answered().includes(hello.id));
    expect(posts()[rude.id]!.hidden).toBeFalsy();
    await bed!.advance(3_000); // the judge's timeout
    await bed!.settle();
    expect(posts()[rude.id]!.hidden).toBe(true);
    expect(answered()).toEqual([hello.id]);
    expect(lines.find((l) => l.post === rude.id && String(l.msg).startsWith("hid "))!.reasons).toContain(
      `judge ${judgeName} gave no opinion (timeout); the built-in's verdict stands`,
    );
  });
});

describe("waiting for the judge holds no handler slot", () => {
  it("ten unsure replies awaiting a hanging judge (more than the bot's 8 slots) hold back no mention", async () => {
    const { root } = await start();
    model!.chat.respond(answer.hang());
    const users = await Promise.all(Array.from({ length: 10 }, (_, i) => bed!.user(`rude${i}`)));
    const rude = [];
    for (const [i, u] of users.entries()) rude.push(await bed!.post(u, `@host you're an idiot ${i}`, root.id));
    // The judge's concurrency (4) is in flight; the other six wait for a slot of the judge.
    await model!.whenPending(4);
    const erin = await bed!.user("erin");
    const hello = await bed!.post(erin, "@host hello, what does this bot do?");
    await until("the mention answered while ten replies wait for the judge", () => answered().includes(hello.id));
    expect(rude.filter((r) => posts()[r.id]!.hidden)).toEqual([]);
    await bed!.advance(3_000); // the judge's timeout: the built-in decides them all
    await bed!.settle();
    expect(rude.filter((r) => !posts()[r.id]!.hidden)).toEqual([]);
  });
});

describe("the author's history and the thread", () => {
  it("an author hidden before needs less evidence; the hide's line says why", async () => {
    const { lines, root } = await start(noJudge);
    const alice = await bed!.user("alice");
    const first = await bed!.post(alice, "@host you're an idiot", root.id);
    await poll();
    expect(posts()[first.id]!.hidden).toBe(true);
    const banter = await bed!.post(alice, "@host get lost clown 😂", root.id); // 0.35: below 0.5, at the lowered cut
    await poll();
    expect(posts()[banter.id]!.hidden).toBe(true);
    const line = lines.find((l) => l.post === banter.id && String(l.msg).startsWith("hid "))!;
    expect(line).toMatchObject({ cut: 0.35, rule: "insult:clown" });
    expect(line.msg).toBe(
      `hid reply ${banter.id} by @alice: insult:clown matched "get lost clown" (unsure: evidence 0.35 in [0.3, 0.75); the bot hid a reply of this author in the last 30 days)`,
    );
    // Another author's same banter stays.
    const bob = await bed!.user("bob");
    const other = await bed!.post(bob, "@host get lost clown 😂", root.id);
    await poll();
    expect(posts()[other.id]!.hidden).toBeFalsy();
  });

  it("a mutual follow needs more: one insult from a friend stays, looked up once per author (a budgeted read)", async () => {
    const { root, me } = await start(noJudge);
    const alice = await bed!.user("alice");
    await bed!.follow(alice, "host");
    await bed!.follow(me, "alice");
    const a = await bed!.post(alice, "@host you're an idiot", root.id);
    const b = await bed!.post(alice, "@host what a moron", root.id);
    await poll();
    expect(posts()[a.id]!.hidden).toBeFalsy();
    expect(posts()[b.id]!.hidden).toBeFalsy();
    expect(answered().sort()).toEqual([a.id, b.id].sort());
    // One lookup of alice's connection status for both replies (remembered a day).
    expect(served("GET /2/users/:id")).toEqual({ "200": 1 });
    // A stranger's same insult is hidden.
    const carol = await bed!.user("carol");
    const c = await bed!.post(carol, "@host you're an idiot", root.id);
    await poll();
    expect(posts()[c.id]!.hidden).toBe(true);
  });

  it("near-identical replies from three accounts within minutes are a pile-on: the third is hidden, saying so", async () => {
    const { lines, root } = await start(noJudge);
    const [a, b, c] = await Promise.all(["amy", "ben", "cat"].map((n) => bed!.user(n)));
    const first = await bed!.post(a!, "@host get lost clown 😂", root.id);
    const second = await bed!.post(b!, "@host get lost clown 😂😂", root.id);
    const third = await bed!.post(c!, "@host GET LOST CLOWN 😂", root.id);
    await poll();
    expect(posts()[first.id]!.hidden).toBeFalsy();
    expect(posts()[second.id]!.hidden).toBeFalsy();
    expect(posts()[third.id]!.hidden).toBe(true);
    expect(lines.find((l) => l.post === third.id && String(l.msg).startsWith("hid "))!.reasons).toContain(
      "pile-on: 3 accounts sent near-identical replies to this post within minutes",
    );
  });
});

describe("hides the service allows", () => {
  it("in a conversation the bot did not start, sends no hide, answers nothing, says why, and with also: mute mutes the author", async () => {
    const { lines, me } = await start(() => ({ also: "mute" }));
    const [alice, carol] = await Promise.all(["alice", "carol"].map((n) => bed!.user(n)));
    const theirs = await bed!.post(alice!, "Anyone tried the new bot framework?");
    const mine = await bed!.post(me, "@alice yes, it is what I run on!", theirs.id);
    const rude = await bed!.post(carol!, "@host you're an idiot", mine.id);
    const rude2 = await bed!.post(carol!, "@host what a moron", mine.id);
    await poll();
    expect(posts()[rude.id]!.hidden).toBeFalsy();
    expect(answered()).toEqual([theirs.id]); // only the bot's own earlier reply
    // No hide was sent: no action line for one.
    expect(lines.filter((l) => l.action === "hide")).toEqual([]);
    const line = lines.find((l) => l.post === rude.id && String(l.msg).startsWith("not hiding "))!;
    expect(line.msg).toContain(
      "the conversation was started by another account, and only replies in a conversation the bot started can be hidden; not answered; muted @carol instead",
    );
    const world = bed!.sandbox.context.data.world;
    expect(world.mutes.filter((m) => m.source_id === me.id).map((m) => m.target_id)).toEqual([carol!.id]);
    expect(posts()[rude2.id]!.hidden).toBeFalsy();
    // The conversation's starter was looked up once (one budgeted read), not per reply.
    expect(served("GET /2/posts/:id")).toEqual({ "200": 1 });
  });
});
