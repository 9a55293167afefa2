/**
 * Relations between accounts: follows (with the pending requests a protected account must
 * approve), mutes and blocks. Each is an edge `source → target` with its creation time;
 * lookups list the newest edges first.
 */
import type { Relation, SandboxUser, WorldData } from "../model/index.ts";
import { forbidden } from "../problems.ts";
import type { SandboxContext } from "../route.ts";

type Edge = Relation & { source_id: string; target_id: string };
type EdgeTable = "follows" | "follow_requests" | "mutes" | "blocks";

/** An edge table, created when a state saved before it existed lacks it. */
export function edges(ctx: SandboxContext, table: EdgeTable): Edge[] {
  const world = ctx.data.world as WorldData;
  return (world[table] ??= []);
}

/** Whether `source → target` exists in an edge table. */
export const hasEdge = (ctx: SandboxContext, table: EdgeTable, source: string, target: string): boolean =>
  edges(ctx, table).some((e) => e.source_id === source && e.target_id === target);

function addEdge(ctx: SandboxContext, table: EdgeTable, source: string, target: string): boolean {
  if (hasEdge(ctx, table, source, target)) return false;
  edges(ctx, table).push({ source_id: source, target_id: target, created_at: ctx.clock.now() });
  return true;
}

function removeEdge(ctx: SandboxContext, table: EdgeTable, source: string, target: string): boolean {
  const list = edges(ctx, table);
  const i = list.findIndex((e) => e.source_id === source && e.target_id === target);
  if (i < 0) return false;
  list.splice(i, 1);
  return true;
}

/** Whether `source` follows `target` (approved follows only). */
export const follows = (ctx: SandboxContext, source: string, target: string) => hasEdge(ctx, "follows", source, target);
/** Whether `source` mutes `target`. */
export const mutes = (ctx: SandboxContext, source: string, target: string) => hasEdge(ctx, "mutes", source, target);
/** Whether `source` blocks `target`. */
export const blocks = (ctx: SandboxContext, source: string, target: string) => hasEdge(ctx, "blocks", source, target);

/**
 * `source` follows `target`. A protected target gets a pending request instead, which it
 * approves with {@link acceptFollowRequest} (the service has no v2 endpoint for that; the
 * sandbox's admin can). Following oneself, or an account that blocks you, is refused.
 */
export function follow(
  ctx: SandboxContext,
  source: SandboxUser,
  target: SandboxUser,
): { following: boolean; pending_follow: boolean } {
  if (source.id === target.id) throw forbidden("You cannot follow yourself.");
  if (blocks(ctx, target.id, source.id))
    throw forbidden("You have been blocked from following this account at the request of the user.");
  if (follows(ctx, source.id, target.id)) return { following: true, pending_follow: false };
  if (target.protected) {
    addEdge(ctx, "follow_requests", source.id, target.id);
    return { following: false, pending_follow: true };
  }
  addEdge(ctx, "follows", source.id, target.id);
  return { following: true, pending_follow: false };
}

/** Ends a follow or withdraws a pending request. */
export function unfollow(ctx: SandboxContext, sourceId: string, targetId: string): void {
  removeEdge(ctx, "follows", sourceId, targetId);
  removeEdge(ctx, "follow_requests", sourceId, targetId);
}

/** A protected account approves a pending request; returns whether there was one. */
export function acceptFollowRequest(ctx: SandboxContext, targetId: string, sourceId: string): boolean {
  if (!removeEdge(ctx, "follow_requests", sourceId, targetId)) return false;
  addEdge(ctx, "follows", sourceId, targetId);
  return true;
}

/** `source` mutes `target` (idempotent): the target's posts leave the source's home timeline. */
export function mute(ctx: SandboxContext, source: SandboxUser, target: SandboxUser): void {
  if (source.id === target.id) throw forbidden("You cannot mute yourself.");
  addEdge(ctx, "mutes", source.id, target.id);
}

/** Ends a mute; a no-op when there is none. */
export const unmute = (ctx: SandboxContext, sourceId: string, targetId: string): void =>
  void removeEdge(ctx, "mutes", sourceId, targetId);

/**
 * `source` blocks `target`: follows between them end both ways, as on the real service.
 * The spec has no endpoint that blocks (only the lookup); the admin API does it.
 */
export function block(ctx: SandboxContext, sourceId: string, targetId: string): void {
  if (sourceId === targetId) throw forbidden("You cannot block yourself.");
  addEdge(ctx, "blocks", sourceId, targetId);
  unfollow(ctx, sourceId, targetId);
  unfollow(ctx, targetId, sourceId);
}

/** Ends a block; a no-op when there is none. */
export const unblock = (ctx: SandboxContext, sourceId: string, targetId: string): void =>
  void removeEdge(ctx, "blocks", sourceId, targetId);

/** The ids `source` has an edge to in `table`, newest edge first, with the edge times. */
export function outgoing(ctx: SandboxContext, table: EdgeTable, sourceId: string): Edge[] {
  return edges(ctx, table)
    .filter((e) => e.source_id === sourceId)
    .sort((a, b) => b.created_at - a.created_at);
}

/** The ids with an edge to `target` in `table`, newest edge first. */
export function incoming(ctx: SandboxContext, table: EdgeTable, targetId: string): Edge[] {
  return edges(ctx, table)
    .filter((e) => e.target_id === targetId)
    .sort((a, b) => b.created_at - a.created_at);
}
