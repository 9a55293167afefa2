/**
 * The quiz of issue 22 by DM across real crashes: the bot runs in a child process
 * (test/fixtures/quiz-child.ts) on the real clock and reads its DMs once at each start (its
 * next poll is a minute away, so alice writes while it is down and it reads her message as it
 * starts). At every step it is killed with SIGKILL: once while its answer's request is at the
 * service (recorded `pending`; the service holds it, and drops it when the process is gone),
 * once at a random moment after it starts. After each kill it starts again, and its messages in
 * the DM conversation must be exactly the quiz's, each once: no question twice, none skipped.
 */
import { afterEach, describe, expect, it } from "vitest";
import { eventsOf, oneToOneId } from "../../../src/sandbox/domain/dms.ts";
import { openFileStore } from "../../../src/store/file-store.ts";
import { quizWorld, until, type QuizProcess, type QuizWorld } from "../../helpers/quiz-process.ts";
import { mulberry32 } from "../../helpers/random.ts";

const EXPECTED = ["What's your name?", "Hi Ann! Favourite colour: red, green or blue?", "Thanks Ann, blue it is. Bye!"];
/** What alice writes at each step: the start, then her answers. */
const SAYS = ["quiz", "Ann", "blue"];
/** The route of the bot's DMs (a conversation's message goes to the participant). */
const SEND = "POST /2/dm_conversations/with/:participant_id/messages";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const f of cleanups.splice(0)) await f();
});

/** The bot's messages to alice, oldest first. */
const botDms = (w: QuizWorld) =>
  eventsOf(w.sandbox.context, w.alice.id, oneToOneId(w.alice.id, w.botId))
    .filter((e) => e.event_type === "MessageCreate" && e.sender_id === w.botId)
    .reverse()
    .map((e) => e.text);

/** The sandbox's faults waiting (admin API). */
async function faultsLeft(w: QuizWorld): Promise<number> {
  const res = await fetch(new URL("/_sandbox/faults", w.sandbox.url), {
    headers: { authorization: `Bearer ${w.sandbox.adminToken}` },
  });
  return ((await res.json()) as { faults: unknown[] }).faults.length;
}

/** Runs the quiz by DM, killing the bot once in each step as `arm` arranges; checks its messages after each restart. */
async function quizWithKills(arm: (w: QuizWorld, kill: () => void) => Promise<void>, cutsEveryStep = false) {
  const w = await quizWorld();
  cleanups.push(w.close);
  for (let step = 0; step < SAYS.length; step++) {
    await w.sandbox.admin.sendDm({ sender_id: w.alice.id, recipient_id: w.botId, text: SAYS[step]! });
    const running: QuizProcess = await w.start();
    let killed = false;
    const kill = () => {
      if (killed || running.child.exitCode !== null) return;
      killed = true;
      running.child.kill("SIGKILL");
    };
    await arm(w, kill);
    // Killed as armed, or, when the step was over first, killed now: either way cut or done.
    await until(`the kill in step ${step + 1}`, () => killed || botDms(w).length > step, 20_000).catch(() => {});
    const cut = killed;
    kill();
    await running.exited;
    // Armed at the request: killed before the step's message existed, every time.
    if (cutsEveryStep) expect({ cut, said: botDms(w).length }, `step ${step + 1}`).toEqual({ cut: true, said: step });
    const again = await w.start();
    await until(`message ${step + 1} of the quiz`, () => botDms(w).length >= step + 1);
    await again.idle(); // settled: a repeated question, had one come, is there by now
    expect(botDms(w), `after the kill in step ${step + 1}`).toEqual(EXPECTED.slice(0, step + 1));
    again.child.kill("SIGTERM");
    expect(await again.exited, again.err()).toBe(0);
  }
  const store = await openFileStore(w.dir, { readOnly: true });
  expect(store.entries<{ v: unknown }>("conv:quiz").filter(([, r]) => r.v !== null)).toEqual([]);
  expect(store.get<{ v: unknown }>("session:quiz", w.alice.id)?.v).toEqual({ dialog: { name: "Ann", colour: "blue" } });
  await store.close();
  expect(w.botPosts()).toEqual([]);
}

describe("kill -9 between the steps of a conversation by DM", () => {
  it("killed while each of its messages is at the service: each asked once after the restart, none skipped", async () => {
    await quizWithKills(async (w, kill) => {
      // The service holds the bot's next message a while; it is killed as the request arrives.
      await w.sandbox.admin.addFault({ route: SEND, count: 1, kind: "delay", delay_ms: 3_000 });
      void until("the message's request", async () => (await faultsLeft(w)) === 0, 20_000).then(kill, () => {});
    }, true);
  }, 180_000);

  it("killed at a random moment after it starts: the same", async () => {
    const seed = Number(process.env.KILL9_SEED ?? Date.now() % 1_000_000);
    const random = mulberry32(seed);
    await quizWithKills(async (_w, kill) => {
      setTimeout(kill, Math.floor(random() * 600));
    });
  }, 180_000);
});
