/**
 * The demo's simulated crowd: people in the sandbox who mention the bots, reply to their
 * posts (some abusively), follow them, send them direct messages and post on the topics
 * their stream rules watch, so that `npm start` shows bots at work within seconds and with
 * no real account.
 *
 * The crowd acts the way DESIGN.md says it does: through the sandbox's own world functions
 * (the in-process admin API for accounts, posts and DMs, the world's `follow`), outside every
 * budget and every rate limit, never through the service's API. Its bots see its posts as
 * they would see anyone's: in their mention timeline, stream, follower list and DM events.
 *
 * One action every `everyMs` of the given clock, chosen with a seeded {@link Random}: the
 * same seed on a frozen clock gives the same people, texts and actions every time.
 */
import type { Clock } from "../../clock.ts";
import type { Logger } from "../../log.ts";
import { acceptFollowRequest, follow, livePostsBy, userById } from "../domain/index.ts";
import type { SandboxPost } from "../model/index.ts";
import { SandboxAdminError } from "../admin/in-process.ts";
import type { Sandbox } from "../server.ts";
import {
  chatterText,
  dmText,
  mentionText,
  personas,
  replyText,
  topicOf,
  topicText,
  type CrowdText,
} from "./content.ts";
import { answerTo, openQuestions } from "./conversations.ts";
import { seededRandom, type Random } from "../../seeded-random.ts";

/** How the crowd opens a conversation in a thread, before the start word. */
const OPENERS = ["", "let's do the ", "can I take the ", "hi! ", "ok, "] as const;

/** How many people the crowd has unless told otherwise. */
export const DEFAULT_CROWD_SIZE = 8;
/** How often (on the clock) the crowd does something unless told otherwise. */
export const DEFAULT_CROWD_EVERY_MS = 2_000;
/** The share of replies to bots' posts that are abusive unless told otherwise. */
export const DEFAULT_ABUSIVE_SHARE = 0.25;
/**
 * The least time between two of the crowd's DMs to one bot: a pro bot answers 15 DMs per 15
 * minutes, so the crowd's 3 leave it room for the ones a person sends with `bot say --dm`.
 */
export const DM_GAP_MS = 5 * 60_000;
/** How many of a bot's newest posts the crowd replies to. */
export const RECENT_POSTS = 5;
/** How many texts the crowd tries before giving up an action the service refuses as a duplicate. */
const TRIES = 3;

/** What the crowd needs to know of a bot: whom to mention and follow, what topics it watches. */
export interface CrowdBot {
  username: string;
  userId: string;
  /** The values of its stream rules; the crowd posts words that match them. */
  streamRules: readonly string[];
  /** Whether it reads its mentions (otherwise the crowd neither mentions it nor replies to it). */
  mentions: boolean;
  /** Whether it watches its followers (otherwise the crowd does not follow it). */
  followers: boolean;
  /** Whether it reads its direct messages (otherwise the crowd sends it none). */
  dms?: boolean;
  /**
   * Words that start a conversation with it (its `dialog`'s `start`): the crowd starts one now
   * and then, and answers the questions it asks (./conversations.ts).
   */
  starts?: readonly string[];
}

/** What the crowd does. */
export type CrowdActionKind = "mention" | "reply" | "follow" | "dm" | "converse" | "answer" | "topic" | "chatter";
/**
 * How often the crowd does each thing, relative to the others (an action that has no target,
 * such as replying when no bot has posted yet, is not picked). Mentions and replies dominate
 * because they are what bots answer; replies are kept below what a pro bot can answer in its
 * 15-minute post window, so the demo shows bots keeping up rather than queueing. DMs are
 * rarer still: one bot gets one at most every {@link DM_GAP_MS}.
 * A conversation (a quiz) is started rarely and its questions answered soon: an open
 * question is the likeliest thing to be done when there is one.
 */
