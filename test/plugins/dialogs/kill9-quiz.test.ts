/**
 * A conversation across real crashes: the quiz of issue 22 runs in a child process
 * (test/fixtures/quiz-child.ts) against a sandbox on the real clock, and is killed with SIGKILL
 * at every step of a conversation in a thread: once as the bot's next message reaches the
 * service (its ledger record `pending`, its answer never read), once at a random moment after
 * the user's answer (before the bot saw it, while it handled it, or after). After each kill it
 * starts again, and the bot's messages must be exactly the quiz's, each once: no question
 * asked twice (the service would refuse the same text: none was even tried), none skipped.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { SandboxPost } from "../../../src/sandbox/model/index.ts";
import { openFileStore } from "../../../src/store/file-store.ts";
import { quizWorld, until, type QuizWorld } from "../../helpers/quiz-process.ts";
import { mulberry32 } from "../../helpers/random.ts";

const EXPECTED = [
  "@alice What's your name?",
  "@alice Hi Ann! Favourite colour: red, green or blue?",
  "@alice Thanks Ann, blue it is. Bye!",
];
/** What alice says at each step: the start in a new thread, then her answers to the last question. */
const SAYS = ["@quiz quiz", "@quiz Ann", "@quiz blue"];

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const f of cleanups.splice(0)) await f();
});

async function world(): Promise<QuizWorld> {
  const w = await quizWorld();
  cleanups.push(w.close);
  return w;
}

/** Runs the quiz, killing the bot once in each step as `kill` arms it; checks the messages after each restart. */
async function quizWithKills(arm: (w: QuizWorld, kill: () => void, step: number) => void) {
  const w = await world();
  let bot = await w.start();
  for (let step = 0; step < SAYS.length; step++) {
    const running = bot;
    let killed = false;
    const kill = () => {
      if (killed || running.child.exitCode !== null) return;
      killed = true;
      running.child.kill("SIGKILL");
    };
    arm(w, kill, step);
    const last = w.botPosts().at(-1);
    await w.sandbox.admin.createPost({
      author_id: w.alice.id,
      text: SAYS[step]!,
      ...(step > 0 ? { in_reply_to_post_id: last!.id } : {}),
    });
    // Killed as armed, or, when the kill came after the step was over, killed now: either way the step is cut or done.
    await Promise.race([running.exited, until("the armed kill", () => killed, 20_000).catch(() => kill())]);
    kill();
    await running.exited;
    bot = await w.start();
    await until(`message ${step + 1} of the quiz`, () => w.botPosts().length >= step + 1);
    await bot.idle(); // settled: a repeated question, had one come, is there by now
    expect(
      w.botPosts().map((p) => p.text),
      `after the kill in step ${step + 1}`,
    ).toEqual(EXPECTED.slice(0, step + 1));
  }
  // Stopped cleanly: the conversation is over, and no reply was ever refused as a duplicate.
  bot.child.kill("SIGTERM");
  expect(await bot.exited, bot.err()).toBe(0);
  const store = await openFileStore(w.dir, { readOnly: true });
  expect(store.entries<{ v: unknown }>("conv:quiz").filter(([, r]) => r.v !== null)).toEqual([]);
  expect(store.get<{ v: unknown }>("session:quiz", w.alice.id)?.v).toEqual({ dialog: { name: "Ann", colour: "blue" } });
  await store.close();
  const posts = (await w.sandbox.admin.stats()).routes["POST /2/posts"] ?? {};
  expect(posts["403"] ?? 0, JSON.stringify(posts)).toBe(0);
  expect(new Set(w.botPosts().map((p) => p.conversation_id)).size).toBe(1);
}

describe("kill -9 between the steps of a conversation", () => {
  it("killed as each of its messages reaches the service: each asked once after the restart, none skipped", async () => {
    await quizWithKills((w, kill) => {
      const onPost = (post: SandboxPost) => {
        if (post.author_id !== w.botId) return;
        w.sandbox.context.events.off("post:created", onPost);
        kill(); // the request arrived; the process dies before it reads the answer
      };
      w.sandbox.context.events.on("post:created", onPost);
    });
  }, 180_000);

  it("killed at a random moment after each answer: the same", async () => {
    const seed = Number(process.env.KILL9_SEED ?? Date.now() % 1_000_000);
    const random = mulberry32(seed);
    await quizWithKills((_w, kill) => {
      setTimeout(kill, Math.floor(random() * 300));
    });
  }, 180_000);
});
