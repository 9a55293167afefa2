import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startSandbox, type TestSandbox } from "../../helpers/sandbox.ts";

const open: TestSandbox[] = [];
let dir: string | undefined;
afterAll(async () => {
  await Promise.all(open.map((t) => t.close()));
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function start(stateFile: string) {
  const t = await startSandbox({ stateFile });
  open.push(t);
  return t;
}

describe("lists, spaces, communities and compliance jobs across a restart", () => {
  it("keeps them in the state file; a job's URLs follow the new address", async () => {
    dir = await mkdtemp(join(tmpdir(), "postbot-sandbox-"));
    const file = join(dir, "state.json");
    const first = await start(file);
    const alice = await first.account({ username: "rs_alice" });
    const list = (await first.signed(alice, "POST", "/2/lists", { json: { name: "kept", private: true } })).body.data
      .id;
    const space = (
      await first.adminCall("POST", "/_sandbox/spaces", {
        creator_id: alice.user.id,
        title: "Kept",
        duration_ms: 3_600_000,
      })
    ).body.id;
    const community = (await first.adminCall("POST", "/_sandbox/communities", { name: "Kept" })).body.id;
    const bearer = await first.appBearer(alice.app);
    const job = (await first.bearer(bearer, "POST", "/2/compliance/jobs", { json: { type: "users" } })).body.data;
    await first.close();

    const second = await start(file);
    expect(
      (await second.signed(alice, "GET", `/2/lists/${list}`, { query: { "list.fields": "private" } })).body.data,
    ).toEqual({ id: list, name: "kept", private: true });
    const bearer2 = await second.appBearer(alice.app);
    expect((await second.bearer(bearer2, "GET", `/2/spaces/${space}`)).body.data).toEqual({ id: space, state: "live" });
    await second.clock.advance(3_600_000);
    expect((await second.bearer(bearer2, "GET", `/2/spaces/${space}`)).body.data.state).toBe("ended");
    expect((await second.signed(alice, "GET", `/2/communities/${community}`)).body.data.name).toBe("Kept");
    const again = (await second.bearer(bearer2, "GET", `/2/compliance/jobs/${job.id}`)).body.data;
    expect(again.status).toBe("expired");
    expect(again.upload_url.startsWith(second.url + "/_compliance/upload/")).toBe(true);
    expect(again.upload_url).not.toBe(job.upload_url);
  });

  it("loads a state saved before these tables existed", async () => {
    const file = join(dir!, "old.json");
    const first = await start(file);
    const bob = await first.account({ username: "rs_bob" });
    await first.close();
    const saved = JSON.parse(await readFile(file, "utf8"));
    for (const table of [
      "lists",
      "list_members",
      "list_followers",
      "pinned_lists",
      "spaces",
      "communities",
      "bookmark_folders",
      "compliance_jobs",
    ])
      delete saved.world[table];
    await writeFile(file, JSON.stringify(saved));
    const second = await start(file);
    expect((await second.signed(bob, "GET", `/2/users/${bob.user.id}/owned_lists`)).body).toEqual({
      meta: { result_count: 0 },
    });
    expect((await second.signed(bob, "POST", "/2/lists", { json: { name: "new" } })).status).toBe(201);
  });
});
