/** Batch compliance jobs (spec 4.1 "Compliance"): app-only. */
import type { CallOptions, Caller } from "../caller.ts";
import type { ComplianceJobField } from "../params.ts";
import type { CreateComplianceJobBody } from "../schema.ts";
import type { ComplianceJob } from "../types.ts";

type JobQuery = { "compliance_job.fields"?: readonly ComplianceJobField[] };

export function complianceGroup(c: Caller) {
  return {
    /** `POST /2/compliance/jobs`: answers the job with its `upload_url` (PUT the ids there, one per line, no auth). */
    createJob: (body: CreateComplianceJobBody, options?: CallOptions) =>
      c.request("POST /2/compliance/jobs", { body }, options),
    /** `GET /2/compliance/jobs/:job_id`: poll until `complete`, then GET `download_url`. */
    job: (id: string, query?: JobQuery, options?: CallOptions) =>
      c.request("GET /2/compliance/jobs/:job_id", { params: { job_id: id }, query }, options),
    /** `GET /2/compliance/jobs?type=`: recent jobs of a type. */
    jobs: (query: JobQuery & { type: "posts" | "users"; status?: ComplianceJob["status"] }, options?: CallOptions) =>
      c.request("GET /2/compliance/jobs", { query }, options),
  };
}
