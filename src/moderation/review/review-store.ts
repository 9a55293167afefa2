/**
 * An operator's review, as data kept per bot: the replies the `moderate` plugin was unsure
 * of and the replies it hid, each with why; the decisions a person made about them (hide,
 * unhide, keep); and those decisions remembered as examples, so a later near-identical text,
 * or a later unsure reply of the same author within the history window, follows what the
 * person decided.
 *
 * Kept in the bot's key-value state (the plugin's `store`), one key per item and example,
 * so `bot review` and the status page's `/review` read the same list the plugin writes, and
 * a restart keeps it. Bounded: the {@link REVIEW_LIMITS} most recent items and examples.
 * Finding the example a reply follows costs a lookup per word of the reply, not a comparison
 * with every example: they are indexed in memory, and the index is rebuilt when a decision
 * was recorded since (the examples' version moved).
 *
 * Sending a decision is not done here (this folder cannot reach the action pipeline): the
 * caller sends it through the bot's action layer (`PUT /2/posts/:id/hidden`), then records
 * the outcome with {@link ReviewStore.decided}; {@link ReviewStore.pending} tells it whether
 * the same decision was already sent, so it is sent once.
 */
import { HISTORY_WINDOW_MS } from "../evidence/history.ts";
import { RingRecord, type KeyValue } from "../evidence/kv.ts";
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

/** The examples of one bot, indexed: by author (the latest), and by word. */
interface ExampleIndex {
  version: number;
  byAuthor: Map<string, ReviewExample>;
  byWord: Map<string, ReviewExample[]>;
}

/** One bot's review list and examples; see the module comment. */
export class ReviewStore {
  private readonly items: RingRecord<ReviewItem>;
  private readonly examples: RingRecord<ReviewExample>;
  private index: ExampleIndex | undefined;

  constructor(
    kv: KeyValue,
    private readonly windowMs = HISTORY_WINDOW_MS,
  ) {
    this.items = new RingRecord(kv, "moderate:review", REVIEW_LIMITS.items);
    this.examples = new RingRecord(kv, "moderate:example", REVIEW_LIMITS.examples);
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
    return !(d && d.decision === decision && TOOK_EFFECT.has(d.status));
  }

  /**
   * Records a decision and how sending it ended; when it took effect (sent, done already,
   * or keep), remembers it as an example for later replies. Returns the item as it is now.
   */
  decided(post: string, record: Omit<DecisionRecord, "state">): ReviewItem | undefined {
    const item = this.items.get(post);
    if (!item) return undefined;
    const tookEffect = TOOK_EFFECT.has(record.status);
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
    const version = this.examples.version();
    if (this.index?.version === version) return this.index;
    const byAuthor = new Map<string, ReviewExample>();
    const byWord = new Map<string, ReviewExample[]>();
    for (const [, e] of this.examples.entries()) {
      const latest = byAuthor.get(e.author);
      if (!latest || e.at > latest.at) byAuthor.set(e.author, e);
      for (const gram of e.signature) byWord.set(gram, [...(byWord.get(gram) ?? []), e]);
    }
    this.index = { version, byAuthor, byWord };
    return this.index;
  }
}

/** How a sent decision's action ended when it took effect (`none`: keep, which sends nothing). */
const TOOK_EFFECT = new Set(["sent", "duplicate", "dry-run", "none"]);
