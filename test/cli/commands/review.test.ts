/**
 * `bot review` as a user runs it: the list read from the state (without writing it), a
 * decision handed to `bot start` as a request file, and clear refusals.
 */
import { mkdtemp, readdir, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { reviewRequestsDir } from "../../../src/hosting/review-requests.ts";
import { RingRecord } from "../../../src/moderation/index.ts";
import { botStore } from "../../../src/plugins/context.ts";
import { ReviewQueue } from "../../../src/plugins/review-queue.ts";
import { openFileStore } from "../../../src/store/index.ts";
import { killBots, runBot } from "../../helpers/cli.ts";

let data: string;
beforeEach(async () => {
  data = await mkdtemp(join(tmpdir(), "postbot-review-cli-"));
  const store = await openFileStore(data);
  store.set("status", "host", { bot: "host", updatedAt: 0 });
  const review = new ReviewQueue(store, "host");
  const item = {
    author: { id: "7", username: "alice" },
    conversation: "100",
    inReplyTo: "100",
    source: "built-in" as const,
    evidence: 0.7,
    score: 0.7,
  };
  review.add({
    ...item,
    post: "101",
    text: "@host you're an idiot",
    at: Date.now() - 20 * 60_000,
    state: "hidden",
    listed: "hidden",
    rule: "insult:idiot",
    match: "you're an idiot",
    reasons: ["unsure: evidence 0.7 in [0.3, 0.75)"],
  });
  review.add({
    ...item,
    post: "102",
    text: "@host get lost clown 😂",
    at: Date.now() - 10 * 60_000,
    state: "visible",
    listed: "unsure",
    // No rule fired; the model's probability put it in the unsure band.
    score: 0,
    evidence: 0.392,
    reasons: ["unsure: evidence 0.392 in [0.3, 0.75)"],
  });
  review.decide("102", { decision: "keep", by: "cli:op", at: Date.now() - 5 * 60_000, status: "none" });
  await store.close();
});
afterEach(async () => {
  await killBots();
  await rm(data, { recursive: true, force: true });
});

describe("bot review", () => {
  it("lists the replies with why and any decision, newest first, and as JSON", async () => {
    const run = await runBot(["review", "--data", data]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(
      [
        `host: reply 102 by @alice, 10m ago: unsure, visible (built-in: evidence 0.392 from the model, rule score 0)`,
        `  "@host get lost clown 😂"`,
        `  unsure: evidence 0.392 in [0.3, 0.75)`,
        `  decided: keep by cli:op, 5m ago (none)`,
        `host: reply 101 by @alice, 20m ago: hidden (built-in: insult:idiot matched "you're an idiot")`,
        `  "@host you're an idiot"`,
        `  unsure: evidence 0.7 in [0.3, 0.75)`,
        `  decide: bot review hide|unhide|keep 101`,
        "",
      ].join("\n"),
    );
    const open = await runBot(["review", "--open", "--json", "--data", data]);
    expect((JSON.parse(open.stdout) as Array<{ post: string }>).map((i) => i.post)).toEqual(["101"]);
  });

  it("hands a decision to bot start as a request file, and refuses what it cannot do with what to write", async () => {
    const run = await runBot(["review", "unhide", "101", "--data", data]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("unhide of host's reply 101 by @alice: handed to bot start");
    const [file] = await readdir(reviewRequestsDir(data));
    // As private as the rest of the data directory.
    expect((await stat(reviewRequestsDir(data))).mode & 0o777).toBe(0o700);
    expect(JSON.parse(await readFile(join(reviewRequestsDir(data), file!), "utf8"))).toMatchObject({
      bot: "host",
      post: "101",
      decision: "unhide",
    });

    const bad = await runBot(["review", "frob", "101", "--data", data]);
    expect([bad.code, bad.stderr]).toEqual([
      2,
      `bot: "frob" is not a decision: write bot review hide|unhide|keep POST_ID, or bot review to list\n`,
    ]);
    const unknown = await runBot(["review", "hide", "999", "--data", data]);
    expect([unknown.code, unknown.stderr]).toEqual([
      1,
      "bot: post 999 is not on any bot's review list; bot review lists them\n",
    ]);
    const none = await runBot(["review", "--data", join(data, "nothing")]);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain("no state in");
  });

  it("lists what the moderate plugin kept in its own state before 0.2, without moving it", async () => {
    const old = join(data, "before");
    const store = await openFileStore(old);
    store.set("status", "host", { bot: "host", updatedAt: 0 });
    // As the plugin wrote its list then: a ring of keys in the bot's key-value state.
    new RingRecord(botStore(store, "host"), "moderate:review", 500).set("201", {
      post: "201",
      author: { id: "7", username: "alice" },
      text: "@host you're an idiot",
      conversation: "100",
      inReplyTo: "100",
      at: Date.now() - 60_000,
      state: "hidden",
      listed: "hidden",
      source: "built-in",
      rule: "insult:idiot",
      match: "you're an idiot",
      score: 0.7,
      evidence: 0.7,
      reasons: [],
    });
    await store.close();
    const run = await runBot(["review", "--open", "--json", "--data", old]);
    expect([run.code, run.stderr]).toEqual([0, ""]);
    expect((JSON.parse(run.stdout) as Array<{ post: string; bot: string }>).map((i) => [i.bot, i.post])).toEqual([
      ["host", "201"],
    ]);
    const after = await openFileStore(old);
    expect(after.entries("review:host")).toEqual([]);
    await after.close();
  });
});
