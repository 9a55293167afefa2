/**
 * Helpers for driving one step of the action pipeline alone: an action of each kind as the
 * layer builds it, a job carrying it, and a fake `next` (the rest of the pipeline) that
 * records the jobs it is given and answers as a test says (`settled` is in ../helpers.ts).
 */
import type { Action, ActionKind } from "../../../src/actions/action.ts";
import type { Job, Perform, StepOutcome } from "../../../src/actions/pipeline.ts";
import { ACTION_KINDS } from "../../../src/actions/kinds.ts";

export const START = Date.parse("2026-01-05T12:00:00Z");

/** The bot the actions are of, and its user id. */
export const BOT = "g";
export const USER = "100";

/** An action of `kind` on `target`, keyed and shaped as the layer builds it (body: a text for posts, replies and DMs). */
export function actionOf(kind: ActionKind, target: string, extra: Partial<Action> = {}): Action {
  const body =
    kind === "reply"
      ? { text: `hello ${target}`, reply: { in_reply_to_post_id: target } }
      : kind === "post" || kind === "dm"
        ? { text: `hello ${target}` }
        : kind === "hide"
          ? { hidden: true }
          : { post_id: target };
  return {
    key: `${BOT}:${kind}:${target}`,
    kind,
    bot: BOT,
    userId: USER,
    endpoint: ACTION_KINDS[kind].endpoint,
    target,
    path:
      kind === "hide"
        ? { id: target }
        : kind === "dm"
          ? { participant_id: target }
          : kind === "reply" || kind === "post"
            ? {}
            : { id: USER },
    body,
    priority: ACTION_KINDS[kind].priority,
    createdAt: START,
    expiresAt: START + ACTION_KINDS[kind].ttlMs,
    ...extra,
  };
}

/** A job carrying `action`, as the layer hands it to the pipeline. */
export const jobOf = (action: Action, extra: Partial<Job> = {}): Job => ({
  action,
  signal: new AbortController().signal,
  ...extra,
});

/**
 * The rest of the pipeline, faked: records every job it is given and answers with `answer`
 * (by default: sent, with a new post's id).
 */
export function fakeNext(answer: (job: Job, call: number) => StepOutcome | Promise<StepOutcome> = sentAnswer) {
  const jobs: Job[] = [];
  const next: Perform = async (job) => {
    jobs.push(job);
    return answer(job, jobs.length);
  };
  return { next, jobs };
}

/** What the service answers a request that went well: a new post's id. */
export const sentAnswer = (_job: Job, call: number): StepOutcome => ({
  status: "sent",
  result: { data: { id: String(1000 + call), text: "x" } },
});

/** A promise and its resolver, to hold `next` until a test lets it answer. */
export function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}
