/**
 * Model replies exactly once across real crashes: a child process (test/fixtures/llm-child.ts)
 * answers posts with text a model writes, and is killed with SIGKILL between the model's answer
 * and the post (once the reply is marked pending and about to be sent; earlier, right after its
 * text was recorded, while it waits for a slot; and while its recorded text is checked, as a
 * moderation judge checks it), then at random moments. Started again, it posts the text the model first
 * wrote, once, and never asks the model again for a reply whose text it recorded; and for one
 * whose answer had come back but was not recorded yet, it asks again for at most `parallel`
 * of them, however many came back together.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { runChild, startReplyWorld, type ReplyWorld } from "../helpers/model-crash.ts";
import { mulberry32 } from "../helpers/random.ts";

const dirs: string[] = [];
let world: ReplyWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

const freshDir = async () => {
  const dir = await mkdtemp(join(tmpdir(), "postbot-llm-kill9-"));
  dirs.push(dir);
  return dir;
};

describe("kill -9 during model replies", () => {
  it("killed between the model's answer and the post: the restart posts that answer, without asking again", async () => {
    world = await startReplyWorld();
    const dataDir = await freshDir();
    const first = await runChild(world, dataDir, 1, { hold: true });
    expect(first.killed, first.out).toBe(true);
    expect(first.out).toContain("posting writer:reply:p0");
    expect(world.answers.get("p0")).toEqual(["Answer 1 to p0."]);
    expect(world.received.size).toBe(0);

    const second = await runChild(world, dataDir, 1);
    expect(second.code, second.out).toBe(0);
    expect(world.received.get("writer:reply:p0")).toEqual(["Answer 1 to p0."]);
    expect(world.model.chat.requests).toHaveLength(1);
  }, 60_000);

  it("killed after the model's text was recorded, while its reply waits for a slot: the restart posts that text, without asking again", async () => {
    world = await startReplyWorld();
    const dataDir = await freshDir();
    // One reply an hour: one reply takes the slot, the other's text is recorded and it waits.
    const first = await runChild(world, dataDir, 2, { holdRecorded: true });
    expect(first.killed, first.out).toBe(true);
    expect(first.out).toContain("recorded");
    expect(world.model.chat.requests).toHaveLength(2);

    const second = await runChild(world, dataDir, 2);
    expect(second.code, second.out).toBe(0);
    for (const p of ["p0", "p1"]) {
      expect(world.answers.get(p), p).toHaveLength(1);
      expect(world.received.get(`writer:reply:${p}`), p).toEqual(world.answers.get(p));
    }
    expect(world.model.chat.requests).toHaveLength(2);
  }, 60_000);

  it("killed while its recorded text is checked (a judge asked): the restart checks that text again, posts it, and does not ask the model again", async () => {
    world = await startReplyWorld();
    const dataDir = await freshDir();
    const first = await runChild(world, dataDir, 1, { check: "hang" });
    expect(first.killed, first.out).toBe(true);
    expect(first.out).toContain("checking Answer 1 to p0.");

    const second = await runChild(world, dataDir, 1, { check: "pass" });
    expect(second.code, second.out).toBe(0);
    expect(second.out).toContain("checked Answer 1 to p0.");
    expect(world.received.get("writer:reply:p0")).toEqual(["Answer 1 to p0."]);
    expect(world.model.chat.requests).toHaveLength(1);
  }, 60_000);

  it("killed as a burst of answers comes back together: the restart asks the model again for at most `parallel` replies", async () => {
    world = await startReplyWorld();
    const dataDir = await freshDir();
    const PARALLEL = 4;
    const COUNT = 24;
    const env = { PARALLEL: String(PARALLEL), BOTS: "3" };
    // The model answers in bursts: held until PARALLEL requests wait, then all at once. The
    // child is killed as the second burst leaves the model, before it can record them.
    world.together = PARALLEL;
    const first = await runChild(world, dataDir, COUNT, { onAnswer: { n: 2 * PARALLEL, delayMs: 0 }, env });
    expect(first.killed, first.out).toBe(true);
    world.together = undefined;
    const second = await runChild(world, dataDir, COUNT, { env });
    expect(second.code, second.out).toBe(0);

    const posts = Array.from({ length: COUNT }, (_, i) => `p${i}`);
    let askedAgain = 0;
    for (const [i, p] of posts.entries()) {
      const bot = i % 3 === 0 ? "writer" : `writer${i % 3}`;
      const answers = world.answers.get(p) ?? [];
      // Posted once, with the last answer the model gave for it (none asked after a record).
      expect(world.received.get(`${bot}:reply:${p}`), p).toEqual([answers.at(-1)]);
      askedAgain += answers.length - 1;
    }
    expect(askedAgain).toBeLessThanOrEqual(PARALLEL);
    expect(world.model.chat.requests).toHaveLength(COUNT + askedAgain);
  }, 60_000);

  it("after random kills and restarts, every reply is posted once, with the last text the model wrote for it", async () => {
    const seed = Number(process.env.KILL9_SEED ?? Date.now() % 1_000_000);
    const random = mulberry32(seed);
    world = await startReplyWorld();
    const dataDir = await freshDir();
    const COUNT = 12;
    let kills = 0;
    for (let round = 0; round < 6; round++) {
      const kill =
        round % 2 === 0 ? { onReply: 1 + Math.floor(random() * 4) } : { afterMs: 300 + Math.floor(random() * 700) };
      const result = await runChild(world, dataDir, COUNT, kill);
      if (result.killed) kills++;
      else {
        expect(result.code, `seed ${seed}: ${result.out}`).toBe(0);
        break;
      }
    }
    const last = await runChild(world, dataDir, COUNT);
    expect(last.code, `seed ${seed}: ${last.out}`).toBe(0);
    expect(kills, `seed ${seed}`).toBeGreaterThanOrEqual(1);
    const posts = Array.from({ length: COUNT }, (_, i) => `p${i}`);
    // Each reply posted exactly once, and its text is the last answer the model gave for it: no
    // answer was asked for after one had been recorded (a later answer would never be posted).
    const wrong = posts.filter((p) => {
      const got = world!.received.get(`writer:reply:${p}`);
      return got?.length !== 1 || got[0] !== world!.answers.get(p)?.at(-1);
    });
    expect(wrong, `seed ${seed}`).toEqual([]);
  }, 180_000);
});
