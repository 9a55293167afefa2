/**
 * The review queue: core's own list of the replies a person should look at, kept per bot in the
 * state store (`review:<bot>`), and the decisions a person made about them. A plugin writes to
 * it through the plugin API (`bot.review`: the `moderate` plugin lists the replies it hid or
 * was unsure of); `bot review`, the status page's `/review` and the admin API read it and
 * record a decision (src/hosting/review-desk.ts, which sends it through the bot's action
 * pipeline first). Core never opens a plugin's own state for it.
 *
 * Bounded: the {@link REVIEW_LIMITS} most recent items, and as many decisions remembered (a
 * plugin follows them for later replies: {@link ReviewQueue.decisions}). One key per item and
 * decision (`RingRecord`), so adding one costs one small write whatever the size.
 *
 * Before postbot 0.2 the `moderate` plugin kept this list in the bot's key-value state
 * (`kv:<bot>`, keys `moderate:review...` and `moderate:example...`). Those are read as part of
 * the queue until its first write, which moves them here: an operator's open items survive the
 * upgrade, and a reader that must not write (`bot review` beside a running `bot start`) sees them
 * too.
 */
import { RingRecord, type KeyValue } from "../moderation/evidence/kv.ts";
import type { Store } from "../store/store.ts";

export const REVIEW_LIMITS = { items: 500, decisions: 500 } as const;

/** What a person can decide about a reply. */
export type ReviewDecision = "hide" | "unhide" | "keep";
export const REVIEW_DECISIONS: readonly ReviewDecision[] = ["hide", "unhide", "keep"];

/** Where a reply stands: hidden, or visible. */
export type ReplyState = "hidden" | "visible";

/** A reply listed for review, as a plugin lists it. */
export interface ReviewItem {
  /** The reply's id. */
  post: string;
  author: { id: string; username: string };
  text: string;
  /** The post it answers, and its conversation. */
  inReplyTo?: string;
  conversation: string;
  /** When it was listed (ms). */
  at: number;
  /** What the plugin did: hid it, or left it visible (unsure, or abusive where it cannot hide). */
  state: ReplyState;
  /** Why it is listed: `hidden`, or `unsure`. */
  listed: "hidden" | "unsure";
  /** What decided it: `built-in` (the plugin's own rules), `judge` or `review` (an earlier decision). */
  source: "built-in" | "judge" | "review";
  /** The rule that fired most (`insult:idiot`), or the judge's categories (`judge:S1,S10`). */
  rule?: string;
  pattern?: string;
  match?: string;
  /** How abusive the plugin found it, from 0 to 1, and how much evidence it had. */
  score: number;
  evidence: number;
  /** Why it decided as it did: the reasons of its log line. */
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

/** A decision that took effect, remembered for the later replies a plugin may have it follow. */
export interface ReviewedReply {
  post: string;
  /** The author's user id. */
  author: string;
  text: string;
  state: ReplyState;
  decision: ReviewDecision;
  at: number;
}

/** The review queue as a plugin sees it (`bot.review`): it lists replies, and reads what people decided. */
export interface ReviewList {
  /** Lists a reply (again: a reply listed twice keeps its decision). */
  add(item: Omit<ReviewItem, "decision">): void;
  get(post: string): ReviewItem | undefined;
  /** The listed replies, newest first; `open`: only those without a decision. */
  list(options?: { open?: boolean }): ReviewItem[];
  /** The decisions that took effect, most recent first (at most {@link REVIEW_LIMITS}`.decisions`). */
  decisions(): ReviewedReply[];
  /** Moves whenever a decision is recorded: a plugin that indexes the decisions knows when to rebuild. */
  version(): number;
}

/** Where a reply stands after a decision, from where it stood. */
export function stateAfter(decision: ReviewDecision, before: ReplyState): ReplyState {
  return decision === "hide" ? "hidden" : decision === "unhide" ? "visible" : before;
}

/** How a sent decision's action ended when it took effect (`none`: keep, which sends nothing). */
const TOOK_EFFECT = new Set(["sent", "duplicate", "dry-run", "none"]);

/** The store namespace of a bot's review queue. */
export const reviewNamespace = (bot: string) => `review:${bot}`;

/** A namespace of the store as a key-value map. */
const keyValue = (store: Store, namespace: string): KeyValue => ({
  get: <T>(key: string) => store.get<T>(namespace, key),
  set: (key, value) => store.set(namespace, key, value),
  delete: (key) => store.delete(namespace, key),
});

/** Where the `moderate` plugin kept the queue before 0.2: the bot's key-value state. */
const LEGACY = { namespace: (bot: string) => `kv:${bot}`, items: "moderate:review", decisions: "moderate:example" };

/** A decision as the plugin remembered it before 0.2: the words it compared (`signature`) instead of the text. */
interface LegacyExample extends Omit<ReviewedReply, "text"> {
  signature?: readonly string[];
}

/**
 * A decision of before 0.2 as the queue keeps it: its text is the listed reply's when the list
 * still holds it, else the words the plugin compared it by (its signature's single words, in
 * order), which a near-identical later reply still matches.
 */
function fromLegacy(e: LegacyExample, item: ReviewItem | undefined): ReviewedReply {
  const text = item?.text ?? (e.signature ?? []).filter((g) => !g.includes(" ")).join(" ");
  return { post: e.post, author: e.author, text, state: e.state, decision: e.decision, at: e.at };
}

/** One bot's review queue; see the module comment. */
export class ReviewQueue implements ReviewList {
  private readonly items: RingRecord<ReviewItem>;
  private readonly decided: RingRecord<ReviewedReply>;

