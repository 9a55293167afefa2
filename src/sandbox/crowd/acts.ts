/**
 * What the crowd does, one function per kind of action: each picks its people and texts with
 * the crowd's randomness, in a fixed order (so a seed replays the same crowd), acts through
 * the sandbox's world functions, and reports what it did. Which kind comes next, and what each
 * may pick from, is decided in ./crowd.ts.
 */
import type { Clock } from "../../clock.ts";
import type { Random } from "../../seeded-random.ts";
import { SandboxAdminError } from "../admin/in-process.ts";
import { acceptFollowRequest, follow, userById } from "../domain/index.ts";
import type { SandboxPost } from "../model/index.ts";
import type { Sandbox } from "../server.ts";
import { chatterText, type CrowdText, dmText, mentionText, replyText, topicOf, topicText } from "./content.ts";
import { answerTo, type OpenQuestion } from "./conversations.ts";
import type { CrowdBot, CrowdUser } from "./members.ts";

/** How the crowd opens a conversation in a thread, before the start word. */
const OPENERS = ["", "let's do the ", "can I take the ", "hi! ", "ok, "] as const;

/** How many texts the crowd tries before giving up an action the service refuses as a duplicate. */
const TRIES = 3;

/** What every action reads and changes: the sandbox, who takes part, and the crowd's dials. */
export interface Scene {
  sandbox: Sandbox;
  clock: Clock;
  rng: Random;
  bots: readonly CrowdBot[];
  users: readonly CrowdUser[];
  /** Stream rules a text can match, for topic posts. */
  topics: readonly string[];
  abusiveShare: number;
  /** When the crowd last sent each bot a DM (by user id); a DM sets it. */
  lastDm: Map<string, number>;
}

/** What the actions may pick from now; a kind with nothing to pick from is not chosen. */
export interface Targets {
  /** The bots' newest posts in conversations they started. */
  replies: Array<{ bot: CrowdBot; post: SandboxPost }>;
  /** People not following a bot that watches its followers. */
  follows: Array<{ user: CrowdUser; bot: CrowdBot }>;
  /** Bots that read DMs and got none from the crowd for a while. */
  dms: CrowdBot[];
  /** Bots with a dialog's start words. */
  talkers: CrowdBot[];
  /** Questions the bots asked the crowd and nobody answered yet. */
  questions: OpenQuestion[];
}

/** Counts one action done and logs it: who, the fields of the log line, and what they did. */
export type Report = (user: CrowdUser, fields: Record<string, unknown>, msg: string) => void;

/** One kind of action. */
export type Act = (scene: Scene, targets: Targets, report: Report) => Promise<void>;

/** Posts a text from `make`, trying others when the service refuses one as a duplicate. */
async function postAs(sandbox: Sandbox, user: CrowdUser, make: () => CrowdText, inReplyTo?: string) {
  for (let attempt = 1; ; attempt++) {
    const text = make();
    try {
      const post = await sandbox.admin.createPost({
        author_id: user.id,
        text: text.text,
        ...(inReplyTo ? { in_reply_to_post_id: inReplyTo } : {}),
      });
      return { post, text };
    } catch (err) {
      const duplicate = err instanceof SandboxAdminError && err.status === 403 && /duplicate/i.test(err.message);
      if (!duplicate || attempt >= TRIES) throw err;
    }
  }
}

const mention: Act = async ({ sandbox, rng, bots, users }, _targets, report) => {
  const bot = rng.pick(bots.filter((b) => b.mentions));
  const user = rng.pick(users);
  const { post, text } = await postAs(sandbox, user, () => mentionText(rng, bot.username));
  report(user, { to: bot.username, post: post.id, text: text.text }, `mentioned @${bot.username}: ${text.text}`);
};

const reply: Act = async ({ sandbox, rng, users, abusiveShare }, targets, report) => {
  const { bot, post: target } = rng.pick(targets.replies);
  const user = rng.pick(users);
  const abusive = rng.chance(abusiveShare);
  const { post, text } = await postAs(sandbox, user, () => replyText(rng, bot.username, abusive), target.id);
  report(
    user,
    { to: bot.username, post: post.id, in_reply_to: target.id, abusive, text: text.text },
    `replied${abusive ? " abusively" : ""} to @${bot.username}'s post ${target.id}: ${text.text}`,
  );
};

