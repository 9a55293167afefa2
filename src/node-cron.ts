/**
 * node-cron, loaded on its first use (./lazy-package.ts): only bots with a `schedule` trigger,
 * and bot files that name one, need it; imported with the rest of postbot, it cost every
 * `bot validate` and `bot start` 10-30 ms (measured on the installed package). Both the
 * bot file's check (config/cron-message.ts) and the trigger (triggers/schedule.ts) use this
 * one instance.
 */
import { lazyPackage } from "./lazy-package.ts";

/** node-cron's API (`parse`, `validateDetailed`, `createTask`...), required on the first call. */
export const nodeCron = lazyPackage<typeof import("node-cron")>("node-cron");
