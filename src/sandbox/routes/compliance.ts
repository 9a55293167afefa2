/**
 * Batch compliance jobs (wire-facts 2.16), app-only: create a job (200 with the job, as
 * the service answers), look one up, list the app's recent jobs of a type. The upload and
 * download URLs the jobs carry are served by `files.ts`.
 *
 * A job of another app answers as missing. "Recent" jobs are those whose results could
 * still be downloaded (created in the last 7 days), newest first.
 */
import { z } from "zod";
import { COMPLIANCE_JOB_FIELDS, PROBLEM_TYPE_BASE } from "../../api/types.ts";
import type { RouteTable } from "../route.ts";
import { parseBody } from "../domain/body.ts";
import { createJob, DOWNLOAD_WINDOW_MS, jobObject, jobOf, jobStatus, jobTable } from "../domain/compliance.ts";
import { compareIds } from "../model/index.ts";
import { Params, pathId } from "../domain/params.ts";
import { ok } from "./common.ts";

const jobBody = z
  .object({ type: z.enum(["posts", "users"]), name: z.string().optional(), resumable: z.boolean().optional() })
  .strict();

/** Checks `compliance_job.fields`. Every field is always sent: the job is useless without its URLs and times. */
const checkFields = (q: Params) => q.enumList("compliance_job.fields", COMPLIANCE_JOB_FIELDS);

/** Compliance job handlers by endpoint key. */
export const complianceRoutes: RouteTable = {
  "POST /2/compliance/jobs": (req) => {
    new Params(req.query, []);
    const job = createJob(req.sandbox, req.caller.app, parseBody(jobBody, req.body));
    return ok({ data: jobObject(req.sandbox, job) });
  },

  "GET /2/compliance/jobs/:job_id": (req) => {
    checkFields(new Params(req.query, ["compliance_job.fields"]));
    const id = pathId(req.params, "job_id");
    const job = jobOf(req.sandbox, req.caller.app, id);
    if (!job) {
      return ok({
        errors: [
          {
            value: id,
            detail: `Could not find compliance_job with job_id: [${id}].`,
            title: "Not Found Error",
            resource_type: "compliance_job",
            parameter: "job_id",
            resource_id: id,
            type: PROBLEM_TYPE_BASE + "resource-not-found",
          },
        ],
      });
    }
    return ok({ data: jobObject(req.sandbox, job) });
  },

  "GET /2/compliance/jobs": (req) => {
    const q = new Params(req.query, ["type", "status", "compliance_job.fields"]);
    const type = q.oneOf("type", ["posts", "users"]);
    if (type === undefined) q.required("type");
    const status = q.oneOf("status", ["created", "in_progress", "failed", "complete", "expired"]);
    checkFields(q);
    const now = req.sandbox.clock.now();
    const jobs = Object.values(jobTable(req.sandbox))
      .filter((j) => j.app_id === req.caller.app.id && j.type === type && now - j.created_at < DOWNLOAD_WINDOW_MS)
      .filter((j) => status === undefined || jobStatus(j, now) === status)
      .sort((a, b) => compareIds(b.id, a.id));
    if (!jobs.length) return ok({ meta: { result_count: 0 } });
    return ok({ data: jobs.map((j) => jobObject(req.sandbox, j)), meta: { result_count: jobs.length } });
  },
};
