/**
 * The filtered stream, its rules, and the sample stream (wire-facts 2.7–2.9). The platform
 * writes the 200 head, frames each message as a JSON line ended by `\r\n`, sends the
 * keep-alives and applies stream faults; these handlers decide what is delivered.
 *
 * - Rules add (`{"add":[{value, tag?}]}`), delete (`{"delete":{"ids"|"values":[...]}}`),
 *   `delete_all=true` and `dry_run=true`; `meta.sent` and `meta.summary` as the service
 *   sends them. Adding is judged rule by rule: invalid, duplicate and over-the-cap rules
 *   are each reported in `errors[]` and the others created (see domain/rules.ts); an add
 *   that created something answers 201, everything else 200, a malformed body 400.
 * - The filtered stream delivers each new public post matching any of the app's rules as
 *   `{data, includes?, matching_rules}`, and counts it against the monthly cap. One
 *   connection per app; a second answers 429 TooManyConnections. With `backfill_minutes`,
 *   matching posts of the last minutes (up to 5) come first.
 * - The sample stream delivers the posts `inSample` picks (about 1%), with no connection
 *   limit.
 */
import { z } from "zod";
import type { SandboxPost } from "../model/index.ts";
import { invalidRequest } from "../problems.ts";
import type { RouteRequest, RouteTable, SandboxContext, StreamResult, StreamSink } from "../route.ts";
import { parseBody, zId } from "../domain/body.ts";
import { iso, Params } from "../domain/params.ts";
import { PAGE_RANGES, paginate, readPage, sortKey } from "../domain/paging.ts";
import { livePostsNewestFirst } from "../domain/posts.ts";
import { readRender, Renderer, RENDER_PARAMS, type RenderOptions } from "../domain/render.ts";
import { addRules, deleteRules, rulesOf, toWire } from "../domain/rules.ts";
import { claimConnection, matchingRules, sampled } from "../domain/streams.ts";
import { listMeta, ok } from "./common.ts";

const rulesBody = z
  .object({
    add: z
      .array(z.object({ value: z.string(), tag: z.string().optional() }).strict())
      .min(1)
      .optional(),
    delete: z
      .object({ ids: z.array(zId).optional(), values: z.array(z.string()).optional() })
      .strict()
      .optional(),
  })
  .strict();

function manageRules(req: RouteRequest) {
  const q = new Params(req.query, ["dry_run", "delete_all"]);
  const dryRun = q.bool("dry_run") ?? false;
  const all = q.bool("delete_all") ?? false;
  const body = req.body === undefined && all ? {} : parseBody(rulesBody, req.body);
  const sent = iso(req.sandbox.clock.now());
  const app = req.caller.app;
  if (all) {
    if (body.add)
      throw invalidRequest("delete_all=true deletes every rule; it cannot be combined with `add`", {
        delete_all: ["true"],
      });
    const out = deleteRules(req.sandbox, app, { all: true, ...body.delete }, dryRun);
    return ok(
      { meta: { sent, summary: out.summary }, ...(out.errors.length ? { errors: out.errors } : {}) },
      out.status,
    );
  }
  if (Boolean(body.add) === Boolean(body.delete)) {
    throw invalidRequest(
      "The body must have exactly one of `add` (a list of {value, tag}) or `delete` ({ids} or {values})",
    );
  }
  if (body.delete) {
    const ids = body.delete.ids ?? [];
    const values = body.delete.values ?? [];
    if (!ids.length && !values.length) throw invalidRequest("`delete` needs `ids` or `values` with at least one item");
    const out = deleteRules(req.sandbox, app, { ids, values }, dryRun);
    return ok(
      { meta: { sent, summary: out.summary }, ...(out.errors.length ? { errors: out.errors } : {}) },
      out.status,
    );
  }
  const out = addRules(req.sandbox, app, body.add!, dryRun);
  return ok(
    {
      ...(out.data ? { data: out.data } : {}),
      meta: { sent, summary: out.summary },
      ...(out.errors.length ? { errors: out.errors } : {}),
    },
    out.status,
  );
}

