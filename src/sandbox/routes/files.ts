/**
 * The pre-signed URLs of compliance jobs, served by the sandbox itself: `PUT` the ids to a
 * job's `upload_url`, `GET` the results from its `download_url`. Like the real service's
 * object-store URLs, they live outside the v2 API and take no `Authorization` header: the
 * URL's `signature` is the credential, and it stops working when the URL expires. Answers
 * are plain text, as an object store's are, except the results file (NDJSON).
 *
 * Uploads: one `PUT` with the whole file, or, for a job created with `resumable: true`,
 * parts sent with `Content-Range: bytes FIRST-LAST/TOTAL` (`/*` while the total is not
 * known yet), each answered `308` with the `Range` received so far until the last one,
 * the resumable-upload protocol of the object store the service uses. A file larger than
 * the sandbox's body limit, or one that is not a list of ids, fails the job.
 *
 * The platform routes these paths here before the v2 catalog (see `server.ts`).
 */
import type { IncomingMessage } from "node:http";
import type { SandboxComplianceJob } from "../model/index.ts";
import { textReply, type Reply } from "../http/reply.ts";
import { readBody, type BodyLimits } from "../http/request.ts";
import { sameSecret } from "../auth/credentials.ts";
import { ApiProblem } from "../problems.ts";
import type { SandboxContext } from "../route.ts";
import {
  DOWNLOAD_PATH,
  failUpload,
  jobStatus,
  jobTable,
  receiveIds,
  resultLines,
  UPLOAD_PATH,
} from "../domain/compliance.ts";

/** A request to a pre-signed URL, as the platform hands it over: the body not yet read. */
export interface FileRequest {
  sandbox: SandboxContext;
  req: IncomingMessage;
  query: URLSearchParams;
  /** The body limits of every request; the largest body is also the largest upload. */
  limits: BodyLimits;
}

export type FileHandler = (r: FileRequest) => Promise<Reply>;

const fatalUtf8 = new TextDecoder("utf-8", { fatal: true });

/** The handler of a pre-signed URL, or undefined when the request is not for one. */
export function fileRoute(method: string, pathname: string): FileHandler | undefined {
  if (method === "PUT" && pathname.startsWith(UPLOAD_PATH)) return (r) => upload(r, pathname.slice(UPLOAD_PATH.length));
  if (method === "GET" && pathname.startsWith(DOWNLOAD_PATH))
    return (r) => download(r, pathname.slice(DOWNLOAD_PATH.length));
  return undefined;
}

/** The job a signed URL names, or the 403 an object store answers to a URL it did not sign. */
function signedJob(r: FileRequest, id: string): SandboxComplianceJob | Reply {
  const job = jobTable(r.sandbox)[id];
  if (!job || !sameSecret(r.query.get("signature") ?? "", job.signature)) {
    return textReply(
      403,
      "SignatureDoesNotMatch: this URL was not issued by the sandbox; use the job's upload_url or download_url exactly as given.",
    );
  }
  return job;
}

async function upload(r: FileRequest, id: string): Promise<Reply> {
  const job = signedJob(r, id);
  if (!("id" in job)) return job;
  const ctx = r.sandbox;
  let body: Buffer;
  try {
    body = await readBody(r.req, r.limits);
  } catch (err) {
    if (err instanceof ApiProblem && err.status === 413 && jobStatus(job, ctx.clock.now()) === "created") {
      failUpload(ctx, job, `The upload is larger than ${r.limits.maxBytes} bytes, the most this sandbox takes.`);
    }
    throw err;
  }
  const status = jobStatus(job, ctx.clock.now());
  if (status === "expired")
    return textReply(
      403,
      `Request has expired: the upload URL of job ${job.id} expired at ${new Date(job.upload_expires_at).toISOString()}. Create a new job.`,
    );
  if (status !== "created")
    return textReply(409, `Job ${job.id} already has its ids (it is ${status}); create a new job to check other ids.`);

  const range = r.req.headers["content-range"];
  if (range === undefined) {
    if (job.partial !== undefined)
      return textReply(400, "This upload was started in parts: send the rest with Content-Range headers.");
    return finish(r, job, body);
  }
  if (!job.resumable)
    return textReply(
      400,
      "This upload URL is not resumable: send the whole file in one PUT, or create the job with resumable: true.",
    );
  const m = /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(range);
  if (!m)
    return textReply(
      400,
      `Content-Range must look like "bytes 0-999/2000" (or "bytes 0-999/*" while the total is unknown), not ${JSON.stringify(range)}.`,
    );
  const [first, last] = [Number(m[1]), Number(m[2])];
  const total = m[3] === "*" ? undefined : Number(m[3]);
  const received = job.partial?.length ?? 0;
  if (first !== received)
    return textReply(
      400,
      `This part starts at byte ${first}, but ${received} bytes have arrived so far: send the part that starts at byte ${received}.`,
    );
  if (last - first + 1 !== body.length)
    return textReply(400, `Content-Range announces ${last - first + 1} bytes but the body has ${body.length}.`);
  const sofar = received + body.length;
  if (total !== undefined && sofar > total)
    return textReply(400, `The parts add up to ${sofar} bytes, more than the announced total of ${total}.`);
  if (sofar > r.limits.maxBytes) {
    failUpload(ctx, job, `The upload is larger than ${r.limits.maxBytes} bytes, the most this sandbox takes.`);
    return textReply(
      413,
      `The upload is larger than ${r.limits.maxBytes} bytes, the most this sandbox takes; the job has failed.`,
    );
  }
  const bytes = (job.partial ?? "") + body.toString("latin1");
  if (total === undefined || sofar < total) {
    job.partial = bytes;
    return { status: 308, headers: { range: `bytes=0-${sofar - 1}` }, body: "" };
  }
  return finish(r, job, Buffer.from(bytes, "latin1"));
}

/** The whole file has arrived: the job takes the ids (or fails on them). */
function finish(r: FileRequest, job: SandboxComplianceJob, file: Buffer): Reply {
  let text: string;
  try {
    text = fatalUtf8.decode(file);
  } catch {
    failUpload(r.sandbox, job, "The upload is not UTF-8 text: send one id per line.");
    return textReply(200, "");
  }
  receiveIds(r.sandbox, job, text);
  return textReply(200, "");
}

async function download(r: FileRequest, id: string): Promise<Reply> {
  const job = signedJob(r, id);
  if (!("id" in job)) return job;
  const now = r.sandbox.clock.now();
  const status = jobStatus(job, now);
  if (status === "expired" && now >= job.download_expires_at) {
    return textReply(
      403,
      `Request has expired: the results of job ${job.id} could be downloaded until ${new Date(job.download_expires_at).toISOString()}.`,
    );
  }
  if (status !== "complete")
    return textReply(
      404,
      `NoSuchKey: job ${job.id} has no results (it is ${status}); poll GET /2/compliance/jobs/${job.id} until it is complete.`,
    );
  return { status: 200, headers: { "content-type": "application/x-ndjson; charset=utf-8" }, body: resultLines(job) };
}
