/**
 * Which file each value lives in, checked against the key formats of the real callers (the
 * action layer, the inbox, the triggers' cursors), so a change of one of them that would
 * spread a bot's state over other files shows here.
 */
import { mkdtemp, readFile, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { seedInbox } from "../helpers/inbox.ts";
import { openFileStore } from "../../src/store/file-store.ts";
import { defaultShardRule, fileNameOf } from "../../src/store/shards.ts";
import { mentionsCursorKey } from "../../src/triggers/mentions.ts";
import { followersCursorKey } from "../../src/triggers/followers.ts";
import { recordingExecutor, setup } from "../actions/helpers.ts";

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "postbot-shards-"));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe("the shard rule", () => {
  it("puts a bot's inbox and its cursors in the bot's own file, so they are written together", () => {
    const bot = "greeter";
    const file = defaultShardRule(`inbox:${bot}`, "mention:1");
    expect(file).toBe("bots/greeter.json");
    expect(defaultShardRule("cursors", mentionsCursorKey(bot))).toBe(file);
    expect(defaultShardRule("cursors", followersCursorKey(bot))).toBe(file);
    expect(defaultShardRule(`kv:${bot}`, "anything")).toBe(file);
    expect(defaultShardRule(`hidden:${bot}`, "55")).toBe(file);
    expect(defaultShardRule("identity", bot)).toBe(file);
  });

  it("sends tokens to credentials.json, budgets to their account or app, the unknown to shared.json", () => {
    expect(defaultShardRule("auth:accounts", "greeter")).toBe("credentials.json");
    expect(defaultShardRule("auth:app-tokens", "http://x ck")).toBe("credentials.json");
    expect(defaultShardRule("budget.windows", "POST /2/posts|u:42|15min")).toBe("accounts/42.json");
    expect(defaultShardRule("budget.pauses", "POST /2/posts|a:app1")).toBe("apps/app1.json");
    expect(defaultShardRule("budget.usage", "app1")).toBe("apps/app1.json");
    expect(defaultShardRule("status", "greeter")).toBe("status.json");
    expect(defaultShardRule("somebody's", "thing")).toBe("shared.json");
    expect(defaultShardRule("ledger", "no-colon")).toBe("shared.json");
  });

  it("makes any name a safe, distinct file name", () => {
    expect(fileNameOf("greeter-2")).toBe("greeter-2");
    expect(fileNameOf("../etc")).toBe("~2e~2e~2fetc");
    expect(fileNameOf("a.b")).toBe("a~2eb");
    expect(fileNameOf("a~2eb")).toBe("a~7e2eb"); // the escape itself is escaped: never the same file
    expect(defaultShardRule("kv:..", "x")).toBe("bots/~2e~2e.json");
    expect(defaultShardRule("kv:", "x")).toBe("shared.json");
  });

  it("one action through the real action layer changes only its bot's, account's and app's files", async () => {
    const dir = join(root, "data");
    const first = setup({ store: await openFileStore(dir) });
    const other = first.system.bot({
      bot: "other",
      account: { appId: "app1", userId: "7", plan: "pro" },
      executor: recordingExecutor(first.clock).executor,
    });
    expect((await other.like("1")).status).toBe("sent");
    await first.system.idle();
    await first.store.close();
    const untouched = ["bots/other.json", "accounts/7.json"];
    const before = await Promise.all(untouched.map((f) => readFile(join(dir, "state", f), "utf8")));

    const store = await openFileStore(dir);
    const { system, clock } = setup({ store, clock: first.clock });
    const bot = system.bot({
      bot: "greeter",
      account: { appId: "app1", userId: "42", plan: "pro" },
      executor: recordingExecutor(clock).executor,
      budget: { reply: { max: 10, per: 3_600_000 } },
    });
    expect((await bot.reply({ id: "10", created_at: new Date(clock.now()).toISOString() }, "hi")).status).toBe("sent");
    await system.idle();
    await store.close();
    expect(await Promise.all(untouched.map((f) => readFile(join(dir, "state", f), "utf8")))).toEqual(before);
    expect((await readdir(join(dir, "state"), { recursive: true })).map(String).sort()).toEqual([
      "accounts",
      "accounts/42.json",
      "accounts/7.json",
      "apps",
      "apps/app1.json",
      "bots",
      "bots/greeter.json",
      "bots/other.json",
    ]); // nothing fell into shared.json
  });

  it("an inbox add and a cursor move are one journal line, and then one file", async () => {
    const store = await openFileStore(join(root, "data"));
    seedInbox(store, "greeter", [{ kind: "mention", id: "mention:1" } as never]);
    store.set("cursors", mentionsCursorKey("greeter"), { since_id: "1" });
    await store.flush();
    expect([store.writes, store.filesWritten]).toEqual([1, 1]);
    await store.close();
    expect(store.filesWritten).toBe(2); // the line, then greeter's file
  });
});
