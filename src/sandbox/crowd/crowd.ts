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
 * same seed on a frozen clock gives the same people, texts and actions every time. This file
 * decides when and which kind; each kind of action is in ./acts.ts, the people in ./members.ts.
 */
import type { Clock } from "../../clock.ts";
import type { Logger } from "../../log.ts";
import { seededRandom, type Random } from "../../seeded-random.ts";
import { livePostsBy } from "../domain/index.ts";
import type { SandboxPost } from "../model/index.ts";
import type { Sandbox } from "../server.ts";
import { ACTS, type Scene, type Targets } from "./acts.ts";
import { topicOf } from "./content.ts";
import { openQuestions } from "./conversations.ts";
import { type CrowdBot, type CrowdUser, createPeople } from "./members.ts";

export type { CrowdBot, CrowdUser } from "./members.ts";

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
  const bots = options.bots;
  const scene: Scene = {
    sandbox,
    clock,
    rng: options.rng ?? seededRandom(options.seed ?? clock.now()),
    bots,
    users: await createPeople(
      sandbox,
      options.size ?? DEFAULT_CROWD_SIZE,
      new Set(bots.map((b) => b.username.toLowerCase())),
    ),
    // Rules no text can match (only `from:` or `is:` operators) give no topic.
    topics: bots.flatMap((b) => b.streamRules).filter((rule) => topicOf(rule, seededRandom(0)) !== undefined),
    abusiveShare,
    lastDm: new Map(),
  };

  let done = 0;
  let stopped = false;
  let cancel: (() => void) | undefined;

  const act = async (): Promise<void> => {
    const targets = targetsNow(scene);
    const kind = pickKind(scene, targets);
    await ACTS[kind](scene, targets, (user, fields, msg) => {
      done++;
      logger.debug({ user: user.username, action: kind, ...fields }, `crowd: @${user.username} ${msg}`);
    });
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
    { users: scene.users.map((u) => u.username), every_ms: everyMs },
    `crowd: ${scene.users.length} simulated users act every ${everyMs} ms`,
  );

  return {
    users: scene.users,
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

/** The bots' newest posts in conversations they started: only those can they moderate. */
function replyTargets({ sandbox, bots }: Scene): Targets["replies"] {
  const posts = sandbox.context.data.world.posts;
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
}

/** People not yet following each bot that watches its followers. */
function followPairs({ sandbox, bots, users }: Scene): Targets["follows"] {
  const existing = new Set(sandbox.context.data.world.follows.map((f) => `${f.source_id}>${f.target_id}`));
  return bots
    .filter((b) => b.followers)
    .flatMap((bot) => users.filter((u) => !existing.has(`${u.id}>${bot.userId}`)).map((user) => ({ user, bot })));
}

/** What each kind of action may pick from now, read from the sandbox's world. */
function targetsNow(scene: Scene): Targets {
  const { sandbox, bots, users, clock, lastDm } = scene;
  const talkers = bots.filter((b) => (b.starts?.length ?? 0) > 0 && (b.mentions || b.dms));
  return {
    replies: replyTargets(scene),
    follows: followPairs(scene),
    dms: bots.filter((b) => b.dms && clock.now() - (lastDm.get(b.userId) ?? -Infinity) >= DM_GAP_MS),
    talkers,
    questions: talkers.length > 0 ? openQuestions(sandbox.context, talkers, users) : [],
  };
}

/** The next kind of action, by {@link ACTION_WEIGHTS} among those with something to act on. */
function pickKind({ rng, bots, topics }: Scene, targets: Targets): CrowdActionKind {
  return rng.weighted<CrowdActionKind>({
    mention: bots.some((b) => b.mentions) ? ACTION_WEIGHTS.mention : 0,
    reply: targets.replies.length > 0 ? ACTION_WEIGHTS.reply : 0,
    follow: targets.follows.length > 0 ? ACTION_WEIGHTS.follow : 0,
    dm: targets.dms.length > 0 ? ACTION_WEIGHTS.dm : 0,
    converse: targets.talkers.length > 0 ? ACTION_WEIGHTS.converse : 0,
    answer: targets.questions.length > 0 ? ACTION_WEIGHTS.answer : 0,
    topic: topics.length > 0 ? ACTION_WEIGHTS.topic : 0,
    chatter: ACTION_WEIGHTS.chatter,
  });
}