  constructor(
    private readonly store: Store,
    readonly bot: string,
  ) {
    const kv = keyValue(store, reviewNamespace(bot));
    this.items = new RingRecord(kv, "item", REVIEW_LIMITS.items);
    this.decided = new RingRecord(kv, "decision", REVIEW_LIMITS.decisions);
  }

  add(item: Omit<ReviewItem, "decision">): void {
    this.migrate();
    const decision = this.items.get(item.post)?.decision;
    this.items.set(item.post, decision ? { ...item, decision } : item);
  }

  get(post: string): ReviewItem | undefined {
    return this.items.get(post) ?? this.legacy()?.items.get(post);
  }

  list(options: { open?: boolean } = {}): ReviewItem[] {
    const old = this.legacy()?.items.entries() ?? [];
    return [...this.items.entries(), ...old]
      .map(([, item]) => item)
      .filter((i) => !options.open || !i.decision)
      .sort((a, b) => b.at - a.at);
  }

  decisions(): ReviewedReply[] {
    const legacy = this.legacy();
    const old = (legacy?.decisions.entries() ?? []).map(([post, e]) =>
      fromLegacy(e, this.items.get(post) ?? legacy!.items.get(post)),
    );
    return [...this.decided.entries().map(([, d]) => d), ...old].sort((a, b) => b.at - a.at);
  }

  version(): number {
    const old = this.legacy();
    // Negative while the list of before 0.2 is read beside the queue: never one it has after moving it.
    return old ? -1 - old.decisions.version() - this.decided.version() : this.decided.version();
  }

  /**
   * Whether `decision` about `post` still has to be sent: false when that decision was sent
   * already (or the reply is not listed: the caller says so).
   */
  pending(post: string, decision: ReviewDecision): boolean {
    const d = this.get(post)?.decision;
    return !(d && d.decision === decision && TOOK_EFFECT.has(d.status));
  }

  /**
   * Records a decision and how sending it ended; when it took effect (sent, done already, or
   * keep), remembers it among the {@link decisions}. Returns the item as it is now.
   */
  decide(post: string, record: Omit<DecisionRecord, "state">): ReviewItem | undefined {
    this.migrate();
    const item = this.items.get(post);
    if (!item) return undefined;
    const tookEffect = TOOK_EFFECT.has(record.status);
    const state = tookEffect ? stateAfter(record.decision, item.state) : item.state;
    const updated: ReviewItem = { ...item, state, decision: { ...record, state } };
    this.items.set(post, updated);
    if (tookEffect)
      this.decided.set(post, {
        post,
        author: item.author.id,
        text: item.text,
        state,
        decision: record.decision,
        at: record.at,
      });
    return updated;
  }

  /** The list as the plugin kept it before 0.2, while it holds anything. */
  private legacy(): { items: RingRecord<ReviewItem>; decisions: RingRecord<LegacyExample> } | undefined {
    const kv = keyValue(this.store, LEGACY.namespace(this.bot));
    if (kv.get(`${LEGACY.items}#next`) === undefined && kv.get(`${LEGACY.decisions}#next`) === undefined)
      return undefined;
    return {
      items: new RingRecord(kv, LEGACY.items, REVIEW_LIMITS.items),
      decisions: new RingRecord(kv, LEGACY.decisions, REVIEW_LIMITS.decisions),
    };
  }

  /** Moves what the plugin kept before 0.2 into the queue (oldest first, so the newest stay), then removes it. */
  private migrate(): void {
    const old = this.legacy();
    if (!old) return;
    for (const [post, item] of old.items.entries().reverse()) if (!this.items.get(post)) this.items.set(post, item);
    for (const [post, e] of old.decisions.entries().reverse())
      if (!this.decided.get(post)) this.decided.set(post, fromLegacy(e, this.items.get(post)));
    const kv = keyValue(this.store, LEGACY.namespace(this.bot));
    for (const [prefix, ring] of [
      [LEGACY.items, old.items],
      [LEGACY.decisions, old.decisions],
    ] as const) {
      for (const id of ring.ids()) kv.delete(`${prefix}:${id}`);
      for (let slot = 0; slot < REVIEW_LIMITS.items; slot++) kv.delete(`${prefix}#${slot}`);
      kv.delete(`${prefix}#next`);
      kv.delete(`${prefix}#version`);
    }
  }
}
