/**
 * The status saver gathers a bot's status only when its cheap mark changed since it was last
 * gathered, or when its turn comes (once in a few rounds), or when the runtime stops: an idle
 * process holding thousands of bots no longer builds and fingerprints every status every round.
 */
import { describe, expect, it, vi } from "vitest";
import { createClock } from "../../src/clock.ts";
import { provisionBots } from "../../src/hosting/provision.ts";
import { startRuntime } from "../../src/hosting/runtime.ts";
import { StatusSaver, STATUS_EVERY_MS } from "../../src/hosting/status-saver.ts";
import { silentLogger } from "../../src/log.ts";
import { BotRuntime } from "../../src/runtime/bot.ts";
import { Liveness } from "../../src/runtime/liveness.ts";
import type { BotStatus } from "../../src/runtime/types.ts";
import { createSandbox } from "../../src/sandbox/index.ts";
import { createMemoryStore } from "../../src/store/store.ts";
import { testBotConfig } from "../../src/testing.ts";

const BOTS = 32;

function saverOf(marks: Map<string, string | undefined>) {
  const clock = createClock({ frozen: true, start: Date.parse("2026-01-01T00:00:00Z") });
  const store = createMemoryStore();
  const gathered: string[] = [];
  const inbox = new Map<string, number>();
  const saver = new StatusSaver({
    store,
    clock,
    logger: silentLogger,
    everyMs: 15_000,
    names: () => [...marks.keys()],
    status(name): BotStatus {
      gathered.push(name);
      return {
        bot: name,
        appId: "app",
        userId: "1",
        username: name,
        plan: "pro",
        triggers: {},
        inbox: inbox.get(name) ?? 0,
        updatedAt: clock.now(),
      };
    },
    mark: (name) => marks.get(name),
    apps: () => [],
  });
  return { saver, store, gathered, inbox };
}

describe("status saver", () => {
  it("gathers an unchanged bot's status only on its turn, a changed one at once", async () => {
    const names = Array.from({ length: BOTS }, (_, i) => `bot${i}`);
    const marks = new Map<string, string | undefined>(names.map((n) => [n, "m0"]));
    const { saver, store, gathered, inbox } = saverOf(marks);
    await saver.save();
    expect(gathered).toHaveLength(BOTS);

    gathered.length = 0;
    await saver.save();
    // Only those whose turn it is (one in eight), none of them unchanged otherwise.
    expect(gathered.length).toBe(BOTS / 8);

    gathered.length = 0;
    const changed = "bot5";
    marks.set(changed, "m1");
    inbox.set(changed, 3);
    await saver.save();
    expect(gathered).toContain(changed);
    expect(store.get<BotStatus>("status", changed)?.inbox).toBe(3);
  });

  it("always gathers a bot without a mark, and every bot when the runtime stops", async () => {
    const marks = new Map<string, string | undefined>([
      ["marked", "m0"],
      ["unmarked", undefined],
    ]);
    const { saver, store, gathered } = saverOf(marks);
    await saver.save();
    gathered.length = 0;
    await saver.save(); // round 1: the turn of neither (turns go by position: 0 and 1 of 8)
    await saver.save();
    expect(gathered.filter((n) => n === "unmarked")).toHaveLength(2);
    expect(gathered.filter((n) => n === "marked")).toHaveLength(0);

    gathered.length = 0;
    await saver.save(1234);
    expect(gathered.sort()).toEqual(["marked", "unmarked"]);
    expect(store.get<BotStatus>("status", "marked")?.stoppedAt).toBe(1234);
  });

  it("a bot's liveness revision moves with every check and event", () => {
    const liveness = new Liveness(createClock({ frozen: true, start: 0 }));
    const before = liveness.revision;
    liveness.touch("mentions");
    liveness.touch("mentions", true);
    expect(liveness.revision).toBe(before + 2);
  });

  it("of a runtime's idle bots, gathers each only on its turn", async () => {
    const clock = createClock({ frozen: true, start: Date.parse("2026-03-02T12:00:00Z") });
    const sandbox = await createSandbox({ clock });
    const hosted = await provisionBots(
      sandbox,
      Array.from({ length: 16 }, (_, i) =>
        testBotConfig({ name: `idle${i}`, plan: "pro", triggers: {}, plugins: {} }, {}),
      ),
    );
    const status = vi.spyOn(BotRuntime.prototype, "status");
    const runtime = await startRuntime({
      baseUrl: sandbox.url,
      bots: hosted,
      store: createMemoryStore(),
      clock,
      logger: silentLogger,
    });
    try {
      await clock.advance(STATUS_EVERY_MS);
      await runtime.idle();
      const before = status.mock.calls.length;
      await clock.advance(STATUS_EVERY_MS);
      await runtime.idle();
      // Two of the sixteen have their turn in a round; the others are unchanged.
      expect(status.mock.calls.length - before).toBe(2);
    } finally {
      await runtime.stop();
      await sandbox.close();
      status.mockRestore();
    }
  });
});
