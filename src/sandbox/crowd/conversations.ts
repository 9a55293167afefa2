/**
 * The crowd takes the bots' conversations (a `dialog` such as the demo's quiz): a person
 * starts one with one of the bot's start words (a mention, or a DM to a bot that reads them),
 * and answers the questions the bot asks them, where it asked them: a question is the bot's
 * newest word to that person in a thread (a reply starting with their `@username`) or in
 * their DM conversation, ending with `?`, and not answered yet.
 *
 * An answer is one of the choices the question offers (`..., red, green or blue?`), or else
 * the person's first name: what the demo's quiz asks. Pure functions of the sandbox's
 * world: the crowd (./crowd.ts) decides when, and sends through the admin API.
 */
import { eventsOf, oneToOneId } from "../domain/dms.ts";
import type { SandboxContext } from "../route.ts";
import { compareIds } from "../model/index.ts";
import type { Random } from "../../seeded-random.ts";

/** A question a bot asked one of the crowd, waiting for the answer. */
export interface OpenQuestion {
  bot: { username: string; userId: string };
  user: { id: string; username: string; name: string };
  text: string;
  /** Thread: the bot's post to reply to; DMs: absent (the answer goes to the bot's DMs). */
  postId?: string;
}

/** A bot's text without the `@user` it starts with and the `(2)` a repeat gets: the question itself. */
const bare = (text: string) =>
  text
    .replace(/^(?:\s*@\w+)+\s*/, "")
    .replace(/\s*\(\d+\)\s*$/, "")
    .trim();

/** Whether a text asks something (its last line ends with `?`). */
const asks = (text: string) => bare(text.split("\n").at(-1) ?? "").endsWith("?");

/**
 * The questions the bots asked the crowd's people and nobody answered yet: in threads (the
 * bot's newest reply to a person, with no reply under it) and in DMs (the newest message of
 * their conversation is the bot's).
 */
export function openQuestions(
  ctx: SandboxContext,
  bots: ReadonlyArray<{ username: string; userId: string; dms?: boolean }>,
  users: ReadonlyArray<{ id: string; username: string; name: string }>,
): OpenQuestion[] {
  const posts = Object.values(ctx.data.world.posts);
  const byId = ctx.data.world.posts;
  const answered = new Set(posts.map((p) => p.in_reply_to_post_id).filter((id): id is string => id !== undefined));
  const people = new Map(users.map((u) => [u.id, u]));
  const botIds = new Map(bots.map((b) => [b.userId, b]));
  const newest = new Map<string, OpenQuestion & { id: string }>();
  for (const p of posts) {
    const bot = botIds.get(p.author_id);
    const to = p.in_reply_to_post_id !== undefined ? byId[p.in_reply_to_post_id] : undefined;
    const user = to ? people.get(to.author_id) : undefined;
    if (!bot || !user || p.deleted_at !== undefined || !p.text.startsWith(`@${user.username} `)) continue;
    const key = `${bot.userId}:${user.id}:${p.conversation_id}`;
    const seen = newest.get(key);
    if (!seen || compareIds(p.id, seen.id) > 0) newest.set(key, { bot, user, text: p.text, postId: p.id, id: p.id });
  }
  const out: OpenQuestion[] = [...newest.values()]
    .filter((q) => !answered.has(q.id) && asks(q.text))
    .map(({ id: _id, ...q }) => q);
  for (const bot of bots) {
    if (!bot.dms) continue;
    for (const user of users) {
      const last = eventsOf(ctx, user.id, oneToOneId(user.id, bot.userId)).find(
        (e) => e.event_type === "MessageCreate",
      );
      if (last?.sender_id === bot.userId && last.text !== undefined && asks(last.text))
        out.push({ bot, user, text: last.text });
    }
  }
  return out;
}

/** What a person answers: one of the question's choices (`red, green or blue?`), else their first name. */
export function answerTo(question: string, user: { name: string; username: string }, rng: Random): string {
  const last = bare(question.split("\n").at(-1) ?? "");
  const choices = /(?::\s*|\b)((?:[\w-]+,\s*)+[\w-]+,?\s+or\s+[\w-]+)\?$/i.exec(last)?.[1];
  if (choices) return rng.pick(choices.split(/,\s*|\s+or\s+/).filter((c) => c.length > 0));
  return user.name.split(/\s+/)[0] || user.username;
}
