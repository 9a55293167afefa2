/**
 * The demo's simulated crowd (see `crowd.ts`): `bot start` without a service starts it in
 * the embedded sandbox. Its texts and people are in `content.ts`.
 */
export {
  startCrowd,
  DEFAULT_CROWD_SIZE,
  DEFAULT_CROWD_EVERY_MS,
  DEFAULT_ABUSIVE_SHARE,
  ACTION_WEIGHTS,
  RECENT_POSTS,
  DM_GAP_MS,
  type Crowd,
  type CrowdBot,
  type CrowdOptions,
  type CrowdUser,
  type CrowdActionKind,
} from "./crowd.ts";
export { seededRandom, type Random } from "../../seeded-random.ts";
export * as content from "./content.ts";
