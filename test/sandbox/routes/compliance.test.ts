import { afterAll, describe, expect, it } from "vitest";
import type { AppView } from "../../../src/sandbox/index.ts";
import { startSandbox, type TestSandbox } from "../../helpers/sandbox.ts";
import { useWorld } from "./world.ts";

const w = useWorld();
const MIN = 60_000;

/** A fresh app and its bearer (each test has its own, so jobs of one never conflict with another's). */
async function appClient(t: TestSandbox = w.t) {
  const app: AppView = await t.admin.createApp({ plan: "pro" });
  const bearer = await t.appBearer(app);
  return {
    app,
    create: (body: unknown) => t.bearer(bearer, "POST", "/2/compliance/jobs", { json: body }),
    job: (id: string) => t.bearer(bearer, "GET", `/2/compliance/jobs/${id}`),
    jobs: (query: Record<string, string>) => t.bearer(bearer, "GET", "/2/compliance/jobs", { query }),
  };
}

/** A request to a pre-signed URL: no Authorization header at all. */
async function presigned(url: string, method: "PUT" | "GET", body?: string, headers: Record<string, string> = {}) {
  const res = await fetch(url, {
    method,
    body,
    headers: body === undefined ? headers : { "content-type": "text/plain", ...headers },
  });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

describe("compliance jobs", () => {
  it("moves a posts job from created to in_progress to complete on the clock; the download lists deleted, suspended, protected and deactivated ids", async () => {
    const c = await appClient();
    const ok = await w.user("cj_ok");
    const gone = await w.user("cj_gone");
    const susp = await w.user("cj_susp");
    const prot = await w.user("cj_prot");
    const deact = await w.user("cj_deact");
    const pOk = await w.post(ok, "fine post");
    const pDeleted = await w.post(gone, "regret this");
    const pSusp = await w.post(susp, "from a suspended account");
    const pProt = await w.post(prot, "now protected");
    const pDeact = await w.post(deact, "from a deactivated account");
    await w.t.clock.advance(MIN);
    expect((await w.call(gone, "DELETE", `/2/posts/${pDeleted.id}`)).status).toBe(200);
    const deletedAt = new Date(w.t.clock.now()).toISOString();
    await w.admin("PATCH", "/_sandbox/users", { id: susp.user.id, suspended: true });
    await w.admin("PATCH", "/_sandbox/users", { id: prot.user.id, protected: true });
    await w.admin("PATCH", "/_sandbox/users", { id: deact.user.id, deactivated: true });

    const now = w.t.clock.now();
    const made = await c.create({ type: "posts", name: "nightly" });
    expect(made.status).toBe(200);
    const job = made.body.data;
    expect(job).toEqual({
      id: expect.stringMatching(/^\d+$/),
      type: "posts",
      name: "nightly",
      resumable: false,
      status: "created",
      created_at: new Date(now).toISOString(),
      upload_url: expect.stringMatching(new RegExp(`^${w.t.url}/_compliance/upload/${job.id}\\?signature=`)),
      upload_expires_at: new Date(now + 15 * MIN).toISOString(),
      download_url: expect.stringMatching(new RegExp(`^${w.t.url}/_compliance/download/${job.id}\\?signature=`)),
      download_expires_at: new Date(now + 7 * 24 * 60 * MIN).toISOString(),
    });

    const second = await c.create({ type: "posts" });
    expect(second.status).toBe(409);
    expect(second.body).toMatchObject({ type: "https://api.twitter.com/2/problems/conflict", status: 409 });
    expect(second.body.detail).toContain(job.id);
    expect((await c.create({ type: "users", resumable: true })).status).toBe(200);

    expect((await presigned(job.download_url, "GET")).status).toBe(404);
    expect((await presigned(job.upload_url.replace(/signature=[^&]+/, "signature=forged"), "PUT", "1\n")).status).toBe(
      403,
    );
    const ids = [pOk.id, pDeleted.id, pSusp.id, pProt.id, pDeact.id, "123", ""].join("\n");
    const up = await presigned(job.upload_url, "PUT", ids);
    expect(up.status).toBe(200);
    expect((await c.job(job.id)).body.data.status).toBe("in_progress");
    expect((await presigned(job.upload_url, "PUT", "1\n")).status).toBe(409);
    expect((await presigned(job.download_url, "GET")).status).toBe(404);

    await w.t.admin.advanceClock(5000);
    expect((await c.job(job.id)).body.data.status).toBe("complete");
    const listed = await c.jobs({ type: "posts", status: "complete" });
    expect(listed.body.data.map((j: { id: string }) => j.id)).toEqual([job.id]);
    expect(listed.body.meta).toEqual({ result_count: 1 });
    expect((await c.jobs({ type: "posts", status: "created" })).body).toEqual({ meta: { result_count: 0 } });

    const down = await presigned(job.download_url, "GET");
    expect(down.status).toBe(200);
    expect(down.headers.get("content-type")).toMatch(/ndjson/);
    const lines = down.text
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines).toEqual([
      { id: pDeleted.id, action: "delete", created_at: expect.any(String), redacted_at: deletedAt, reason: "deleted" },
      { id: pSusp.id, action: "delete", created_at: expect.any(String), reason: "suspended" },
      { id: pProt.id, action: "delete", created_at: expect.any(String), reason: "protected" },
      { id: pDeact.id, action: "delete", created_at: expect.any(String), reason: "deactivated" },
    ]);

    await w.t.clock.advance(7 * 24 * 60 * MIN);
    expect((await c.job(job.id)).body.data.status).toBe("expired");
    expect((await presigned(job.download_url, "GET")).status).toBe(403);
    expect((await c.jobs({ type: "posts" })).body).toEqual({ meta: { result_count: 0 } });
  });

  it("fails a job on a bad upload (a line that is not an id, an empty file), and lets a new job start after", async () => {
    const c = await appClient();
    const bad = (await c.create({ type: "users" })).body.data;
    expect((await presigned(bad.upload_url, "PUT", "12\nnot-an-id\n")).status).toBe(200);
    const failed = (await c.job(bad.id)).body.data;
    expect(failed.status).toBe("failed");
    expect(failed.error).toMatch(/Line 2 is not a user id/);
    expect((await presigned(bad.download_url, "GET")).status).toBe(404);

    const empty = (await c.create({ type: "users" })).body.data;
    await presigned(empty.upload_url, "PUT", "\n\n");
    expect((await c.job(empty.id)).body.data).toMatchObject({
      status: "failed",
      error: expect.stringMatching(/no ids/),
    });
    expect((await c.jobs({ type: "users", status: "failed" })).body.data.map((j: { id: string }) => j.id)).toEqual([
      empty.id,
      bad.id,
    ]);
  });

  it("reports users that are suspended, protected or deactivated", async () => {
    const c = await appClient();
    const fine = await w.user("cu_fine");
    const prot = await w.user("cu_prot");
    const susp = await w.user("cu_susp");
    await w.admin("PATCH", "/_sandbox/users", { id: prot.user.id, protected: true });
    await w.admin("PATCH", "/_sandbox/users", { id: susp.user.id, suspended: true });
    const job = (await c.create({ type: "users" })).body.data;
    await presigned(job.upload_url, "PUT", `${fine.user.id}\r\n${prot.user.id}\r\n${susp.user.id}\r\n`);
    await w.t.clock.advance(5000);
    const lines = (await presigned(job.download_url, "GET")).text
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines.map((l: { id: string; reason: string }) => [l.id, l.reason])).toEqual([
      [prot.user.id, "protected"],
      [susp.user.id, "suspended"],
    ]);
  });

  it("expires a job whose ids never arrive, and refuses the late upload", async () => {
    const c = await appClient();
    const job = (await c.create({ type: "posts" })).body.data;
    await w.t.clock.advance(15 * MIN);
    expect((await c.job(job.id)).body.data.status).toBe("expired");
    const late = await presigned(job.upload_url, "PUT", "1\n");
    expect(late.status).toBe(403);
    expect(late.text).toMatch(/expired/);
    expect((await c.create({ type: "posts" })).status).toBe(200);
  });

  it("takes a resumable upload in parts (308 until the last), and refuses parts on a plain job", async () => {
    const c = await appClient();
    const a = await w.user("cr_a");
    const p = await w.post(a, "part of the upload");
    await w.call(a, "DELETE", `/2/posts/${p.id}`);
    const job = (await c.create({ type: "posts", resumable: true })).body.data;
    expect(job.resumable).toBe(true);
    const file = `1\n${p.id}\n`;
    const part1 = await presigned(job.upload_url, "PUT", file.slice(0, 2), { "content-range": "bytes 0-1/*" });
    expect(part1.status).toBe(308);
    expect(part1.headers.get("range")).toBe("bytes=0-1");
    expect((await c.job(job.id)).body.data.status).toBe("created");
    const wrongStart = await presigned(job.upload_url, "PUT", "x", { "content-range": "bytes 5-5/*" });
    expect(wrongStart.status).toBe(400);
    const last = await presigned(job.upload_url, "PUT", file.slice(2), {
      "content-range": `bytes 2-${file.length - 1}/${file.length}`,
    });
    expect(last.status).toBe(200);
    await w.t.clock.advance(5000);
    const lines = (await presigned(job.download_url, "GET")).text
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines).toEqual([expect.objectContaining({ id: p.id, reason: "deleted" })]);

    const plain = (await c.create({ type: "users" })).body.data;
    expect((await presigned(plain.upload_url, "PUT", "1", { "content-range": "bytes 0-0/1" })).status).toBe(400);
    expect((await presigned(plain.upload_url, "PUT", "1", { "content-range": "bytes 0-0/x" })).status).toBe(400);
  });

  it("is app-only, keeps apps' jobs apart, and checks its parameters and body", async () => {
    const c = await appClient();
    const other = await appClient();
    const job = (await c.create({ type: "posts" })).body.data;
    const foreign = await other.job(job.id);
    expect(foreign.status).toBe(200);
    expect(foreign.body.errors[0]).toMatchObject({ resource_type: "compliance_job", resource_id: job.id });
    expect((await other.jobs({ type: "posts" })).body).toEqual({ meta: { result_count: 0 } });
    const user = await w.user("cj_user");
    expect((await w.call(user, "POST", "/2/compliance/jobs", { json: { type: "posts" } })).status).toBe(403);
    expect((await c.create({ type: "tweets" })).status).toBe(400);
    expect((await c.create({ type: "users", name: "n".repeat(65) })).status).toBe(400);
    expect((await c.create({ type: "users", extra: 1 })).status).toBe(400);
    expect((await c.jobs({})).status).toBe(400);
    expect((await c.jobs({ type: "posts", status: "done" })).status).toBe(400);
    expect((await c.jobs({ type: "posts", "compliance_job.fields": "colour" })).status).toBe(400);
    expect((await c.job("abc")).status).toBe(400);
  });
});

describe("compliance uploads larger than the sandbox takes", () => {
  const small: { t?: TestSandbox } = {};
  afterAll(() => small.t?.close());

  it("answers 413 and fails the job", async () => {
    small.t = await startSandbox({ maxBodyBytes: 1000 });
    const c = await appClient(small.t);
    const job = (await c.create({ type: "posts" })).body.data;
    const big = Array.from({ length: 200 }, (_, i) => String(1_000_000 + i)).join("\n");
    const res = await presigned(job.upload_url, "PUT", big);
    expect(res.status).toBe(413);
    const after = (await c.job(job.id)).body.data;
    expect(after).toMatchObject({ status: "failed", error: expect.stringMatching(/larger than 1000 bytes/) });
  });
});
