/**
 * What `bot say --dm` does: send a bot of the running demo a direct message as a user of the
 * demo, through the service's API like anyone's, and, with `--wait`, wait for the bot's answer
 * in that conversation (for as long as the bot needs: it reads its DMs only every so often, a
 * minute on pro), whichever plugin sends it, print it, and when none came, say what became of
 * the message from the bot's state.
 */
import { ApiError } from "../api/errors.ts";
import { UserError } from "../errors.ts";
import { openFileStore } from "../store/index.ts";
import { awaitDmAnswer, type DmWaited } from "./await-dm-answer.ts";
import { botNamed, readDemo, usernameOf, type DemoAccess, type DemoDmAnswerer } from "./demo-access.ts";
import { demoClock, withDemoUsers } from "./demo-users.ts";
import { describeFate, dmFate, timeOfDay, type SentDm } from "./post-fate.ts";
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
    ([bot, a]) => `@${usernameOf(access, bot)} (reads its DMs every ${seconds(a.every_ms)})`,
  );
  return list.length > 0
    ? `the bots that answer DMs: ${list.join(", ")}`
    : "no bot of the demo answers DMs (one needs triggers: { dms: {} } and a plugin handling dm events, such as reply with events: [dm])";
}

export async function sayDm(options: SayDmOptions): Promise<void> {
  const input = sayDmInput(options.words[0], options.words[1], options.wait);
  const { text, wait } = input;
  const access = await readDemo(options.data);
  // The bot by its name or its account's username (a connected account's bot: `maya_codes`).
  const bot = botNamed(access, input.bot) ?? input.bot;
  const username = usernameOf(access, bot);
  const answerer: DemoDmAnswerer | undefined = access.dm_answers?.[bot];
  if (wait === true && !answerer && access.dm_answers)
    throw new UserError(`@${username} does not answer direct messages; ${dmAnswerersHint(access)}`);
  const timeoutMs =
    wait === true ? (answerer ? answerer.every_ms + WAIT_MARGIN_MS : FALLBACK_WAIT_S * 1000) : (wait ?? 0) * 1000;
  const clock = await demoClock(access);
  const waited = await withDemoUsers(options.data, access, clock, async (users) => {
    const { client, id: userId } = await users.as(options.as);
    const botId = await users.idOf(username);
    const sent = await client.dms.sendTo(botId, { text });
    const id = sent.data?.dm_event_id ?? "?";
    process.stdout.write(
      `@${options.as} sent @${username} a DM ${id} (conversation ${sent.data?.dm_conversation_id ?? "?"}): ${JSON.stringify(text)}\n`,
    );
    if (wait === undefined) {
      process.stdout.write(
        `@${username} sees it at its next DM check${answerer ? ` (every ${seconds(answerer.every_ms)})` : ""}: watch the demo's log, or add --wait.\n`,
      );
      return undefined;
    }
    if (wait === true && answerer) {
      process.stdout.write(
        `waiting for @${username} (reads its DMs every ${seconds(answerer.every_ms)}) until ${timeOfDay(clock.now() + timeoutMs)}\n`,
      );
    }
    const seen = await awaitDmAnswer({ access, clock, userId, botId, messageId: id, timeoutMs });
    return {
      ...seen,
      message: { id, senderId: userId, ...(seen.sentAt !== undefined ? { sentAt: seen.sentAt } : {}) },
    };
  }).catch((err: unknown) => {
    if (err instanceof ApiError)
      throw new UserError(`@${options.as} could not send @${username} a DM: ${err.message}`, { cause: err });
    throw err;
  });
  if (waited === undefined) return;
  if (waited.answers.length === 0) throw new UserError(await whyNoAnswer(options.data, access, bot, waited, timeoutMs));
  for (const a of waited.answers) process.stdout.write(`@${username} answered ${a.id}: ${JSON.stringify(a.text)}\n`);
}

/** Why no answer came: what became of the message for the bot, from the demo's state. */
async function whyNoAnswer(
  data: string,
  access: DemoAccess,
  bot: string,
  waited: DmWaited & { message: SentDm },
  timeoutMs: number,
): Promise<string> {
  const within = `no answer within ${seconds(timeoutMs)}`;
  if (!access.dm_answers?.[bot]) return `${within}: ${dmAnswerersHint(access)}`;
  const store = await openFileStore(data, { readOnly: true });
  try {
    return `${within}: ${describeFate(usernameOf(access, bot), dmFate(store, bot, waited.message))}`;
  } finally {
    await store.close();
  }
}