const followBot: Act = async ({ sandbox, rng }, targets, report) => {
  const { user, bot } = rng.pick(targets.follows);
  const source = userById(sandbox.context, user.id);
  const target = userById(sandbox.context, bot.userId);
  if (!source || !target) return;
  if (follow(sandbox.context, source, target).pending_follow)
    acceptFollowRequest(sandbox.context, target.id, source.id);
  report(user, { to: bot.username }, `followed @${bot.username}`);
};

const dm: Act = async ({ sandbox, clock, rng, users, lastDm }, targets, report) => {
  const bot = rng.pick(targets.dms);
  const user = rng.pick(users);
  const text = dmText(rng);
  lastDm.set(bot.userId, clock.now());
  const sent = await sandbox.admin.sendDm({ sender_id: user.id, recipient_id: bot.userId, text: text.text });
  report(user, { to: bot.username, dm: sent.id, text: text.text }, `sent @${bot.username} a DM: ${text.text}`);
};

/** Starts a bot's dialog with one of its start words: by DM, or by a mention in a new thread. */
const converse: Act = async ({ sandbox, rng, users }, targets, report) => {
  const bot = rng.pick(targets.talkers);
  const user = rng.pick(users);
  const word = rng.pick(bot.starts!);
  if (bot.dms && (!bot.mentions || rng.chance(0.5))) {
    const sent = await sandbox.admin.sendDm({ sender_id: user.id, recipient_id: bot.userId, text: word });
    report(
      user,
      { to: bot.username, dm: sent.id, text: word },
      `started a conversation with @${bot.username} by DM: ${word}`,
    );
    return;
  }
  const { post, text } = await postAs(sandbox, user, () => ({
    kind: "mention",
    abusive: false,
    text: `@${bot.username} ${rng.pick(OPENERS)}${word}`,
  }));
  report(
    user,
    { to: bot.username, post: post.id, text: text.text },
    `started a conversation with @${bot.username}: ${text.text}`,
  );
};

/** Answers a bot's open question where it was asked: in its thread, or by DM. */
const answer: Act = async ({ sandbox, rng, users }, targets, report) => {
  const q = rng.pick(targets.questions);
  const user = users.find((u) => u.id === q.user.id)!;
  const said = answerTo(q.text, q.user, rng);
  if (q.postId === undefined) {
    const sent = await sandbox.admin.sendDm({ sender_id: user.id, recipient_id: q.bot.userId, text: said });
    report(user, { to: q.bot.username, dm: sent.id, text: said }, `answered @${q.bot.username} by DM: ${said}`);
    return;
  }
  const { post } = await postAs(
    sandbox,
    user,
    () => ({ kind: "reply", abusive: false, text: `@${q.bot.username} ${said}` }),
    q.postId,
  );
  report(
    user,
    { to: q.bot.username, post: post.id, in_reply_to: q.postId, text: post.text },
    `answered @${q.bot.username}: ${post.text}`,
  );
};

const topic: Act = async ({ sandbox, rng, users, topics }, _targets, report) => {
  const rule = rng.pick(topics);
  const user = rng.pick(users);
  const { post, text } = await postAs(sandbox, user, () => topicText(rng, topicOf(rule, rng)!));
  report(user, { rule, post: post.id, text: text.text }, `posted on "${rule}": ${text.text}`);
};

const chatter: Act = async ({ sandbox, rng, users }, _targets, report) => {
  const user = rng.pick(users);
  const { post, text } = await postAs(sandbox, user, () => chatterText(rng));
  report(user, { post: post.id, text: text.text }, `posted: ${text.text}`);
};

/**
 * Each kind of action the crowd takes, by its name: mention a bot, reply to a bot's post
 * (abusively at the crowd's share), follow a bot, DM one, start a dialog, answer a bot's
 * question, post on a watched topic, or just chatter.
 */
export const ACTS = { mention, reply, follow: followBot, dm, converse, answer, topic, chatter } as const;
