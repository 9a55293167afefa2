/**
 * An operator's review, as data kept per bot: the replies the `moderate` plugin was unsure
 * of and the replies it hid, each with why; the decisions a person made about them (hide,
 * unhide, keep); and those decisions remembered as examples, so a later near-identical text,
 * or a later unsure reply of the same author within the history window, follows what the
 * person decided.
 *
 * Kept in the bot's key-value state (the plugin's `store`), so `bot review` and the status
 * page's `/review` read the same list the plugin writes, and a restart keeps it. Bounded: the
 * {@link REVIEW_LIMITS} most recent items and examples.
 *
 * Sending a decision is not done here (this folder cannot reach the action pipeline): the
 * caller sends it through the bot's action layer (`PUT /2/posts/:id/hidden`), then records
 * the outcome with {@link ReviewStore.decided}; {@link ReviewStore.pending} tells it whether
 * the same decision was already sent, so it is sent once.
 */
import { HISTORY_WINDOW_MS } from "../evidence/history.ts";
import { BoundedRecord, type KeyValue } from "../evidence/kv.ts";
import { nearIdentical, signatureOf, type Signature } from "../evidence/similar.ts";

export const REVIEW_LIMITS = { items: 500, examples: 500 } as const;

/** What a person can decide about a reply. */
export type ReviewDecision = "hide" | "unhide" | "keep";
export const REVIEW_DECISIONS: readonly ReviewDecision[] = ["hide", "unhide", "keep"];

/** Where the reply stands once decided: hidden, or visible. */
export type ReplyState = "hidden" | "visible";

/** A reply listed for review. */
export interface ReviewItem {
  /** The reply's id. */
  post: string;
  author: { id: string; username: string };
  text: string;
  /** The post it answers, and its conversation. */
  inReplyTo?: string;
  conversation: string;
  /** When the plugin moderated it (ms). */
  at: number;
  /** What the plugin did: hid it, or left it visible (unsure, or abusive where it cannot hide). */
  state: ReplyState;
  /** Why it is listed: `hidden`, or `unsure` (in the built-in's unsure band). */
  listed: "hidden" | "unsure";
  /** What decided it: `built-in`, `judge` or `review` (an earlier decision). */
  source: "built-in" | "judge" | "review";
  /** The rule that fired most (`insult:idiot`), or the judge's categories (`judge:S1,S10`). */
  rule?: string;
  pattern?: string;
  match?: string;
  score: number;
  evidence: number;
  /** What moved the cut, or what the judge said: the reasons of the log line. */
  reasons: string[];
  /** The person's decision, once made and sent. */
  decision?: DecisionRecord;
}

/** A decision and how sending it ended. */
export interface DecisionRecord {
  decision: ReviewDecision;
  /** Who decided: `bot review` on the machine (`cli:USER`) or a token's name on the status page. */
  by: string;
  at: number;
  /** How its action ended (`sent`, `duplicate`, `dry-run`; `none` for keep, which sends nothing). */
  status: string;
  /** Where the reply stands after it. */
  state: ReplyState;
}

/** A decision remembered as an example for later replies. */
export interface ReviewExample {
  post: string;
  author: string;
  signature: Signature;
  state: ReplyState;
  decision: ReviewDecision;
  at: number;
}

/** How an example applies to a reply: by its near-identical text, or by its author. */
export type ExampleMatch = { by: "text" | "author"; example: ReviewExample };

/** Where a reply stands after a decision, from where it stood. */
export function stateAfter(decision: ReviewDecision, before: ReplyState): ReplyState {
  return decision === "hide" ? "hidden" : decision === "unhide" ? "visible" : before;
}

/** One bot's review list and examples; see the module comment. */
export class ReviewStore {
  private readonly items: BoundedRecord<ReviewItem>;
  private readonly examples: BoundedRecord<ReviewExample>;

  constructor(
    kv: KeyValue,
    private readonly windowMs = HISTORY_WINDOW_MS,
  ) {
    this.items = new BoundedRecord(kv, "moderate:review", REVIEW_LIMITS.items);
    this.examples = new BoundedRecord(kv, "moderate:examples", REVIEW_LIMITS.examples);
  }

  /** Lists a reply (again: a reply moderated twice keeps its decision). */
  add(item: Omit<ReviewItem, "decision">): void {
    const decision = this.items.get(item.post)?.decision;
    this.items.set(item.post, decision ? { ...item, decision } : item);
  }

  /** The listed replies, newest first; `open` only those without a decision. */
  list(o: { open?: boolean } = {}): ReviewItem[] {
    return this.items
      .entries()
      .map(([, item]) => item)
      .filter((i) => !o.open || !i.decision)
      .sort((a, b) => b.at - a.at);
  }

  get(post: string): ReviewItem | undefined {
    return this.items.get(post);
  }

  /**
   * Whether `decision` about `post` still has to be sent: false when that decision was sent
   * already (or the reply is not listed: the caller says so).
   */
  pending(post: string, decision: ReviewDecision): boolean {
    const d = this.items.get(post)?.decision;
    return !(d && d.decision === decision && ["sent", "duplicate", "dry-run", "none"].includes(d.status));
  }

  /**
   * Records a decision and how sending it ended; when it took effect (sent, done already,
   * or keep), remembers it as an example for later replies. Returns the item as it is now.
   */
  decided(post: string, record: Omit<DecisionRecord, "state">): ReviewItem | undefined {
    const item = this.items.get(post);
    if (!item) return undefined;
    const tookEffect = ["sent", "duplicate", "dry-run", "none"].includes(record.status);
    const state = tookEffect ? stateAfter(record.decision, item.state) : item.state;
    const updated: ReviewItem = { ...item, state, decision: { ...record, state } };
    this.items.set(post, updated);
    if (tookEffect)
      this.examples.set(post, {
        post,
        author: item.author.id,
        signature: signatureOf(item.text),
        state,
        decision: record.decision,
        at: record.at,
      });
    return updated;
  }

  /**
   * The example a reply follows: the latest decision about a near-identical text, else the
   * latest decision about the same author within the history window.
   */
  exampleFor(signature: Signature, author: string, now: number): ExampleMatch | undefined {
    const all = this.examples.entries().map(([, e]) => e);
    for (let i = all.length - 1; i >= 0; i--)
      if (nearIdentical(all[i]!.signature, signature)) return { by: "text", example: all[i]! };
    for (let i = all.length - 1; i >= 0; i--) {
      const e = all[i]!;
      if (e.author === author && e.at > now - this.windowMs) return { by: "author", example: e };
    }
    return undefined;
  }
}