export const ACTION_WEIGHTS: Readonly<Record<CrowdActionKind, number>> = {
  mention: 3,
  reply: 2,
  follow: 1,
  dm: 1,
  converse: 1,
  answer: 4,
  topic: 2,
  chatter: 2,
};

/** How to start a crowd: the sandbox and its clock, the bots to act on, and the dials. */
export interface CrowdOptions {
  sandbox: Sandbox;
  bots: readonly CrowdBot[];
  clock: Clock;
  logger: Logger;
  /** The randomness (default: {@link seededRandom} of `seed`). */
  rng?: Random;
  /** Seed of the default randomness (default: the clock's time at start). */
  seed?: number;
  /** How many people (default {@link DEFAULT_CROWD_SIZE}). */
  size?: number;
  /** One action every this many ms of the clock (default {@link DEFAULT_CROWD_EVERY_MS}). */
  everyMs?: number;
  /** Share of replies that are abusive, in [0, 1] (default {@link DEFAULT_ABUSIVE_SHARE}). */
  abusiveShare?: number;
}

/** One of the crowd's people, as the sandbox knows them. */
export interface CrowdUser {
  id: string;
  username: string;
  name: string;
}

/** A running crowd. */
export interface Crowd {
  readonly users: readonly CrowdUser[];
  /** Actions done so far (actions given up, such as a duplicate text, not counted). */
  readonly actions: number;
  /** Stops acting; an action under way finishes. */
  stop(): void;
}

/**
 * Creates the crowd's people (or finds them, in a sandbox restored from its state file) and
 * starts them acting on the clock.
 *
 * @example
 * ```ts
 * const crowd = await startCrowd({ sandbox, clock, logger, bots: [{ username: "greeter", userId, streamRules: [], mentions: true, followers: false }] });
 * // ... later
 * crowd.stop();
 * ```
 */
