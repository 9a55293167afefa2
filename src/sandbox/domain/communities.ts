/**
 * Communities (wire-facts 2.19): groups with a name, a description, an access level and a
 * join policy. The service can look them up and search them but not make them; the
 * sandbox's admin API does ({@link createCommunity}).
 */
import type { Community } from "../../api/types.ts";
import { nextId, type SandboxCommunity } from "../model/index.ts";
import { invalidRequest } from "../problems.ts";
import type { SandboxContext } from "../route.ts";
import { iso } from "./params.ts";
import { tokenize } from "./query.ts";

/** The longest community name and description the apps allow, in characters. */
export const MAX_COMMUNITY_NAME = 30;
export const MAX_COMMUNITY_DESCRIPTION = 160;

/** The communities table (created when a state saved before communities existed lacks it). */
export function communityTable(ctx: SandboxContext): Record<string, SandboxCommunity> {
  return (ctx.data.world.communities ??= {});
}

/** What a community is created from; all but `name` optional. */
export type NewCommunity = Partial<Omit<SandboxCommunity, "id" | "created_at">> & { name: string };

/**
 * Creates a community: public and open to all by default, with one member (its creator).
 *
 * @example
 * ```ts
 * const c = createCommunity(ctx, { name: "Cat lovers", description: "Photos of cats" });
 * ```
 */
export function createCommunity(ctx: SandboxContext, input: NewCommunity): SandboxCommunity {
  const name = input.name.trim();
  if (!name || Array.from(name).length > MAX_COMMUNITY_NAME) {
    throw invalidRequest(`name: a community name must be 1 to ${MAX_COMMUNITY_NAME} characters`, {
      name: [input.name],
    });
  }
  const description = input.description ?? "";
  if (Array.from(description).length > MAX_COMMUNITY_DESCRIPTION) {
    throw invalidRequest(
      `description: a community description must be at most ${MAX_COMMUNITY_DESCRIPTION} characters`,
      { description: [description] },
    );
  }
  const now = ctx.clock.now();
  const c: SandboxCommunity = {
    id: nextId(ctx.data, now),
    name,
    description,
    access: input.access ?? "Public",
    join_policy: input.join_policy ?? "Open",
    member_count: input.member_count ?? 1,
    created_at: now,
  };
  communityTable(ctx)[c.id] = c;
  return c;
}

/** Whether every word of a search query is a word of the community's name or description. */
export function communityMatches(c: SandboxCommunity, query: string): boolean {
  const words = tokenize(query);
  const hay = new Set(tokenize(`${c.name} ${c.description}`));
  return words.length > 0 && words.every((w) => hay.has(w));
}

/** The community with the `community.fields` asked for (`id` and `name` always). */
export function communityObject(c: SandboxCommunity, fields: ReadonlySet<string>): Community {
  const out: Community = { id: c.id, name: c.name };
  if (fields.has("created_at")) out.created_at = iso(c.created_at);
  if (fields.has("description")) out.description = c.description;
  if (fields.has("access")) out.access = c.access;
  if (fields.has("join_policy")) out.join_policy = c.join_policy;
  if (fields.has("member_count")) out.member_count = c.member_count;
  return out;
}
