/**
 * Secrets where the README says: the accounts' tokens and the apps' bearer tokens are in
 * `state/credentials.json` (mode 0600) and in no other file of the state directory, the
 * journal included, while running, after a crash and after a stop (src/store/file-store.ts).
 */
import { cp, mkdtemp, readdir, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { APP_TOKENS_NAMESPACE, saveAccount, type AppTokenRecord } from "../../src/credentials/accounts.ts";
import { definePlugin } from "../../src/plugins/plugin.ts";
import { openFileStore } from "../../src/store/file-store.ts";
import { createTestBed } from "../../src/testing.ts";

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "postbot-credentials-"));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const ACCOUNT_TOKEN = "1460000000000000001-AccountTokenNeverInTheJournal";
const ACCOUNT_SECRET = "AccountSecretNeverInTheJournal0123456789abcdef";

const liker = definePlugin({
  name: "liker",
  setup(bot) {
    bot.on("post", async (ctx) => {
      await ctx.like();
    });
  },
});

/** Every file under the state directory holding any of `secrets`, relative to it. */
async function filesHolding(stateDir: string, secrets: string[]): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(stateDir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    const text = (await readFile(path)).toString("latin1");
    if (secrets.some((s) => text.includes(s))) out.push(path.slice(stateDir.length + 1));
  }
  return out.sort();
}

describe("secrets in the state directory", () => {
  it("are in credentials.json (0600) alone, never journaled: while running, after a crash, after the stop", async () => {
    const dir = join(root, "data");
    const state = join(dir, "state");
    const store = await openFileStore(dir);
    // What `bot auth login` stores.
    saveAccount(store, {
      name: "greeter",
      base_url: "http://127.0.0.1:1",
      user_id: "1460000000000000001",
      username: "greeter",
      oauth1: { token: ACCOUNT_TOKEN, secret: ACCOUNT_SECRET, consumer_key: "ck" },
      updated_at: "2026-03-02T12:00:00.000Z",
    });
    await store.flush();
    // A pro bot with a stream rule: its app's bearer token is fetched and kept in the state.
    const bed = await createTestBed({
      bots: [{ name: "cats", plan: "pro", triggers: { stream: [{ value: "#cats" }] }, plugins: { liker: {} } }],
      plugins: { liker },
      store,
    });
    try {
      const alice = await bed.user("alice");
      for (let i = 0; i < 3; i++) await bed.post(alice, `my #cats, part ${i}`);
      await bed.advance(1_000);
      await bed.settle();
      const tokens = store.entries<AppTokenRecord>(APP_TOKENS_NAMESPACE);
      expect(tokens).toHaveLength(1);
      const bearer = tokens[0]![1].token;
      expect(Object.values(bed.sandbox.context.data.auth.bearer_tokens).map((b) => b.token)).toContain(bearer);
      const secrets = [bearer, ACCOUNT_TOKEN, ACCOUNT_SECRET];

      // Running: the journal holds the run's changes (the likes' ledger marks), and no secret.
      await store.flush();
      const names = await readdir(state);
      expect(names.filter((n) => n.startsWith("journal-"))).not.toEqual([]);
      expect(await filesHolding(state, secrets)).toEqual(["credentials.json"]);
      for (const secret of secrets)
        expect(await readFile(join(state, "credentials.json"), "utf8")).toContain(JSON.stringify(secret));
      expect((await stat(join(state, "credentials.json"))).mode & 0o777).toBe(0o600);
      // A crash now (kill -9): the secrets were written when their flush resolved, not later.
      const crashed = join(root, "crashed");
      await cp(dir, crashed, { recursive: true });
      const again = await openFileStore(crashed);
      expect(again.entries<AppTokenRecord>(APP_TOKENS_NAMESPACE)[0]![1].token).toBe(bearer);
      expect(again.get<{ oauth1: { token: string } }>("auth:accounts", "greeter")?.oauth1.token).toBe(ACCOUNT_TOKEN);
      await again.close();

      await bed.stop();
      await store.close();
      expect(await filesHolding(state, secrets)).toEqual(["credentials.json"]);
      expect((await stat(join(state, "credentials.json"))).mode & 0o777).toBe(0o600);
    } finally {
      await bed.close();
      await store.close();
    }
  });

  it("a token forgotten is gone from credentials.json when its flush resolves", async () => {
    const dir = join(root, "data");
    const store = await openFileStore(dir);
    store.set(APP_TOKENS_NAMESPACE, "http://127.0.0.1:1 ck", { token: "bearer-to-forget", fetched_at: "" });
    store.set("ledger", "ann:like:1", { state: "done" });
    await store.flush();
    const credentials = join(dir, "state", "credentials.json");
    expect(await readFile(credentials, "utf8")).toContain("bearer-to-forget");
    expect(await filesHolding(join(dir, "state"), ["bearer-to-forget"])).toEqual(["credentials.json"]);
    store.delete(APP_TOKENS_NAMESPACE, "http://127.0.0.1:1 ck"); // the service refused it (401)
    await store.flush();
    expect(await filesHolding(join(dir, "state"), ["bearer-to-forget"])).toEqual([]);
    await store.close();
    const again = await openFileStore(dir);
    expect(again.entries(APP_TOKENS_NAMESPACE)).toEqual([]);
    expect(again.get("ledger", "ann:like:1")).toEqual({ state: "done" });
    await again.close();
  });
});
