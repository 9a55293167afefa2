/**
 * What `bot say --dm` does: send a bot of the running demo a direct message as a user of the
 * demo, through the service's API like anyone's, and, with `--wait`, wait for the bot's answer
 * in that conversation (for as long as the bot needs: it reads its DMs only every so often, a
 * minute on pro), print it, and when none came, say what became of the message from the bot's
 * state.
 */
import { ApiError } from "../api/errors.ts";
import { systemClock } from "../clock.ts";
import { UserError } from "../errors.ts";
import { openFileStore } from "../store/index.ts";
import { awaitDmAnswer, type DmAnswer } from "./await-dm-answer.ts";
import { readDemo, type DemoAccess, type DemoDmAnswerer } from "./demo-access.ts";
import { withDemoUsers } from "./demo-users.ts";
import { describeFate, dmFate, timeOfDay } from "./post-fate.ts";
import { FALLBACK_WAIT_S, sayDmInput, seconds, WAIT_MARGIN_MS } from "./say-wait.ts";

export interface SayDmOptions {
  /** The first and second words: the bot and the text (see {@link sayDmInput}). */
  words: [string | undefined, string | undefined];
  as: string;
  data: string;
  wait?: true | string;
}

/** The bots of the demo that answer DMs, as a hint. */
function dmAnswerersHint(access: DemoAccess): string {
  const list = Object.entries(access.dm_answers ?? {}).map(
    ([bot, a]) => `@${bot} (reads its DMs every ${seconds(a.every_ms)})`,
  );
  return list.length > 0
    ? `the bots that answer DMs: ${list.join(", ")}`
    : "no bot of the demo answers DMs (one needs triggers: { dms: {} } and a plugin handling dm events, such as reply with events: [dm])";
}

export async function sayDm(options: SayDmOptions): Promise<void> {
  const { bot, text, wait } = sayDmInput(options.words[0], options.words[1], options.wait);
  const access = await readDemo(options.data);
  const answerer: DemoDmAnswerer | undefined = access.dm_answers?.[bot];
  if (wait === true && !answerer && access.dm_answers)
    throw new UserError(`@${bot} does not answer direct messages; ${dmAnswerersHint(access)}`);
  const timeoutMs =
    wait === true ? (answerer ? answerer.every_ms + WAIT_MARGIN_MS : FALLBACK_WAIT_S * 1000) : (wait ?? 0) * 1000;
  const waited = await withDemoUsers(options.data, access, systemClock, async (users) => {
    const { client } = await users.as(options.as);
    const botId = await users.idOf(bot);
    const sent = await client.dms.sendTo(botId, { text });
    const id = sent.data?.dm_event_id ?? "?";
    process.stdout.write(
      `@${options.as} sent @${bot} a DM ${id} (conversation ${sent.data?.dm_conversation_id ?? "?"}): ${JSON.stringify(text)}\n`,
    );
    if (wait === undefined) {
      process.stdout.write(
        `@${bot} sees it at its next DM check${answerer ? ` (every ${seconds(answerer.every_ms)})` : ""}: watch the demo's log, or add --wait.\n`,
      );
      return undefined;
    }
    if (wait === true && answerer) {
      process.stdout.write(
        `waiting for @${bot} (reads its DMs every ${seconds(answerer.every_ms)}) until ${timeOfDay(systemClock.now() + timeoutMs)}\n`,
      );
    }
    const answers = await awaitDmAnswer({ client, clock: systemClock, botId, afterId: id, timeoutMs });
    return { answers, messageId: id };
  }).catch((err: unknown) => {
    if (err instanceof ApiError)
      throw new UserError(`@${options.as} could not send @${bot} a DM or read the answer: ${err.message}`, {
        cause: err,
      });
    throw err;
  });
  if (waited === undefined) return;
  if (waited.answers.length === 0) throw new UserError(await whyNoAnswer(options.data, access, bot, waited, timeoutMs));
  for (const a of waited.answers) process.stdout.write(`@${bot} answered ${a.id}: ${JSON.stringify(a.text)}\n`);
}

/** Why no answer came: what became of the message for the bot, from the demo's state. */
async function whyNoAnswer(
  data: string,
  access: DemoAccess,
  bot: string,
  waited: { answers: DmAnswer[]; messageId: string },
  timeoutMs: number,
): Promise<string> {
  const within = `no answer within ${seconds(timeoutMs)}`;
  if (!access.dm_answers?.[bot]) return `${within}: ${dmAnswerersHint(access)}`;
  const store = await openFileStore(data, { readOnly: true });
  try {
    return `${within}: ${describeFate(bot, dmFate(store, bot, waited.messageId))}`;
  } finally {
    await store.close();
  }
}
