/**
 * Pile-ons: many near-identical replies (`similar.ts`) from different accounts to one post
 * within minutes. A reply that is one of at least {@link PILE_ON_DEFAULTS}.accounts such
 * replies (its own author included) within {@link PILE_ON_DEFAULTS}.windowMs of each other is
 * part of a pile-on and needs less evidence (see `cut.ts`). Kept in memory (minutes matter,
 * not days), bounded per post and in posts.
 */
import { nearIdentical, type Signature } from "./similar.ts";

export const PILE_ON_DEFAULTS = {
  /** Distinct accounts, this reply's author included. */
  accounts: 3,
  /** How close in time (ms): 10 minutes. */
  windowMs: 10 * 60_000,
  /** Replies remembered per post. */
  perPost: 100,
  /** Posts remembered. */
  posts: 1_000,
} as const;

interface Seen {
  author: string;
  at: number;
  signature: Signature;
}

/** What the detector found for one reply. */
export interface PileOnFact {
  /** Distinct accounts that sent a near-identical reply to the post within the window, this one's included. */
  accounts: number;
}

/** One bot's pile-on detector; see the module comment. */
export class PileOns {
  private readonly posts = new Map<string, Seen[]>();

  constructor(private readonly options: typeof PILE_ON_DEFAULTS = PILE_ON_DEFAULTS) {}

  /**
   * Notes a reply to `postId` and says whether it is part of a pile-on (undefined: it is
   * not). Each reply is noted once (its id is not needed: a reply noted twice, as after a
   * restart, only counts its own author once).
   */
  observe(postId: string, author: string, signature: Signature, now: number): PileOnFact | undefined {
    const since = now - this.options.windowMs;
    const seen = (this.posts.get(postId) ?? []).filter((s) => s.at > since);
    const accounts = new Set([author]);
    for (const s of seen) if (s.author !== author && nearIdentical(s.signature, signature)) accounts.add(s.author);
    seen.push({ author, at: now, signature });
    this.posts.delete(postId);
    this.posts.set(postId, seen.slice(-this.options.perPost));
    if (this.posts.size > this.options.posts) this.posts.delete(this.posts.keys().next().value!);
    return accounts.size >= this.options.accounts ? { accounts: accounts.size } : undefined;
  }
}
