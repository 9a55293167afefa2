/**
 * `bot review` reads its time from the clock it is given: how long ago each reply came, and
 * when a decision was made (the request file's `at`), on a frozen clock far from today.
 */
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createClock } from "../../src/clock.ts";
import { review } from "../../src/cli/review.ts";
import { reviewRequestsDir } from "../../src/hosting/review-requests.ts";
import { ReviewQueue } from "../../src/plugins/review-queue.ts";
import { openFileStore } from "../../src/store/index.ts";

const START = Date.parse("2021-03-04T05:06:07Z");
let data: string;

beforeEach(async () => {
  data = await mkdtemp(join(tmpdir(), "postbot-review-clock-"));
  const store = await openFileStore(data);
  store.set("status", "host", { bot: "host", updatedAt: 0 });
  new ReviewQueue(store, "host").add({
    author: { id: "7", username: "alice" },
    conversation: "100",
    inReplyTo: "100",
    source: "built-in",
    evidence: 0.7,
    score: 0.7,
    post: "101",
    text: "@host you're an idiot",
    at: START - 20 * 60_000,
    state: "hidden",
    listed: "hidden",
    rule: "insult:idiot",
    match: "you're an idiot",
    reasons: [],
  });
  await store.close();
});
afterEach(async () => {
  vi.restoreAllMocks();
  await rm(data, { recursive: true, force: true });
});

/** What `review` printed while it ran. */
async function printed(run: () => Promise<void>): Promise<string> {
  let out = "";
  vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
    out += String(chunk);
    return true;
  });
  try {
    await run();
  } finally {
    vi.restoreAllMocks();
  }
  return out;
}

describe("bot review on the clock it is given", () => {
  it("says how long ago a reply came by the clock, not the machine's time", async () => {
    const clock = createClock({ frozen: true, start: START });
    const out = await printed(() => review(undefined, undefined, { data }, clock));
    expect(out).toContain("host: reply 101 by @alice, 20m ago: hidden");
  });

  it("dates a decision by the clock", async () => {
    const clock = createClock({ frozen: true, start: START });
    await printed(() => review("unhide", "101", { data }, clock));
    const [file] = await readdir(reviewRequestsDir(data));
    expect(JSON.parse(await readFile(join(reviewRequestsDir(data), file!), "utf8"))).toMatchObject({
      post: "101",
      decision: "unhide",
      at: START,
    });
  });
});
