/**
 * How `bot review hide|unhide|keep` on the machine reaches the process that runs the bot: a
 * request file in the data directory (`DATA/review-requests/`), one per decision, written
 * atomically (a temporary name, then a rename), which `bot start` picks up every few seconds
 * and at start, sends through the bot's {@link ReviewDesk}, and removes. The state itself
 * has one writer (the running process holds its lock), so the command does not write it; and
 * a decision made while no `bot start` runs is sent when the bot next starts.
 */
import { chmod, mkdir, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Clock } from "../clock.ts";
import { UserError } from "../errors.ts";
import type { Logger } from "../log.ts";
import { REVIEW_DECISIONS, type ReviewDecision } from "../plugins/review-queue.ts";
import type { ReviewDesk } from "./review-desk.ts";

/** One decision waiting to be sent. */
export interface ReviewRequest {
  bot: string;
  post: string;
  decision: ReviewDecision;
  /** Who decided (`cli:USER`). */
  by: string;
  /** When (ms). */
  at: number;
}

/** The directory of a data directory's review requests. */
export const reviewRequestsDir = (data: string): string => join(data, "review-requests");

/** How often `bot start` looks for requests (on its clock). */
export const REVIEW_REQUESTS_EVERY_MS = 2_000;

/** Writes a request for the running (or next) `bot start` to send; returns the file written. */
export async function writeReviewRequest(data: string, request: ReviewRequest): Promise<string> {
  const dir = reviewRequestsDir(data);
  // Private as the rest of the data directory (0700): one made open by an older version is closed too.
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await chmod(dir, 0o700);
  const name = `${request.at}-${request.bot}-${request.post}-${request.decision}.json`;
  const file = join(dir, name);
  await writeFile(`${file}.tmp`, `${JSON.stringify(request)}\n`, { mode: 0o600 });
  await rename(`${file}.tmp`, file);
  return file;
}

/** A request file's content, checked; a description of what is wrong otherwise. */
function parseRequest(text: string): ReviewRequest | string {
  let r: Partial<ReviewRequest>;
  try {
    r = JSON.parse(text) as Partial<ReviewRequest>;
  } catch {
    return "it is not JSON";
  }
  if (typeof r.bot !== "string" || typeof r.post !== "string" || typeof r.by !== "string")
    return "it lacks bot, post or by";
  if (!REVIEW_DECISIONS.includes(r.decision as ReviewDecision))
    return `its decision ${JSON.stringify(r.decision)} is not one of ${REVIEW_DECISIONS.join(", ")}`;
  return { bot: r.bot, post: r.post, decision: r.decision!, by: r.by, at: typeof r.at === "number" ? r.at : 0 };
}

export interface ReviewRequestsOptions {
  data: string;
  desk: ReviewDesk;
  clock: Clock;
  log: Logger;
  /** Whether a bot runs here (a request for another waits for the process that runs it). */
  runsHere(bot: string): boolean;
  everyMs?: number;
}

/**
 * Sends the requests waiting in the data directory, oldest first, now and every few
 * seconds; resolves the returned `stop` once the round under way has finished.
 */
export function watchReviewRequests(options: ReviewRequestsOptions): { stop(): Promise<void>; round(): Promise<void> } {
  const dir = reviewRequestsDir(options.data);
  let running: Promise<void> = Promise.resolve();
  let stopped = false;
  let cancel: (() => void) | undefined;

  const once = async () => {
    let names: string[];
    try {
      names = (await readdir(dir)).filter((n) => n.endsWith(".json")).sort();
    } catch {
      return; // no directory: no request yet
    }
    for (const name of names) {
      if (stopped) return;
      const file = join(dir, name);
      const parsed = parseRequest(await readFile(file, "utf8").catch(() => ""));
      if (typeof parsed === "string") {
        options.log.error({ file }, `review request ${file} is not valid (${parsed}); moved aside as ${name}.bad`);
        await rename(file, `${file}.bad`).catch(() => undefined);
        continue;
      }
      if (!options.runsHere(parsed.bot)) continue;
      try {
        await options.desk.decide(parsed.bot, parsed.post, parsed.decision, parsed.by);
      } catch (err) {
        if (!(err instanceof UserError)) throw err;
        options.log.error({ file, bot: parsed.bot, post: parsed.post }, `review request ${name}: ${err.message}`);
      }
      await rm(file, { force: true });
    }
  };
  const round = () => {
    running = running
      .then(once)
      .catch((err: unknown) => options.log.error({ err }, "could not read the review requests"));
    return running;
  };
  const schedule = () => {
    cancel = options.clock.setTimeout(() => {
      void round().then(() => {
        if (!stopped) schedule();
      });
    }, options.everyMs ?? REVIEW_REQUESTS_EVERY_MS);
  };
  void round();
  schedule();
  return {
    round,
    async stop() {
      stopped = true;
      cancel?.();
      await running;
    },
  };
}
