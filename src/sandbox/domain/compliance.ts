/**
 * Batch compliance jobs (wire-facts 2.16): an app uploads post or user ids to the job's
 * pre-signed upload URL and later downloads, from its download URL, which of them it must
 * delete (deleted, suspended, protected or deactivated in the sandbox's data).
 *
 * A job's status is computed from its times and the sandbox clock on every read, never
 * stored, so `POST /_sandbox/clock` moves jobs along:
 *
 * - `created` until its ids arrive; `expired` if the upload window
 *   ({@link UPLOAD_WINDOW_MS}) passes without them;
 * - `in_progress` for {@link PROCESSING_MS} after they arrive, then `complete`;
 * - `failed` at once when the upload is unusable (empty, a line that is not an id, too
 *   many ids or bytes, not UTF-8), with the reason in `error`;
 * - `expired` again once the download window ({@link DOWNLOAD_WINDOW_MS}) has passed.
 *
 * The results are computed when the ids arrive (a snapshot, as the real job reads the data
 * of its processing time). Ids the sandbox has never seen are left out of the results: it
 * has nothing to say about them.
 *
 * As on the real service, an app has at most one unfinished (`created` or `in_progress`)
 * job per type; another is refused with 409 `conflict`.
 */
import { randomBytes } from "node:crypto";
import type { ComplianceJob, ComplianceJobStatus, ComplianceResult } from "../../api/types.ts";
import { nextId, type SandboxApp, type SandboxComplianceJob, type SandboxComplianceResult } from "../model/index.ts";
import { ApiProblem, invalidRequest, problem } from "../problems.ts";
import type { SandboxContext } from "../route.ts";
import { ID_PATTERN, iso } from "./params.ts";

/** How long the upload URL accepts the ids (the service's 15 minutes). */
export const UPLOAD_WINDOW_MS = 15 * 60_000;
/** How long the results can be downloaded, from the job's creation (the service's 7 days). */
export const DOWNLOAD_WINDOW_MS = 7 * 24 * 3_600_000;
/** How long the sandbox "processes" an upload before the job is complete. */
export const PROCESSING_MS = 5_000;
/** The most ids one job takes. */
export const MAX_JOB_IDS = 100_000;
/** The longest job name. */
export const MAX_JOB_NAME = 64;

/** Where the sandbox serves the pre-signed URLs (outside the v2 catalog, without authentication). */
export const UPLOAD_PATH = "/_compliance/upload/";
export const DOWNLOAD_PATH = "/_compliance/download/";

/** The jobs table (created when a state saved before jobs existed lacks it). */
export function jobTable(ctx: SandboxContext): Record<string, SandboxComplianceJob> {
  return (ctx.data.world.compliance_jobs ??= {});
}

/** A job's status at `now` (see the module comment). */
export function jobStatus(job: SandboxComplianceJob, now: number): ComplianceJobStatus {
  if (job.uploaded_at === undefined) return now >= job.upload_expires_at ? "expired" : "created";
  if (job.error !== undefined) return "failed";
  if (now >= job.download_expires_at) return "expired";
  return now < job.uploaded_at + PROCESSING_MS ? "in_progress" : "complete";
}

/** A job of `app` by id, or undefined (other apps' jobs are not theirs to see). */
export function jobOf(ctx: SandboxContext, app: SandboxApp, id: string): SandboxComplianceJob | undefined {
  const job = jobTable(ctx)[id];
  return job && job.app_id === app.id ? job : undefined;
}

/**
 * Creates a job of `app`, refusing a second unfinished job of the same type (409).
 *
 * @example
 * ```ts
 * const job = createJob(ctx, app, { type: "posts", name: "nightly" });
 * ```
 */
export function createJob(
  ctx: SandboxContext,
  app: SandboxApp,
  input: { type: "posts" | "users"; name?: string; resumable?: boolean },
): SandboxComplianceJob {
  if (input.name !== undefined && Array.from(input.name).length > MAX_JOB_NAME) {
    throw invalidRequest(`$.name: a job name must be at most ${MAX_JOB_NAME} characters`, { name: [input.name] });
  }
  const now = ctx.clock.now();
  const open = Object.values(jobTable(ctx)).find(
    (j) => j.app_id === app.id && j.type === input.type && ["created", "in_progress"].includes(jobStatus(j, now)),
  );
  if (open) {
    throw new ApiProblem(
      409,
      problem(
        "conflict",
        "Conflict",
        `You can have one concurrent job per job type: the ${input.type} job ${open.id} is still ${jobStatus(open, now)}. Upload its ids, wait for it to finish, or let it expire.`,
        { status: 409 },
      ),
    );
  }
  const job: SandboxComplianceJob = {
    id: nextId(ctx.data, now),
    app_id: app.id,
    type: input.type,
    ...(input.name !== undefined ? { name: input.name } : {}),
    resumable: input.resumable ?? false,
    created_at: now,
    upload_expires_at: now + UPLOAD_WINDOW_MS,
    download_expires_at: now + DOWNLOAD_WINDOW_MS,
    signature: randomBytes(18).toString("base64url"),
  };
  jobTable(ctx)[job.id] = job;
  return job;
}

