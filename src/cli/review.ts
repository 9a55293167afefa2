/**
 * What `bot review` does: list the replies moderation was unsure of or hid (read from the
 * state without writing it, so it works while `bot start` runs), or hand a person's decision
 * about one to the `bot start` of the same data directory as a request file: the running
 * process owns the bot's action pipeline, so the CLI never sends the decision itself.
 */
import { userInfo } from "node:os";
import { systemClock, type Clock } from "../clock.ts";
import { UserError } from "../errors.ts";
import { type BotReviewItem, reviewList } from "../hosting/review-desk.ts";
import { writeReviewRequest } from "../hosting/review-requests.ts";
import { REVIEW_DECISIONS, type ReviewDecision } from "../plugins/review-queue.ts";
import { hasState, openFileStore, type Store } from "../store/index.ts";
import { formatReviewList } from "./review-view.ts";
import { stateOption } from "./state-option.ts";

/** `bot review`'s options, as commander gives them. */
export interface ReviewOptions {
  bot?: string;
  open?: boolean;
  json?: boolean;
  data: string;
  state?: string;
}

/**
 * `bot review [DECISION POST]`: the list without a decision, else the decision handed on.
 * `clock` says how long ago each reply came and when the decision was made.
 *
 * @throws UserError for a word that is no decision, a decision without its post, a decision
 * with the state in Redis, a data directory with no state, or a post on no list or on two.
 */
export async function review(
  decision: string | undefined,
  post: string | undefined,
  options: ReviewOptions,
  clock: Clock = systemClock,
) {
  const decided = decisionOf(decision, post);
  const store = await openReviewStore(options, decided !== undefined);
  let items: BotReviewItem[];
  try {
    items = reviewList(store, {
      ...(options.bot ? { bots: [options.bot] } : {}),
      ...(options.open ? { open: true } : {}),
    });
  } finally {
    await store.close();
  }
  if (decided === undefined) {
    if (options.json) process.stdout.write(`${JSON.stringify(items, null, 2)}\n`);
    else process.stdout.write(`${formatReviewList(items, clock.now())}\n`);
    return;
  }
  await handOn(decided, post!, items, options, clock.now());
}

/** The decision the words ask for, or none (the list). */
function decisionOf(decision: string | undefined, post: string | undefined): ReviewDecision | undefined {
  if (decision === undefined) return undefined;
  if (!(REVIEW_DECISIONS as readonly string[]).includes(decision))
    throw new UserError(
      `"${decision}" is not a decision: write bot review hide|unhide|keep POST_ID, or bot review to list`,
      { exitCode: 2 },
    );
  if (post === undefined)
    throw new UserError(`bot review ${decision} needs the reply's post id, as bot review lists it`, {
      exitCode: 2,
    });
  return decision as ReviewDecision;
}

/** The state to read the lists from, read-only: Redis (`--state`, listing only) or the data directory. */
async function openReviewStore(options: ReviewOptions, deciding: boolean): Promise<Store> {
  const shared = stateOption(options.state, process.env);
  if (shared) {
    if (deciding)
      throw new UserError(
        `${shared.source}: with the state in Redis, decide on the status page's /review of the process that runs the bot; bot review lists only`,
        { exitCode: 2 },
      );
    const { readRedisState } = await import("../redis/store.ts");
    return await readRedisState(shared.url, shared.source);
  }
  if (!(await hasState(options.data)))
    throw new UserError(
      `no state in ${options.data}: no bot has run with this data directory (start them with \`bot start\`, or give --data DIR)`,
    );
  return await openFileStore(options.data, { readOnly: true });
}

/** Hands the decision about `post`, made at `at`, to `bot start` as a request file, once the post is on exactly one list. */
async function handOn(
  decision: ReviewDecision,
  post: string,
  items: BotReviewItem[],
  options: ReviewOptions,
  at: number,
) {
  const listed = items.filter((i) => i.post === post);
  if (listed.length === 0)
    throw new UserError(
      `post ${post} is not on ${options.bot ? `bot ${options.bot}'s` : "any bot's"} review list; bot review lists them`,
    );
  if (listed.length > 1)
    throw new UserError(
      `post ${post} is on the lists of ${listed.map((i) => i.bot).join(" and ")}: say which with --bot NAME`,
      { exitCode: 2 },
    );
  const item = listed[0]!;
  await writeReviewRequest(options.data, {
    bot: item.bot,
    post: item.post,
    decision,
    by: `cli:${userInfo().username}`,
    at,
  });
  process.stdout.write(
    `${decision} of ${item.bot}'s reply ${item.post} by @${item.author.username}: handed to bot start, which sends it within a few seconds (or when it next starts); bot review shows the outcome\n`,
  );
}
