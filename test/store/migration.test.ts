/**
 * The single `state.json` of earlier postbots becomes the state directory on the first
 * start: everything reads back identical through the store, and the old file is kept.
 */
import { chmod, mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openFileStore } from "../../src/store/file-store.ts";
import type { Store } from "../../src/store/store.ts";
import { captureLogs } from "../helpers/log.ts";

let root: string;
let dir: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "postbot-migrate-"));
  dir = join(root, "data");
  await mkdir(dir, { recursive: true, mode: 0o700 });
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const T = Date.parse("2026-01-05T12:00:00Z");

/** An old-layout file as earlier postbots wrote it: two bots, their ledger, cursors, tokens, windows. */
const OLD: Record<string, Array<[string, unknown]>> = {
  "auth:accounts": [
    ["greeter", { name: "greeter", user_id: "42", token: "tok-g", token_secret: "sec-g" }],
    ["helper", { name: "helper", user_id: "43", token: "tok-h", token_secret: "sec-h" }],
  ],
  "auth:app-tokens": [["http://127.0.0.1:8787 ck", { token: "bearer", fetched_at: "2026-01-05T11:00:00.000Z" }]],
  identity: [
    ["greeter", { userId: "42", username: "greeter", token: "fp1" }],
    ["helper", { userId: "43", username: "helper", token: "fp2" }],
  ],
  cursors: [
    ["greeter:mentions", { since_id: "1460323737035677698" }],
    ["helper:followers", ["7", "8"]],
  ],
  ledger: [
    ["helper:like:900", { state: "done", kind: "like", bot: "helper", target: "900", createdAt: T, updatedAt: T }],
    ["greeter:reply:10", { state: "pending", kind: "reply", bot: "greeter", target: "10", createdAt: T, updatedAt: T }],
    ["helper:like:2", { state: "done", kind: "like", bot: "helper", target: "2", createdAt: T, updatedAt: T }],
  ],
  "inbox:greeter": [["mention:11", { kind: "mention", id: "mention:11" }]],
  "kv:greeter": [["count", 3]],
  "hidden:helper": [["55", true]],
  "replies.recent": [["greeter:10", { key: "greeter:reply:10", at: T }]],
  "budget.windows": [
    ["POST /2/posts|u:42|15min", [T - 1000, T - 500]],
    ["POST /2/posts|a:app1|15min", [T - 900]],
    ["cap|greeter|reply|3600000ms", [T - 100]],
  ],
  "budget.pauses": [["GET /2/users/:id/mentions|a:app1", T + 60_000]],
  "budget.usage": [["app1", { periodStart: T - 86_400_000, posts: 12 }]],
  status: [["greeter", { bot: "greeter", running: true }]],
  custom: [
    ["900", "a"],
    ["10", "b"],
  ],
};

const expectIdentical = (store: Store) => {
  for (const [ns, pairs] of Object.entries(OLD)) expect(store.entries(ns), ns).toEqual(pairs);
};

async function writeOld(): Promise<string> {
  const path = join(dir, "state.json");
  await writeFile(path, JSON.stringify({ version: 1, namespaces: OLD }), { mode: 0o600 });
  return path;
}

describe("migrating the single state.json", () => {
  it("reads back identical through the store, before and after a reopen, and keeps the old file", async () => {
    const old = await writeOld();
    const text = await readFile(old, "utf8");
    const { lines, logger } = captureLogs();
    const store = await openFileStore(dir, { logger, now: () => Date.parse("2026-02-03T04:05:06.007Z") });
    expectIdentical(store);
    await store.close();

    const kept = join(dir, "state.json.migrated-2026-02-03T04-05-06-007Z");
    expect((await readdir(dir)).sort()).toEqual(["state", "state.json.migrated-2026-02-03T04-05-06-007Z"]);
    expect(await readFile(kept, "utf8")).toBe(text);
    expect(lines.find((l) => String(l.msg).startsWith("migrated"))?.kept_as).toBe(kept);

    // One file per bot, account and app; tokens in credentials.json alone; every file 0600.
    const files = [
      "accounts/42.json",
      "apps/app1.json",
      "bots/greeter.json",
      "bots/helper.json",
      "credentials.json",
      "shared.json",
      "status.json",
    ];
    const found: string[] = [];
    for (const entry of await readdir(join(dir, "state"), { recursive: true }))
      if (String(entry).endsWith(".json")) found.push(String(entry));
    expect(found.sort()).toEqual(files);
    for (const f of files) {
      expect((await stat(join(dir, "state", f))).mode & 0o777, f).toBe(0o600);
      const content = await readFile(join(dir, "state", f), "utf8");
      expect(content.includes("tok-g"), f).toBe(f === "credentials.json");
    }

    const again = await openFileStore(dir);
    expectIdentical(again);
    await again.close();
  });

  it("a read-only open (bot status) reads an unmigrated file and leaves it where it is", async () => {
    const old = await writeOld();
    const reader = await openFileStore(dir, { readOnly: true });
    expectIdentical(reader);
    await reader.close();
    expect(await readdir(dir)).toEqual(["state.json"]);
    expect((await stat(old)).isFile()).toBe(true);
  });

  it("a migration cut off before its end is done again from the old file", async () => {
    await writeOld();
    // What a crash while writing the new files leaves: a partial temporary directory.
    await mkdir(join(dir, "state.migrating", "bots"), { recursive: true });
    await writeFile(join(dir, "state.migrating", "bots", "greeter.json"), "{half");
    const store = await openFileStore(dir);
    expectIdentical(store);
    await store.close();
    expect((await readdir(dir)).filter((n) => !n.startsWith("state.json.migrated-")).sort()).toEqual(["state"]);
  });

  it("with both the directory and an old file, keeps the directory and moves the old file aside, saying so", async () => {
    const first = await openFileStore(dir);
    first.set("kv:greeter", "count", 99);
    await first.close();
    await writeOld(); // an older postbot ran here since
    const { lines, logger } = captureLogs();
    const store = await openFileStore(dir, { logger });
    expect(store.get("kv:greeter", "count")).toBe(99);
    await store.close();
    expect((await readdir(dir)).some((n) => n.startsWith("state.json.migrated-"))).toBe(true);
    expect(lines.find((l) => l.level === 40 && String(l.msg).startsWith("found both"))).toBeDefined();
  });

  it("a corrupt old file is refused with its name and the line, and nothing is migrated", async () => {
    const path = join(dir, "state.json");
    await writeFile(path, '{\n  "version": 1,\n  "namespaces": {\n    "ledger": [["a", 1]\n  }\n}\n');
    await expect(openFileStore(dir)).rejects.toThrow(
      new RegExp(`${path.replace(/[.]/g, "\\.")} is not a valid postbot state file .*line 5`),
    );
    expect(await readdir(dir)).toEqual(["state.json"]);
  });

  it("makes a loose old file private before keeping it", async () => {
    await writeOld();
    await chmod(join(dir, "state.json"), 0o644);
    const store = await openFileStore(dir);
    await store.close();
    const kept = (await readdir(dir)).find((n) => n.startsWith("state.json.migrated-"))!;
    expect((await stat(join(dir, kept))).mode & 0o777).toBe(0o600);
  });
});