/** The query of a job's pre-signed URLs: its secret and expiry, as an object store signs them. */
const signedQuery = (job: SandboxComplianceJob, expires: number) =>
  `?signature=${job.signature}&expires=${Math.floor(expires / 1000)}`;

/** The job as the service shows it, with its pre-signed URLs on the sandbox's address. */
export function jobObject(ctx: SandboxContext, job: SandboxComplianceJob): ComplianceJob {
  const base = ctx.url ?? "";
  const status = jobStatus(job, ctx.clock.now());
  return {
    id: job.id,
    type: job.type,
    ...(job.name !== undefined ? { name: job.name } : {}),
    resumable: job.resumable,
    status,
    created_at: iso(job.created_at),
    upload_url: base + UPLOAD_PATH + job.id + signedQuery(job, job.upload_expires_at),
    upload_expires_at: iso(job.upload_expires_at),
    download_url: base + DOWNLOAD_PATH + job.id + signedQuery(job, job.download_expires_at),
    download_expires_at: iso(job.download_expires_at),
    ...(status === "failed" && job.error !== undefined ? { error: job.error } : {}),
  };
}

/** Marks the upload of a job unusable: the job is failed from now on. */
export function failUpload(ctx: SandboxContext, job: SandboxComplianceJob, reason: string): void {
  job.uploaded_at = ctx.clock.now();
  job.error = reason;
  delete job.partial;
}

/**
 * Takes the whole upload of a job (one id per line; blank lines and a trailing newline are
 * fine) and computes its results; an unusable upload fails the job instead.
 */
export function receiveIds(ctx: SandboxContext, job: SandboxComplianceJob, text: string): void {
  const lines = text.split(/\r?\n/).map((l) => l.trim());
  const ids: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line === "") continue;
    if (!ID_PATTERN.test(line)) {
      return failUpload(
        ctx,
        job,
        `Line ${i + 1} is not a ${job.type === "posts" ? "post" : "user"} id (1 to 19 digits): ${JSON.stringify(line.slice(0, 40))}.`,
      );
    }
    ids.push(line);
  }
  if (!ids.length) return failUpload(ctx, job, "The upload holds no ids: send one id per line.");
  if (ids.length > MAX_JOB_IDS)
    return failUpload(ctx, job, `The upload holds ${ids.length} ids; a job takes at most ${MAX_JOB_IDS}.`);
  job.uploaded_at = ctx.clock.now();
  delete job.partial;
  job.results = [...new Set(ids)].flatMap((id) => {
    const r = job.type === "posts" ? postVerdict(ctx, id) : userVerdict(ctx, id);
    return r ? [r] : [];
  });
}

function userVerdict(ctx: SandboxContext, id: string): SandboxComplianceResult | undefined {
  const u = ctx.data.world.users[id];
  if (!u) return undefined;
  const reason = u.deactivated ? "deactivated" : u.suspended ? "suspended" : u.protected ? "protected" : undefined;
  return reason && { id, created_at: u.created_at, reason };
}

function postVerdict(ctx: SandboxContext, id: string): SandboxComplianceResult | undefined {
  const p = ctx.data.world.posts[id];
  if (!p) return undefined;
  if (p.deleted_at !== undefined) return { id, created_at: p.created_at, redacted_at: p.deleted_at, reason: "deleted" };
  const author = userVerdict(ctx, p.author_id);
  return author && { id, created_at: p.created_at, reason: author.reason };
}

/** The result file of a complete job: one JSON object per line (wire-facts 2.16). */
export function resultLines(job: SandboxComplianceJob): string {
  return (job.results ?? [])
    .map((r) => {
      const line: ComplianceResult = {
        id: r.id,
        action: "delete",
        created_at: iso(r.created_at),
        ...(r.redacted_at !== undefined ? { redacted_at: iso(r.redacted_at) } : {}),
        reason: r.reason,
      };
      return JSON.stringify(line) + "\n";
    })
    .join("");
}
