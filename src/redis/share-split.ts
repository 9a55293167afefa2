/**
 * Which free bots each process takes when several claim at once (./bot-claims.ts): processes
 * started together (a compose file's replicas) used to pick their share of the free bots at
 * random, so they raced for the same leases; each lost about a third of its claims and took
 * the rest only at a later renewal, after starting what it had won. Here every process splits
 * the free bots the same way from the same view (the members, who holds how many), and claims
 * only its own part: the claims of processes that start together do not meet.
 *
 * The split is rendezvous hashing with bounded load: each free bot goes to the member that
 * ranks it highest (a hash of the member's name and the bot's) among those still below the
 * fair share, counting the bots each holds already. A member's part is stable while the
 * members are (a bot keeps its preferred process across restarts of the others), and about
 * equal. Views that differ (a process read a moment before another's claims) cost a few lost
 * races, which the claimer makes up for at once with another round.
 */

/** 32-bit FNV-1a of `text`, continued from `seed`. */
function fnv(text: string, seed = 0x811c9dc5): number {
  let hash = seed;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** Murmur3's finalizer: FNV's low bits alone rank names that differ in their last characters unevenly. */
function mix(hash: number): number {
  let h = hash;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

export interface SplitInput {
  /** The bots nobody holds now. */
  free: readonly string[];
  /** The live members (processes) by name; `me` is counted among them whether listed or not. */
  members: readonly string[];
  /** This process's name. */
  me: string;
  /** How many bots each member holds now (a member not listed holds none). */
  holding: ReadonlyMap<string, number>;
  /** The most bots a member should hold. */
  share: number;
}

/**
 * The free bots that are `me`'s part (see the module comment), in the order of `free`. Every
 * member computing this from the same input gets disjoint parts that together hold every free
 * bot, as far as the members' room below the share allows.
 */
export function myPart(input: SplitInput): string[] {
  const { free, me, holding, share } = input;
  const members = [...new Set([...input.members, me])].sort();
  const seeds = members.map((m) => fnv(`${m}\n`));
  const room = members.map((m) => Math.max(0, share - (holding.get(m) ?? 0)));
  const mine = members.indexOf(me);
  const part = new Set<string>();
  // The same order in every process, whatever order each learnt the bots in.
  for (const bot of [...free].sort()) {
    let best = -1;
    let bestScore = -1;
    for (let i = 0; i < members.length; i++) {
      if (room[i]! === 0) continue;
      const score = mix(fnv(bot, seeds[i]));
      if (score > bestScore) {
        best = i;
        bestScore = score;
      }
    }
    if (best < 0) break; // every member at its share
    room[best]!--;
    if (best === mine) part.add(bot);
  }
  return free.filter((bot) => part.has(bot));
}