export async function startCrowd(options: CrowdOptions): Promise<Crowd> {
  const { sandbox, clock, logger } = options;
  const everyMs = options.everyMs ?? DEFAULT_CROWD_EVERY_MS;
  const abusiveShare = options.abusiveShare ?? DEFAULT_ABUSIVE_SHARE;
  if (!(everyMs > 0)) throw new RangeError(`crowd everyMs must be above 0 (got ${everyMs})`);
  if (!(abusiveShare >= 0 && abusiveShare <= 1))
    throw new RangeError(`crowd abusiveShare must be between 0 and 1 (got ${abusiveShare})`);
  const rng = options.rng ?? seededRandom(options.seed ?? clock.now());
  const world = () => sandbox.context.data.world;
  const bots = options.bots;
  const users = await createPeople(
    sandbox,
    options.size ?? DEFAULT_CROWD_SIZE,
    new Set(bots.map((b) => b.username.toLowerCase())),
  );

  /** When the crowd last sent each bot a DM (by user id), for {@link DM_GAP_MS}. */
  const lastDm = new Map<string, number>();
  const dmTargets = () => bots.filter((b) => b.dms && clock.now() - (lastDm.get(b.userId) ?? -Infinity) >= DM_GAP_MS);

  let done = 0;
  let stopped = false;
  let cancel: (() => void) | undefined;

  /** The bots' newest posts in conversations they started: only those can they moderate. */
  const replyTargets = (): Array<{ bot: CrowdBot; post: SandboxPost }> => {
    const posts = world().posts;
    const ownConversation = (p: SandboxPost) => {
      const root = posts[p.conversation_id];
      return (
        p.repost_of_id === undefined &&
        root !== undefined &&
        root.author_id === p.author_id &&
        root.deleted_at === undefined
      );
    };
    return bots
      .filter((b) => b.mentions)
      .flatMap((bot) =>
        livePostsBy(sandbox.context, bot.userId)
          .filter(ownConversation)
          .slice(-RECENT_POSTS)
          .reverse()
          .map((post) => ({ bot, post })),
      );
  };

  const followsNow = () => new Set(world().follows.map((f) => `${f.source_id}>${f.target_id}`));
  const followPairs = () => {
    const existing = followsNow();
    return bots
      .filter((b) => b.followers)
      .flatMap((bot) => users.filter((u) => !existing.has(`${u.id}>${bot.userId}`)).map((user) => ({ user, bot })));
  };

  // Rules no text can match (only `from:` or `is:` operators) give no topic.
  const topics = bots.flatMap((b) => b.streamRules).filter((rule) => topicOf(rule, seededRandom(0)) !== undefined);

  /** Posts a text from `make`, trying others when the service refuses one as a duplicate. */
  const postAs = async (user: CrowdUser, make: () => CrowdText, inReplyTo?: string) => {
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
  };

  const act = async (): Promise<void> => {
    const targets = replyTargets();
    const pairs = followPairs();
    const dmBots = dmTargets();
    const talkers = bots.filter((b) => (b.starts?.length ?? 0) > 0 && (b.mentions || b.dms));
    const questions = talkers.length > 0 ? openQuestions(sandbox.context, talkers, users) : [];
    const kind = rng.weighted<CrowdActionKind>({
      mention: bots.some((b) => b.mentions) ? ACTION_WEIGHTS.mention : 0,
      reply: targets.length > 0 ? ACTION_WEIGHTS.reply : 0,
      follow: pairs.length > 0 ? ACTION_WEIGHTS.follow : 0,
      dm: dmBots.length > 0 ? ACTION_WEIGHTS.dm : 0,
      converse: talkers.length > 0 ? ACTION_WEIGHTS.converse : 0,
      answer: questions.length > 0 ? ACTION_WEIGHTS.answer : 0,
      topic: topics.length > 0 ? ACTION_WEIGHTS.topic : 0,
      chatter: ACTION_WEIGHTS.chatter,
    });
    const log = (user: CrowdUser, fields: Record<string, unknown>, msg: string) => {
      done++;
      logger.debug({ user: user.username, action: kind, ...fields }, `crowd: @${user.username} ${msg}`);
    };
    switch (kind) {
      case "mention": {
        const bot = rng.pick(bots.filter((b) => b.mentions));
        const user = rng.pick(users);
        const { post, text } = await postAs(user, () => mentionText(rng, bot.username));
        log(user, { to: bot.username, post: post.id, text: text.text }, `mentioned @${bot.username}: ${text.text}`);
        return;
      }
      case "reply": {
        const { bot, post: target } = rng.pick(targets);
        const user = rng.pick(users);
        const abusive = rng.chance(abusiveShare);
        const { post, text } = await postAs(user, () => replyText(rng, bot.username, abusive), target.id);
        log(
          user,
          { to: bot.username, post: post.id, in_reply_to: target.id, abusive, text: text.text },
          `replied${abusive ? " abusively" : ""} to @${bot.username}'s post ${target.id}: ${text.text}`,
        );
        return;
      }
      case "follow": {
        const { user, bot } = rng.pick(pairs);
        const source = userById(sandbox.context, user.id);
        const target = userById(sandbox.context, bot.userId);
        if (!source || !target) return;
        if (follow(sandbox.context, source, target).pending_follow)
          acceptFollowRequest(sandbox.context, target.id, source.id);
        log(user, { to: bot.username }, `followed @${bot.username}`);
        return;
      }
      case "dm": {
        const bot = rng.pick(dmBots);
        const user = rng.pick(users);
        const text = dmText(rng);
        lastDm.set(bot.userId, clock.now());
        const sent = await sandbox.admin.sendDm({ sender_id: user.id, recipient_id: bot.userId, text: text.text });
        log(user, { to: bot.username, dm: sent.id, text: text.text }, `sent @${bot.username} a DM: ${text.text}`);
        return;
      }
      case "converse": {
        const bot = rng.pick(talkers);
        const user = rng.pick(users);
        const word = rng.pick(bot.starts!);
        if (bot.dms && (!bot.mentions || rng.chance(0.5))) {
          const sent = await sandbox.admin.sendDm({ sender_id: user.id, recipient_id: bot.userId, text: word });
          log(
            user,
            { to: bot.username, dm: sent.id, text: word },
            `started a conversation with @${bot.username} by DM: ${word}`,
          );
          return;
        }
        const { post, text } = await postAs(user, () => ({
          kind: "mention",
          abusive: false,
          text: `@${bot.username} ${rng.pick(OPENERS)}${word}`,
        }));
        log(
          user,
          { to: bot.username, post: post.id, text: text.text },
          `started a conversation with @${bot.username}: ${text.text}`,
        );
        return;
      }
      case "answer": {
        const q = rng.pick(questions);
        const user = users.find((u) => u.id === q.user.id)!;
        const answer = answerTo(q.text, q.user, rng);
        if (q.postId === undefined) {
          const sent = await sandbox.admin.sendDm({ sender_id: user.id, recipient_id: q.bot.userId, text: answer });
          log(user, { to: q.bot.username, dm: sent.id, text: answer }, `answered @${q.bot.username} by DM: ${answer}`);
          return;
        }
        const { post } = await postAs(
          user,
          () => ({ kind: "reply", abusive: false, text: `@${q.bot.username} ${answer}` }),
          q.postId,
        );
        log(
          user,
          { to: q.bot.username, post: post.id, in_reply_to: q.postId, text: post.text },
          `answered @${q.bot.username}: ${post.text}`,
        );
        return;
      }
      case "topic": {
        const rule = rng.pick(topics);
        const user = rng.pick(users);
        const { post, text } = await postAs(user, () => topicText(rng, topicOf(rule, rng)!));
        log(user, { rule, post: post.id, text: text.text }, `posted on "${rule}": ${text.text}`);
        return;
      }
      case "chatter": {
        const user = rng.pick(users);
        const { post, text } = await postAs(user, () => chatterText(rng));
        log(user, { post: post.id, text: text.text }, `posted: ${text.text}`);
        return;
      }
    }
  };

  const tick = async () => {
    cancel = undefined;
    if (stopped) return;
    try {
      await act();
    } catch (err) {
      // A refused post (a duplicate every time, a deleted target) costs one action, never the crowd.
      logger.debug({ err }, `crowd: an action was given up: ${(err as Error)?.message ?? String(err)}`);
    }
    if (!stopped) cancel = clock.setTimeout(() => void tick(), everyMs);
  };
  cancel = clock.setTimeout(() => void tick(), everyMs);
  logger.debug(
    { users: users.map((u) => u.username), every_ms: everyMs },
    `crowd: ${users.length} simulated users act every ${everyMs} ms`,
  );

  return {
    users,
    get actions() {
      return done;
    },
    stop() {
      stopped = true;
      cancel?.();
      cancel = undefined;
    },
  };
}

/** The crowd's people: found by username when the sandbox already has them, else created. */
async function createPeople(sandbox: Sandbox, size: number, taken: ReadonlySet<string>): Promise<CrowdUser[]> {
  if (!Number.isInteger(size) || size < 0)
    throw new RangeError(`crowd size must be a whole number, 0 or more (got ${size})`);
  const users: CrowdUser[] = [];
  const existing = new Map(Object.values(sandbox.context.data.world.users).map((u) => [u.username.toLowerCase(), u]));
  for (const persona of personas(size + taken.size)) {
    if (users.length === size) break;
    if (taken.has(persona.username.toLowerCase())) continue;
    const found = existing.get(persona.username.toLowerCase());
    const user =
      found ??
      (await sandbox.admin.createUser({ username: persona.username, name: persona.name, description: persona.bio }));
    users.push({ id: user.id, username: user.username, name: user.name });
  }
  return users;
}
