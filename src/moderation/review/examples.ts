/**
 * An operator's decisions as examples for later replies: a reply near-identical to one a
 * person decided about (`bot review`, the status page's `/review`) follows that decision, and
 * so does a later unsure reply of the same author within the history window.
 *
 * The decisions themselves are kept by core's review queue (the plugin API's `bot.review`),
 * which the `moderate` plugin lists its unsure and hidden replies in; this reads them through
 * {@link DecidedReplies}, the two methods of the queue it needs, named here because this
 * folder imports nothing above the base. Finding the example a reply follows costs a lookup
 * per word of the reply, not a comparison with every decision: they are indexed in memory,
 * and the index is rebuilt when a decision was recorded since (the queue's version moved).
 */
import { HISTORY_WINDOW_MS } from "../evidence/history.ts";
import { nearIdentical, signatureOf, type Signature } from "../evidence/similar.ts";

/** Where a reply stands: hidden, or visible (the review queue's `ReplyState`). */
export type ReplyState = "hidden" | "visible";

/** A decision that took effect, as the review queue remembers it (its `ReviewedReply`). */
export interface DecidedReply {
  readonly post: string;
  /** The author's user id. */
  readonly author: string;
  readonly text: string;
  /** Where the reply stands after the decision. */
  readonly state: ReplyState;
  readonly decision: "hide" | "unhide" | "keep";
  readonly at: number;
}

/** What the examples read of the review queue (`bot.review` has it). */
export interface DecidedReplies {
  /** The decisions that took effect, most recent first. */
  decisions(): readonly DecidedReply[];
  /** Moves whenever a decision is recorded. */
  version(): number;
}

/** A decision remembered as an example, with the words it is compared by. */
export interface ReviewExample extends DecidedReply {
  readonly signature: Signature;
}

/** How an example applies to a reply: by its near-identical text, or by its author. */
export type ExampleMatch = { by: "text" | "author"; example: ReviewExample };

/** The examples of one bot, indexed: by author (the latest), and by word. */
interface ExampleIndex {
  version: number;
  byAuthor: Map<string, ReviewExample>;
  byWord: Map<string, ReviewExample[]>;
}

/** One bot's decisions as examples; see the module comment. */
export class ReviewExamples {
  private index: ExampleIndex | undefined;

  constructor(
    private readonly source: DecidedReplies,
    private readonly windowMs = HISTORY_WINDOW_MS,
  ) {}

  /**
   * The example a reply follows: the latest decision about a near-identical text, else the
   * latest decision about the same author within the history window.
   */
  exampleFor(signature: Signature, author: string, now: number): ExampleMatch | undefined {
    const index = this.indexed();
    let best: ReviewExample | undefined;
    const seen = new Set<ReviewExample>();
    for (const gram of signature) {
      for (const e of index.byWord.get(gram) ?? []) {
        if (seen.has(e)) continue;
        seen.add(e);
        if ((!best || e.at > best.at) && nearIdentical(e.signature, signature)) best = e;
      }
    }
    if (best) return { by: "text", example: best };
    const mine = index.byAuthor.get(author);
    return mine && mine.at > now - this.windowMs ? { by: "author", example: mine } : undefined;
  }

  /** The examples' index, rebuilt when a decision was recorded since it was built. */
  private indexed(): ExampleIndex {
    const version = this.source.version();
    if (this.index?.version === version) return this.index;
    const byAuthor = new Map<string, ReviewExample>();
    const byWord = new Map<string, ReviewExample[]>();
    for (const decided of this.source.decisions()) {
      const e: ReviewExample = { ...decided, signature: signatureOf(decided.text) };
      const latest = byAuthor.get(e.author);
      if (!latest || e.at > latest.at) byAuthor.set(e.author, e);
      for (const gram of e.signature) byWord.set(gram, [...(byWord.get(gram) ?? []), e]);
    }
    this.index = { version, byAuthor, byWord };
    return this.index;
  }
}
