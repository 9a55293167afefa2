/**
 * `bot status` in words a person reads: counts agree with their nouns, an action names what
 * it acted on (never a post's internal key, never a DM's hash), and a running bot carries no
 * warning unless its status has not been saved for three rounds.
 */
import { describe, expect, it } from "vitest";
import { formatStatus, type BotReport } from "../../src/hosting/status-report.ts";

const NOW = Date.parse("2026-03-02T12:00:00Z");

const bot = (over: Partial<BotReport> = {}): BotReport => ({
  bot: "greeter",
  appId: "7",
  userId: "42",
  username: "greeter",
  plan: "pro",
  triggers: { mentions: { lastCheckAt: NOW - 4_000, lastEventAt: NOW - 4_000, events: 1 } },
  inbox: 1,
  updatedAt: NOW - 4_000,
  cursors: {},
  ...over,
});

describe("bot status in words", () => {
  it("agrees counts with nouns, and says nothing alarming of a running bot saved a moment ago", () => {
    const text = formatStatus(
      [
        bot({
          app: {
            appId: "7",
            plan: "pro",
            bots: 1,
            capacity: [],
            updatedAt: NOW,
            stream: {
              state: "connected",
              since: NOW - 60_000,
              connects: 1,
              reconnects: 1,
              posts: 1,
              lastPostAt: NOW - 1_000,
              rules: { own: 2, mentions: 1 },
              mentionBots: 1,
              gaps: { count: 0, recovered: 0 },
            },
          },
        }),
      ],
      NOW,
    );
    expect(text).toContain(
      "  stream     connected since 1m ago; 1 reconnect, 1 post, last post 1s ago; rules: 2 for the bots' stream triggers, 1 for the mentions of 1 bot",
    );
    expect(text).toContain("greeter  @greeter  pro  running (status saved 4s ago)\n");
    expect(text).toMatch(/^ {2}mentions +last check 4s ago +last event 4s ago +1 event$/m);
    expect(text).toContain("  inbox      1 event waiting to be handled");
    expect(text).not.toMatch(/\b1 (events|bots|reconnects|posts)\b/);
  });

  it("says a running bot's status is old only when three rounds have passed without one", () => {
    const text = formatStatus([bot({ updatedAt: NOW - 5 * 60_000 })], NOW);
    expect(text).toContain(
      "greeter  @greeter  pro  running as of 5m ago: no status saved since, so if postbot is not running, it stopped without saving",
    );
  });

  it("names what an action acted on: the user of a DM (not its key), no target for a post", () => {
    const last = (kind: string, target: string) =>
      formatStatus([bot({ lastAction: { kind, target, state: "done", at: NOW - 60_000 } })], NOW)
        .split("\n")
        .find((l) => l.startsWith("  last "));
    expect(last("dm", "2126302942599315464:737d2a736dfbf6dd")).toBe(
      "  last       dm to user 2126302942599315464: sent 1m ago",
    );
    expect(last("post", "7fd7cd4a012d427a")).toBe("  last       post: sent 1m ago");
    expect(last("reply", "123")).toBe("  last       reply to post 123: sent 1m ago");
    expect(last("like", "123")).toBe("  last       like of post 123: sent 1m ago");
    expect(last("follow", "42")).toBe("  last       follow of user 42: sent 1m ago");
    expect(last("hide", "123")).toBe("  last       hide of post 123: sent 1m ago");
    expect(last("hide", "123:unhide")).toBe("  last       unhide of post 123: sent 1m ago");
  });
});

describe("bot status: the model's budget", () => {
  it("says what the bot's model may still use of its budget.llm, when a spent window refills, and the replies waiting for it", () => {
    const text = formatStatus(
      [
        bot({
          budget: { bot: "greeter", plan: "pro", actions: {} as never },
          llm: {
            tokens: { used: 1_790, limit: 50_000, windowMs: 86_400_000, resetAt: NOW + 3_600_000 },
            requests: { used: 30, limit: 30, windowMs: 60_000, resetAt: NOW + 20_000 },
            waiting: 1,
          },
        }),
      ],
      NOW,
    );
    expect(text.split("\n")).toContain(
      "  llm        tokens 48,210 of 50,000 left per 1d, requests 0 of 30 left per 1m (more in 20s), 1 reply waiting for it",
    );
  });
});
