/**
 * Responses of the families that `render.ts` does not render (lists, spaces, communities):
 * their `*.fields` read with the defaults always included, the users and topics their
 * expansions reach gathered into `includes` (users rendered by the same {@link Renderer} as
 * everywhere, so `user.fields` mean the same thing; gone accounts left out), and the
 * envelope with partial errors.
 */
import {
  DEFAULT_FIELDS,
  USER_FIELDS,
  type Envelope,
  type Includes,
  type Meta,
  type Problem,
  type Topic,
} from "../../api/types.ts";
import type { SandboxContext } from "../route.ts";
import type { Params } from "./params.ts";
import { envelopeOf, Renderer } from "./render.ts";
import { userById } from "./users.ts";

/**
 * The fields a `*.fields` parameter asks for, plus the family's defaults (which the service
 * always sends). An unknown field is a 400 naming it.
 */
export function readFields<T extends string>(
  q: Params,
  name: string,
  allowed: readonly T[],
  defaults: readonly T[],
): Set<T> {
  return new Set([...defaults, ...(q.enumList(name, allowed) ?? [])]);
}

/** Reads `user.fields` for the users an expansion brings in. */
export const readUserFields = (q: Params): Set<string> =>
  readFields(q, "user.fields", USER_FIELDS, DEFAULT_FIELDS.user);

/** One response's expansions and partial errors; see the module comment. */
export class Expander {
  readonly errors: Problem[] = [];
  private readonly userIds: string[] = [];
  private readonly topics = new Map<string, Topic>();

  constructor(
    readonly ctx: SandboxContext,
    /** The user whose eyes the response is for; undefined for an app-only caller. */
    readonly viewerId: string | undefined,
    readonly userFields: Set<string>,
  ) {}

  /** Notes a user an expansion reaches (each once, in order). */
  user(id: string | undefined): void {
    if (id !== undefined && !this.userIds.includes(id)) this.userIds.push(id);
  }

  /** Notes a topic an expansion reaches. */
  topic(t: Topic): void {
    this.topics.set(t.id, t);
  }

  /** Adds a partial error. */
  error(p: Problem): void {
    this.errors.push(p);
  }

  /** The body: `data` (omitted when undefined), `includes` (each list only when non-empty), `meta`, `errors`. */
  envelope<T>(data: T | undefined, meta?: Meta): Envelope<T> {
    const includes: Includes = {};
    if (this.userIds.length) {
      const r = new Renderer(this.ctx, this.viewerId, {
        post: new Set(DEFAULT_FIELDS.post),
        user: this.userFields,
        dm_event: new Set(),
        poll: new Set(),
        expansions: new Set(),
      });
      const users = this.userIds.flatMap((id) => {
        const u = userById(this.ctx, id);
        return u ? [r.user(u)] : [];
      });
      if (users.length) includes.users = users;
    }
    if (this.topics.size) includes.topics = [...this.topics.values()];
    return envelopeOf(data, includes, meta, this.errors);
  }
}
