/**
 * Duplicate guard. Invariant: the bot never spends a request on a text the service will
 * refuse as a duplicate. The service refuses a post (or reply) whose text equals one the
 * account posted within the last 24 hours (403 "duplicate content"), and the refused request
 * still takes a slot of every window: a reply template without variation would spend the
 * free plan's 17 daily posts on refusals. The step remembers the texts the bot posted (and
 * any the service refused as duplicates) and refuses a repeat locally, as `refused`, logging
 * once per text how to vary it.
 */
import { createHash } from "node:crypto";
import { ProblemError } from "../../api/errors.ts";
import type { Clock } from "../../clock.ts";
import type { Logger } from "../../log.ts";
import type { Store } from "../../store/store.ts";
import type { Action } from "../action.ts";
import type { Step } from "../pipeline.ts";

/** How long the service refuses a repeated text from one account (24 hours). */
export const DUPLICATE_TEXT_MS = 24 * 3_600_000;

/** The kinds that publish a post, and so are refused as duplicates. */
const POSTING = new Set(["reply", "post"]);

interface Posted {
  at: number;
  /** The idempotency key that posted it: the same action resumed is not its own duplicate. */
  key?: string;
}

const ns = (bot: string) => `texts:${bot}`;

/** The text as the service compares it (NFC), hashed: what is kept per bot. */
const fingerprint = (text: string): string =>
  createHash("sha256").update(text.normalize("NFC")).digest("hex").slice(0, 24);

const fingerprintOf = (action: Action): string | undefined => {
  const text = (action.body as { text?: unknown } | undefined)?.text;
  return typeof text === "string" ? fingerprint(text) : undefined;
};

/**
 * Whether the bot posted `text` within the service's duplicate window before `now` (what this
 * step would refuse): a plugin that must vary a text it repeats (a conversation asking two
 * people the same question) asks first.
 */
export function postedRecently(store: Store, bot: string, text: string, now: number): boolean {
  const before = store.get<Posted>(ns(bot), fingerprint(text));
  return before !== undefined && before.at > now - DUPLICATE_TEXT_MS;
}

/** Whether the service refused a post as a duplicate (403 with its "duplicate content" wording). */
const isDuplicateRefusal = (error: unknown): boolean =>
  error instanceof ProblemError && error.status === 403 && /duplicate/i.test(error.message);

export function duplicateGuard(options: { store: Store; clock: Clock; log: Logger; bot: string }): Step {
  const { store, clock, log, bot } = options;
  store.retain?.(ns(bot), { maxEntries: 20_000 });
  for (const [k, p] of store.entries<Posted>(ns(bot)))
    if (!(p.at > clock.now() - DUPLICATE_TEXT_MS)) store.delete(ns(bot), k);
  const explained = new Set<string>();
  /** Texts on their way: the same text asked for meanwhile waits to see whether it was posted. */
  const sending = new Map<string, Promise<unknown>>();

  return (next) => async (job) => {
    const { action } = job;
    const fingerprint = POSTING.has(action.kind) ? fingerprintOf(action) : undefined;
    if (!fingerprint) return next(job);
    for (let first = sending.get(fingerprint); first; first = sending.get(fingerprint)) await first;
    const before = store.get<Posted>(ns(bot), fingerprint);
    if (before && before.at > clock.now() - DUPLICATE_TEXT_MS && before.key !== action.key) {
      const until = new Date(before.at + DUPLICATE_TEXT_MS).toISOString();
      const reason = `the bot posted this text at ${new Date(before.at).toISOString()}, and the service refuses the same text from one account until ${until}`;
      if (!explained.has(fingerprint)) {
        explained.add(fingerprint);
        log.warn(
          { action: action.kind, target: action.target, until },
          `${action.kind} refused without sending: ${reason}. Vary the text: include {post.text} or {author.username} in the template, or give a list of texts`,
        );
      }
      return { status: "refused", ...(action.key ? { key: action.key } : {}), reason };
    }
    const running = next(job);
    sending.set(
      fingerprint,
      running.catch(() => undefined),
    );
    let outcome;
    try {
      outcome = await running;
    } finally {
      sending.delete(fingerprint);
    }
    if (outcome.status === "sent" || outcome.status === "dry-run")
      store.set<Posted>(ns(bot), fingerprint, { at: clock.now(), ...(action.key ? { key: action.key } : {}) });
    else if (outcome.status === "failed" && isDuplicateRefusal(outcome.error))
      store.set<Posted>(ns(bot), fingerprint, { at: clock.now() });
    return outcome;
  };
}
