/**
 * What `bot say` does: post as a user of the running demo and, with `--wait`, wait for the
 * bots that will answer (for as long as they need: a bot polled every 90 s sees the post only
 * at its next poll), say which and until when, print their answers, and when none came, say
 * what became of the post from each bot's state.
 */
import { ApiError } from "../api/errors.ts";
import type { ApiClient } from "../api/index.ts";
import type { Clock } from "../clock.ts";
import { UserError } from "../errors.ts";
import { openFileStore } from "../store/index.ts";
import { awaitReplies, type Answer } from "./await-replies.ts";
import { botNamed, readDemo, usernameOf, type DemoAccess } from "./demo-access.ts";
import { demoClock, withDemoUsers } from "./demo-users.ts";
import { describeFate, postFate, timeOfDay } from "./post-fate.ts";
import { awaitedBots, defaultWaitMs, describeAwaited, sayInput, seconds, type Awaited } from "./say-wait.ts";

export interface SayOptions {
  text: string | undefined;
  as: string;
  replyTo?: string;
  data: string;
  wait?: true | string;
}

/** What the post's wait ended with: the answers, or nothing (and who was awaited). */
type Waited = { answers: Answer[]; awaited: Awaited[]; timeoutMs: number; postId: string; conversationId: string };

export async function say(options: SayOptions): Promise<void> {
  const { text, wait } = sayInput(options.text, options.wait);
  if (options.replyTo !== undefined && !/^\d{1,19}$/.test(options.replyTo))
    throw new UserError(`--reply-to ${options.replyTo}: expected a post id (digits)`, { exitCode: 2 });
  const access = await readDemo(options.data);
  const clock = await demoClock(access);
  const waited = await withDemoUsers(options.data, access, clock, async (users) => {
    const { client } = await users.as(options.as);
    const repliedTo = options.replyTo ? await authorOf(client, options.replyTo) : undefined;
    const post = await client.posts.create({
      text,
      ...(options.replyTo ? { reply: { in_reply_to_post_id: options.replyTo } } : {}),
    });
    const id = post.data?.id ?? "?";
    process.stdout.write(`@${options.as} posted ${id}: ${JSON.stringify(text)}\n`);
    if (wait === undefined) {
      process.stdout.write(
        "The bots see it at their next poll (watch the demo's log, or add --wait); answer a reply with --reply-to ITS_ID.\n",
      );
      return undefined;
    }
    const awaited = awaitedBots(access, text, repliedTo === undefined ? undefined : botNamed(access, repliedTo));
    if (wait === true && awaited.length === 0 && access.answers) throw new UserError(noAnswerer(access));
    const timeoutMs = wait === true ? defaultWaitMs(awaited) : wait * 1000;
    if (wait === true && awaited.length > 0) {
      process.stdout.write(
        `waiting for ${awaited.map(describeAwaited).join(" and ")} until ${timeOfDay(clock.now() + timeoutMs)}\n`,
      );
    }
    const answers = await awaitReplies({ client, clock, postId: id, timeoutMs });
    const conversationId = answers.length > 0 ? id : await conversationOf(client, id);
    return { answers, awaited, timeoutMs, postId: id, conversationId } satisfies Waited;
  }).catch((err: unknown) => {
    if (err instanceof ApiError)
      throw new UserError(`@${options.as} could not post or look for answers: ${err.message}`, { cause: err });
    throw err;
  });
  if (waited === undefined) return;
  if (waited.answers.length === 0) throw new UserError(await whyNoAnswer(options.data, access, waited, clock));
  for (const a of waited.answers) process.stdout.write(`@${a.username} answered ${a.id}: ${JSON.stringify(a.text)}\n`);
  process.stdout.write("Answer a reply with --reply-to ITS_ID.\n");
}

/** The username of the author of post `id` (to know whether a reply answers a bot's post). */
async function authorOf(client: ApiClient, id: string): Promise<string | undefined> {
  const found = await client.posts.lookup(id, { expansions: ["author_id"], "user.fields": ["username"] });
  return found.includes?.users?.find((u) => u.id === found.data?.author_id)?.username;
}

/** The conversation post `id` belongs to (a reply cooldown is per conversation). */
async function conversationOf(client: ApiClient, id: string): Promise<string> {
  const found = await client.posts.lookup(id, { "post.fields": ["conversation_id"] });
  return found.data?.conversation_id ?? id;
}

/** Which bots of the demo answer what, as a hint to mention one. */
function answerersHint(access: DemoAccess): string {
  const list = Object.entries(access.answers ?? {}).map(
    ([bot, a]) =>
      `@${usernameOf(access, bot)} (${usernameOf(access, bot) === bot ? "" : `bot ${bot}: `}${a.events.map((e) => (e === "mention" ? "mentions" : "replies to its posts")).join(", ")})`,
  );
  return list.length > 0 ? `the bots that answer: ${list.join(", ")}` : "no bot of the demo answers posts";
}

/** `--wait` alone, and no bot will answer the post: say so at once rather than wait. */
const noAnswerer = (access: DemoAccess) =>
  `no bot of the demo answers this post: it mentions none that answers mentions, and replies to no post of one that answers replies; ${answerersHint(access)}`;

/** Why no answer came: what became of the post for each awaited bot, from the demo's state. */
async function whyNoAnswer(data: string, access: DemoAccess, waited: Waited, clock: Clock): Promise<string> {
  const within = `no answer within ${seconds(waited.timeoutMs)}`;
  if (waited.awaited.length === 0) {
    return `${within}: does a bot of the demo have a mentions trigger and a plugin that replies, and did the post mention it? ${answerersHint(access)}`;
  }
  const store = await openFileStore(data, { readOnly: true });
  try {
    const now = clock.now();
    const fates = waited.awaited.map((a) =>
      describeFate(a.username, postFate(store, a.bot, waited.postId, waited.conversationId, now)),
    );
    return `${within}: ${fates.join("; ")}`;
  } finally {
    await store.close();
  }
}
