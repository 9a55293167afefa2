import { mkdtemp, readFile, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { createClock } from "../../src/clock.ts";
import { UserError } from "../../src/errors.ts";
import { createSandbox } from "../../src/sandbox/index.ts";
import { loadState } from "../../src/sandbox/state.ts";
import { oauthHeader, startSandbox, T0 } from "../helpers/sandbox.ts";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "postbot-sandbox-state-"));
});

describe("saving and restoring the sandbox state", () => {
  it("continues where it stopped: apps, users, tokens, posts, windows, bearer tokens", async () => {
    const file = join(dir, "state.json");
    const first = await startSandbox({ stateFile: file });
    const alice = await first.account({ username: "alice", plan: "basic" });
    const bearer = await first.appBearer(alice.app);
    const post = await first.admin.createPost({ author_id: alice.user.id, text: "kept across restarts" });
    expect((await first.signed(alice, "GET", `/2/posts/${post.id}`)).headers.get("x-rate-limit-remaining")).toBe("14");
    await first.close();

    const mode = (await stat(file)).mode & 0o777;
    expect(mode).toBe(0o600);

    const second = await startSandbox({ stateFile: file, clock: createClock({ frozen: true, start: T0 + 60_000 }) });
    try {
      // The same credentials still sign; the window remembers the first request.
      const res = await second.signed(alice, "GET", `/2/posts/${post.id}`);
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ id: post.id, text: "kept across restarts" });
      expect(res.headers.get("x-rate-limit-remaining")).toBe("13");
      expect(await second.appBearer(alice.app)).toBe(bearer);
      expect(second.sandbox.context.data.world.users[alice.user.id]?.username).toBe("alice");
      // New ids keep growing past the old ones.
      const app2 = await second.admin.createApp();
      expect(BigInt(app2.id) > BigInt(alice.app.id)).toBe(true);
    } finally {
      await second.close();
    }
  });

  it("keeps the nonces it saw: a signed request replayed within 5 minutes of a restart is refused", async () => {
    const file = join(dir, "nonces.json");
    const first = await startSandbox({ stateFile: file });
    const alice = await first.account({ username: "alice" });
    const url = `${first.url}/2/users/me`;
    const signed = { headers: { authorization: oauthHeader(first.clock, alice, "GET", url) } };
    expect((await fetch(url, signed)).status).toBe(200);
    await first.close();
    expect(Object.keys(JSON.parse(await readFile(file, "utf8")).auth.nonces)).toHaveLength(1);

    // Same address (the signature covers it), one minute later: the nonce is still in its window.
    const second = await startSandbox({
      stateFile: file,
      port: Number(new URL(first.url).port),
      clock: createClock({ frozen: true, start: T0 + 60_000 }),
    });
    try {
      const replay = await fetch(url, signed);
      expect(replay.status).toBe(401);
      expect(await replay.json()).toEqual({ errors: [{ code: 32, message: "Could not authenticate you." }] });
      expect((await second.signed(alice, "GET", "/2/users/me")).status).toBe(200);
    } finally {
      await second.close();
    }
  });

  it("writes atomically: no temporary file is left behind", async () => {
    const file = join(dir, "atomic", "state.json");
    const sb = await createSandbox({ stateFile: file, clock: createClock({ frozen: true, start: T0 }) });
    await sb.admin.createApp();
    await sb.save();
    await sb.close();
    const { readdir } = await import("node:fs/promises");
    expect(await readdir(join(dir, "atomic"))).toEqual(["state.json"]);
    expect(JSON.parse(await readFile(file, "utf8")).version).toBe(1);
  });

  it("refuses a file that is not a sandbox state, naming it", async () => {
    const bad = join(dir, "bad.json");
    await writeFile(bad, "{not json");
    await expect(loadState(bad)).rejects.toThrow(UserError);
    await expect(loadState(bad)).rejects.toThrow(bad);
    const other = join(dir, "other.json");
    await writeFile(other, JSON.stringify({ hello: "world" }));
    await expect(createSandbox({ stateFile: other })).rejects.toThrow(/not a postbot sandbox state file/);
    expect(await loadState(join(dir, "missing.json"))).toBeUndefined();
  });
});
