/**
 * What a plan allows a bot file to ask for, derived from the spec part 8 table in
 * src/limits (never restated here), so validation, the mentions poller and the budget can
 * never disagree about a plan.
 */
import { limitsFor, WINDOW_MS, type Plan } from "../limits/index.ts";

import type { EndpointKey } from "../api/endpoints.ts";

const MENTIONS = "GET /2/users/:id/mentions" as const;
const FOLLOWERS = "GET /2/users/:id/followers" as const;
const STREAM = "GET /2/posts/search/stream" as const;
const DMS = "GET /2/dm_events" as const;

/**
 * The shortest interval at which one bot can poll `endpoint` on `plan` and never run out of
 * requests: for every window that applies, the window divided by its limit. An app-wide (A)
 * window is shared by every bot of the app that polls it, so with `botsOnApp` pollers each
 * gets that share of it.
 */
export function fastestPollIntervalMs(endpoint: EndpointKey, plan: Plan, botsOnApp = 1): number {
  const limits = limitsFor(endpoint, plan);
  if (limits === "unavailable") throw new Error(`${endpoint} is unavailable on ${plan}; the limit table changed`);
  const share = Math.max(1, Math.floor(botsOnApp));
  let fastest = 0;
  for (const limit of limits) {
    const pollers = limit.scope === "app" ? share : 1;
    fastest = Math.max(fastest, Math.ceil((WINDOW_MS[limit.per] * pollers) / limit.max));
  }
  return fastest;
}

/**
 * {@link fastestPollIntervalMs} for the mention timeline, with `botsOnApp` bots of the app
 * polling mentions.
 *
 * The runtime polls at this interval unless the bot file asks for slower; validation
 * refuses a bot file that asks for faster (with one bot on the app, the most it could get).
 *
 * @example
 * ```ts
 * fastestMentionIntervalMs("basic"); // 90000: 10 requests per 15 minutes per user
 * fastestMentionIntervalMs("pro", 3); // 6000: 450 per 15 minutes for the app, over 3 bots
 * ```
 */
export function fastestMentionIntervalMs(plan: Plan, botsOnApp = 1): number {
  return fastestPollIntervalMs(MENTIONS, plan, botsOnApp);
}

/** The shortest interval at which a bot can poll its followers (the `follow` event) on `plan`. */
export function fastestFollowersIntervalMs(plan: Plan, botsOnApp = 1): number {
  return fastestPollIntervalMs(FOLLOWERS, plan, botsOnApp);
}

/** Whether `plan` may open the filtered stream (so whether a bot on it may have stream rules). */
export function planHasStream(plan: Plan): boolean {
  return limitsFor(STREAM, plan) !== "unavailable";
}

/** Whether `plan` may read the bot's direct messages (so whether a bot on it may have a dms trigger). */
export function planHasDms(plan: Plan): boolean {
  return limitsFor(DMS, plan) !== "unavailable";
}

/**
 * The shortest interval at which a bot can poll its direct messages on `plan` (a user
 * window only: each bot has its own). Only for a plan that has them ({@link planHasDms}).
 *
 * @example
 * ```ts
 * fastestDmsIntervalMs("pro"); // 60000: 15 requests per 15 minutes per user
 * fastestDmsIntervalMs("basic"); // 86400000: 1 request per 24 hours per user
 * ```
 */
export function fastestDmsIntervalMs(plan: Plan): number {
  return fastestPollIntervalMs(DMS, plan);
}
