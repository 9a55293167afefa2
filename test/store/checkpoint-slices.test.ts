/**
 * A checkpoint takes the changed files' names at once and each file's contents only when its
 * turn comes, and writes a large file (status.json: every bot's status) in slices: what it
 * writes must still be the state, and the same text one JSON.stringify gives.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openFileStore } from "../../src/store/file-store.ts";
import { ShardedState } from "../../src/store/sharded-state.ts";
import { defaultShardRule } from "../../src/store/shards.ts";
import { stringifyStateFile, type StateFileData } from "../../src/store/state-file.ts";

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "postbot-slices-"));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe("stringifyStateFile", () => {
  it("gives exactly JSON.stringify's text for a file of thousands of entries in several namespaces", async () => {
    const namespaces: StateFileData["namespaces"] = {
      status: Array.from({ length: 3_000 }, (_, i) => [
        `bot-${i}`,
        {
          bot: `bot-${i}`,
          triggers: { mentions: { events: i, lastCheckAt: 1_700_000_000_000 + i } },
          note: i % 7 === 0 ? 'é "quoted" \n ✓' : null,
          gone: undefined,
        },
        i,
      ]),
      "status.apps": [["app1", { bots: 3_000, capacity: ["one", "two"] }, 3_000]],
      "old style": [
        ["a", [1, 2, 3]],
        ["b", undefined],
      ],
    };
    const data: StateFileData = { version: 2, namespaces };
    expect(await stringifyStateFile(data)).toBe(JSON.stringify(data));
    const small: StateFileData = { version: 2, namespaces: { kv: [["n", 1, 0]] } };
    expect(await stringifyStateFile(small)).toBe(JSON.stringify(small));
  });
});

describe("ShardedState.takeDirty / contents", () => {
  it("names the changed files and gives each one's contents as of when it is written, null once it is empty", () => {
    const state = new ShardedState(defaultShardRule);
    state.finishLoading();
    state.set("cursors", "greeter:mentions", { since_id: "1" });
    state.set("kv:other", "n", 1);
    expect(state.takeDirty().sort()).toEqual(["bots/greeter.json", "bots/other.json"]);
    expect(state.takeDirty()).toEqual([]);
    state.set("cursors", "greeter:mentions", { since_id: "2" }); // after the names were taken
    expect(state.contents("bots/greeter.json")).toEqual({
      version: 2,
      namespaces: { cursors: [["greeter:mentions", { since_id: "2" }, 0]] },
    });
    state.delete("kv:other", "n");
    expect(state.contents("bots/other.json")).toBeNull();
    expect(state.contents("bots/nobody.json")).toBeNull();
  });
});

describe("a checkpoint of a large file", () => {
  it("writes every bot's status to status.json in slices, and the state reads back whole", async () => {
    const dir = join(root, "data");
    const store = await openFileStore(dir);
    for (let i = 0; i < 2_000; i++)
      store.set("status", `bot-${i}`, { bot: `bot-${i}`, inbox: i, updatedAt: 1_700_000_000_000 + i });
    await store.close();
    const text = await readFile(join(dir, "state", "status.json"), "utf8");
    expect(text).toBe(JSON.stringify(JSON.parse(text)));
    const again = await openFileStore(dir);
    expect(again.entries("status")).toHaveLength(2_000);
    expect(again.get("status", "bot-1999")).toEqual({ bot: "bot-1999", inbox: 1999, updatedAt: 1_700_000_001_999 });
    await again.close();
  });
});