function listRules(req: RouteRequest) {
  const q = new Params(req.query, ["ids", "max_results", "pagination_token"]);
  const ids = q.get("ids") === undefined ? undefined : q.ids("ids", 1000);
  const page = readPage(q, PAGE_RANGES.rules);
  const rules = rulesOf(req.sandbox, req.caller.app.id).filter((r) => !ids || ids.includes(r.id));
  const cut = paginate(rules, (r) => sortKey(r.id), page);
  const meta = { sent: iso(req.sandbox.clock.now()), ...listMeta(cut, { previous: false }) };
  return ok(cut.items.length ? { data: cut.items.map(toWire), meta } : { meta });
}

/** One message: the post rendered with the request's fields and expansions. */
function message(
  req: RouteRequest,
  options: RenderOptions,
  post: SandboxPost,
  rules?: Array<{ id: string; tag?: string }>,
) {
  const r = new Renderer(req.sandbox, undefined, options);
  const body = r.envelope(r.post(post));
  return rules ? { ...body, matching_rules: rules } : body;
}

/**
 * A delivery that can never break the post that triggered it: listeners run inside
 * `createPost`, so a failure here would fail someone else's request. A stream that fails
 * is ended instead (the client reconnects).
 */
function guarded(sink: StreamSink, deliver: (post: SandboxPost) => void): (post: SandboxPost) => void {
  let dead = false;
  return (post) => {
    if (dead) return;
    try {
      deliver(post);
    } catch {
      dead = true;
      sink.end();
    }
  };
}

/** Listens for new posts. Every open stream is one listener, so the emitter's cap of 10 is lifted. */
function listen(ctx: SandboxContext, deliver: (post: SandboxPost) => void): void {
  if (ctx.events.getMaxListeners() !== 0) ctx.events.setMaxListeners(0);
  ctx.events.on("post:created", deliver);
}

function filteredStream(req: RouteRequest): StreamResult {
  const q = new Params(req.query, ["backfill_minutes", ...RENDER_PARAMS.post]);
  const options = readRender(q, "post");
  const backfill = q.int("backfill_minutes", 0, 5, 0);
  const ctx = req.sandbox;
  const appId = req.caller.app.id;
  const release = claimConnection(ctx, appId);
  // Already aborted when the client left before this ran (an injected delay): an abort
  // listener added now would never be called.
  if (req.signal.aborted) release();
  else req.signal.addEventListener("abort", release, { once: true });
  return {
    stream(sink) {
      const deliver = guarded(sink, (post: SandboxPost) => {
        const rules = matchingRules(ctx, appId, post);
        if (!rules.length) return;
        sink.send(message(req, options, post, rules));
        req.countPostsRead(1);
      });
      if (backfill > 0) {
        const since = ctx.clock.now() - backfill * 60_000;
        for (const p of livePostsNewestFirst(ctx)
          .filter((p) => p.created_at >= since)
          .reverse())
          deliver(p);
      }
      listen(ctx, deliver);
      return () => {
        ctx.events.off("post:created", deliver);
        release();
      };
    },
  };
}

function sampleStream(req: RouteRequest): StreamResult {
  const q = new Params(req.query, ["backfill_minutes", ...RENDER_PARAMS.post]);
  const options = readRender(q, "post");
  q.int("backfill_minutes", 0, 5, 0);
  const ctx = req.sandbox;
  return {
    stream(sink) {
      const deliver = guarded(sink, (post: SandboxPost) => {
        if (sampled(ctx, post)) sink.send(message(req, options, post));
      });
      listen(ctx, deliver);
      return () => void ctx.events.off("post:created", deliver);
    },
  };
}

/** Stream and rules handlers by endpoint key. */
export const streamRoutes: RouteTable = {
  "POST /2/posts/search/stream/rules": manageRules,
  "GET /2/posts/search/stream/rules": listRules,
  "GET /2/posts/search/stream": filteredStream,
  "GET /2/posts/sample/stream": sampleStream,
};
