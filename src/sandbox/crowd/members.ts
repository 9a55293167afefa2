/**
 * Who takes part in the crowd: the bots it acts on (what it needs to know of each) and its
 * people, found in the sandbox or created there.
 */
import type { Sandbox } from "../server.ts";
import { personas } from "./content.ts";

/** What the crowd needs to know of a bot: whom to mention and follow, what topics it watches. */
export interface CrowdBot {
  username: string;
  userId: string;
  /** The values of its stream rules; the crowd posts words that match them. */
  streamRules: readonly string[];
  /** Whether it reads its mentions (otherwise the crowd neither mentions it nor replies to it). */
  mentions: boolean;
  /** Whether it watches its followers (otherwise the crowd does not follow it). */
  followers: boolean;
  /** Whether it reads its direct messages (otherwise the crowd sends it none). */
  dms?: boolean;
  /**
   * Words that start a conversation with it (its `dialog`'s `start`): the crowd starts one now
   * and then, and answers the questions it asks (./conversations.ts).
   */
  starts?: readonly string[];
}

/** One of the crowd's people, as the sandbox knows them. */
export interface CrowdUser {
  id: string;
  username: string;
  name: string;
}

/**
 * The crowd's people: found by username when the sandbox already has them (a sandbox restored
 * from its state file), else created; never one with a bot's username.
 */
export async function createPeople(sandbox: Sandbox, size: number, taken: ReadonlySet<string>): Promise<CrowdUser[]> {
  if (!Number.isInteger(size) || size < 0)
    throw new RangeError(`crowd size must be a whole number, 0 or more (got ${size})`);
  const users: CrowdUser[] = [];
  const existing = new Map(Object.values(sandbox.context.data.world.users).map((u) => [u.username.toLowerCase(), u]));
  for (const persona of personas(size + taken.size)) {
    if (users.length === size) break;
    if (taken.has(persona.username.toLowerCase())) continue;
    const found = existing.get(persona.username.toLowerCase());
    const user =
      found ??
      (await sandbox.admin.createUser({ username: persona.username, name: persona.name, description: persona.bio }));
    users.push({ id: user.id, username: user.username, name: user.name });
  }
  return users;
}
