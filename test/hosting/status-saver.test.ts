/**
 * The status saver gathers a bot's status only when its cheap mark changed since it was last
 * gathered, or when the runtime stops, and writes it only when it changed: an idle process
 * holding thousands of bots writes one record a round (its own: until when the statuses it
 * saved are current), whatever its number of bots, and `bot status` reads a bot saved long
 * ago as current while its saver's rounds go on.
 */
import { describe, expect, it, vi } from "vitest";
import { createClock } from "../../src/clock.ts";
import { provisionBots } from "../../src/hosting/provision.ts";
import { startRuntime } from "../../src/hosting/runtime.ts";
import { collectStatus, formatStatus } from "../../src/hosting/status-report.ts";
import {
  StatusSaver,
  STATUS_EVERY_MS,
  STATUS_ROUNDS_NAMESPACE,
  type StatusRound,
} from "../../src/hosting/status-saver.ts";
import { silentLogger } from "../../src/log.ts";
import { ActionQueue } from "../../src/actions/mechanics/budget-queue.ts";
import { BotRuntime } from "../../src/runtime/bot.ts";
import { Liveness } from "../../src/runtime/liveness.ts";
import type { BotStatus } from "../../src/runtime/types.ts";
import { createSandbox } from "../../src/sandbox/index.ts";
import { createMemoryStore, type Store } from "../../src/store/store.ts";
import { testBotConfig } from "../../src/testing.ts";

const BOTS = 32;

/** The keys written under `namespace` from now on (set, adopt or delete). */
function writesTo(store: Store, namespace: string): string[] {
  const keys: string[] = [];
  const watch = <F extends (ns: string, key: string, ...rest: never[]) => unknown>(f: F): F =>
    ((ns: string, key: string, ...rest: never[]) => {
      if (ns === namespace) keys.push(key);
      return f(ns, key, ...rest);
    }) as F;
  store.set = watch(store.set.bind(store));
  store.delete = watch(store.delete.bind(store));
  if (store.adopt) store.adopt = watch(store.adopt.bind(store));
  return keys;
}

function saverOf(
  marks: Map<string, number | undefined>,
  more: { still?: (name: string) => boolean; looked?: string[] } = {},
) {
  const clock = createClock({ frozen: true, start: Date.parse("2026-01-01T00:00:00Z") });
  const store = createMemoryStore();
  const gathered: string[] = [];
  const inbox = new Map<string, number>();
  /** The last status each bot's status() made. */
  const made = new Map<string, BotStatus>();
  const saver = new StatusSaver({
    store,
    clock,
    logger: silentLogger,
    everyMs: 15_000,
    names: () => [...marks.keys()],
    status(name): BotStatus | undefined {
      if (!marks.has(name)) return undefined;
      gathered.push(name);
      const status: BotStatus = {
        bot: name,
        appId: "app",
        userId: "1",
        username: name,
        plan: "pro",
        triggers: {},
        inbox: inbox.get(name) ?? 0,
        updatedAt: clock.now(),
      };
      made.set(name, status);
      return status;
    },
    mark: (name) => {
      more.looked?.push(name);
      return marks.get(name);
    },
    ...(more.still ? { still: more.still } : {}),
    apps: () => [],
  });
  return { saver, store, gathered, inbox, clock, made };
}

describe("status saver", () => {
  it("gathers and writes no unchanged bot's status, a changed one's at once, and its own round each time", async () => {
    const names = Array.from({ length: BOTS }, (_, i) => `bot${i}`);
    const marks = new Map<string, number | undefined>(names.map((n) => [n, 0]));
    const { saver, store, gathered, inbox, clock } = saverOf(marks);
    await saver.save();
    expect(gathered).toHaveLength(BOTS);
    expect(store.get<BotStatus>("status", "bot0")?.savedBy).toBe(saver.id);

    const written = writesTo(store, "status");
    gathered.length = 0;
    for (let round = 0; round < 10; round++) {
      await clock.advance(STATUS_EVERY_MS);
      await saver.save();
    }
    expect(gathered).toEqual([]);
    expect(written).toEqual([]);
    expect(store.get<StatusRound>(STATUS_ROUNDS_NAMESPACE, saver.id)?.at).toBe(clock.now());

    const changed = "bot5";
    marks.set(changed, 1);
    inbox.set(changed, 3);
    await saver.save();
    expect(gathered).toEqual([changed]);
    expect(written).toEqual([changed]);
    expect(store.get<BotStatus>("status", changed)?.inbox).toBe(3);
  });

  it("keeps the status it gathered, not a copy, with its id, its time, and nothing of it changed", async () => {
    const marks = new Map<string, number | undefined>([["bot0", undefined]]);
    const { saver, store, made, inbox, clock } = saverOf(marks);
    await saver.save();
    const first = made.get("bot0")!;
    // The very object: a round after a start saves every bot, and a copy of each was garbage.
    expect(store.get<BotStatus>("status", "bot0")).toBe(first);
    expect(first).toMatchObject({ savedBy: saver.id, updatedAt: clock.now(), inbox: 0 });
    // Its time is no change: gathered again a round later, not saved again.
    await clock.advance(STATUS_EVERY_MS);
    await saver.save();
    expect(store.get<BotStatus>("status", "bot0")).toBe(first);
    inbox.set("bot0", 2);
    await saver.save();
    expect(store.get<BotStatus>("status", "bot0")).toBe(made.get("bot0"));
    expect(store.get<BotStatus>("status", "bot0")).toMatchObject({ inbox: 2, savedBy: saver.id });
  });

  it("always gathers a bot without a mark (written only if it changed), and every bot when the runtime stops", async () => {
    const marks = new Map<string, number | undefined>([
      ["marked", 0],
      ["unmarked", undefined],
    ]);
    const { saver, store, gathered } = saverOf(marks);
    await saver.save();
    const written = writesTo(store, "status");
    gathered.length = 0;
    await saver.save();
    await saver.save();
    expect(gathered).toEqual(["unmarked", "unmarked"]);
    expect(written).toEqual([]);

    gathered.length = 0;
    await saver.save(1234);
    expect(gathered.sort()).toEqual(["marked", "unmarked"]);
    expect(store.get<BotStatus>("status", "marked")?.stoppedAt).toBe(1234);
    expect(store.get<BotStatus>("status", "marked")?.savedBy).toBeUndefined();
    expect(store.entries(STATUS_ROUNDS_NAMESPACE)).toEqual([]);
  });

  it("bot status reads an unchanged bot as current while its saver's rounds go on, and not once they stop", async () => {
    const marks = new Map<string, number | undefined>([["quiet", 0]]);
    const { saver, store, clock } = saverOf(marks);
    await saver.save();
    const savedAt = clock.now();
    for (let round = 0; round < 20; round++) {
      await clock.advance(STATUS_EVERY_MS);
      await saver.save();
    }
    expect(store.get<BotStatus>("status", "quiet")?.updatedAt).toBe(savedAt);
    const [report] = collectStatus(store, clock);
    expect(report?.updatedAt).toBe(clock.now());
    expect(report).not.toHaveProperty("savedBy");
    expect(formatStatus([report!], clock.now() + 4_000)).toContain("quiet  @quiet  pro  running (status saved 4s ago)");

    // Its process went away without stopping: its rounds end, the status grows old.
    await clock.advance(5 * 60_000);
    expect(formatStatus(collectStatus(store, clock), clock.now())).toContain(
      "quiet  @quiet  pro  running as of 5m ago: no status saved since",
    );
  });

  it("given still, a round looks only at the bots told changed and those not still, until they are", async () => {
    const names = Array.from({ length: BOTS }, (_, i) => `bot${i}`);
    const marks = new Map<string, number | undefined>(names.map((n) => [n, 0]));
    const still = new Map<string, boolean>(names.map((n) => [n, true]));
    const looked: string[] = [];
    const { saver, store, gathered, inbox } = saverOf(marks, {
      still: (name) => still.get(name) ?? true,
      looked,
    });
    await saver.save(); // the first round: every bot
    expect(looked).toHaveLength(BOTS);
    looked.length = 0;
    gathered.length = 0;
    await saver.save();
    await saver.save();
    expect(looked).toEqual([]);

    // Told: looked at (its mark moved: gathered and saved); not still: looked at every round.
    marks.set("bot3", 1);
    inbox.set("bot3", 2);
    still.set("bot3", false);
    saver.changed("bot3");
    await saver.save();
    expect(gathered).toEqual(["bot3"]);
    expect(store.get<BotStatus>("status", "bot3")?.inbox).toBe(2);
    await saver.save();
    expect(looked).toEqual(["bot3", "bot3"]);
    // Still again (its inbox handled): saved as it is then, and no longer looked at.
    marks.set("bot3", 2);
    inbox.set("bot3", 0);
    still.set("bot3", true);
    await saver.save();
    expect(store.get<BotStatus>("status", "bot3")?.inbox).toBe(0);
    looked.length = 0;
    await saver.save();
    expect(looked).toEqual([]);

    // One gone: forgotten; told of again once it is back, saved afresh.
    marks.delete("bot4");
    saver.changed("bot4");
    await saver.save();
    marks.set("bot4", 0);
    gathered.length = 0;
    saver.changed("bot4");
    await saver.save();
    expect(gathered).toEqual(["bot4"]);
  });

  it("drops the round record of a saver gone for more than a week when another starts", async () => {
    const { saver, store, clock } = saverOf(new Map());
    store.set<StatusRound>(STATUS_ROUNDS_NAMESPACE, "gone", { at: clock.now() - 8 * 24 * 3_600_000 });
    store.set<StatusRound>(STATUS_ROUNDS_NAMESPACE, "recent", { at: clock.now() - 3_600_000 });
    await saver.save();
    expect(
      store
        .entries(STATUS_ROUNDS_NAMESPACE)
        .map(([id]) => id)
        .sort(),
    ).toEqual([saver.id, "recent"].sort());
  });

  it("a bot's liveness revision moves with every check and event", () => {
    const liveness = new Liveness(createClock({ frozen: true, start: 0 }));
    const before = liveness.revision;
    liveness.touch("mentions");
    liveness.touch("mentions", true);
    expect(liveness.revision).toBe(before + 2);
  });

  it("of a runtime's idle bots, gathers and writes none once saved", async () => {
    const clock = createClock({ frozen: true, start: Date.parse("2026-03-02T12:00:00Z") });
    const sandbox = await createSandbox({ clock });
    const hosted = await provisionBots(
      sandbox,
      Array.from({ length: 16 }, (_, i) =>
        testBotConfig({ name: `idle${i}`, plan: "pro", triggers: {}, plugins: {} }, {}),
      ),
    );
    const status = vi.spyOn(BotRuntime.prototype, "status");
    const mark = vi.spyOn(BotRuntime.prototype, "statusMark");
    const store = createMemoryStore();
    const runtime = await startRuntime({
      baseUrl: sandbox.url,
      bots: hosted,
      store,
      clock,
      logger: silentLogger,
    });
    try {
      await clock.advance(STATUS_EVERY_MS);
      await runtime.idle();
      const before = status.mock.calls.length;
      const marked = mark.mock.calls.length;
      const written = writesTo(store, "status");
      for (let round = 0; round < 9; round++) {
        await clock.advance(STATUS_EVERY_MS);
        await runtime.idle();
      }
      // Sixteen unchanged bots: none gathered, none written (9 rounds: each bot had a turn before).
      expect(status.mock.calls.length - before).toBe(0);
      expect(written).toEqual([]);
      // Nor looked at: a round's work does not grow with the number of idle bots.
      expect(mark.mock.calls.length - marked).toBe(0);

      // A check of its trigger (a poll, the stream connecting) is a change: saved at the next round.
      runtime.bots.get("idle3")!.touch("mentions");
      const checkedAt = clock.now();
      await clock.advance(STATUS_EVERY_MS);
      await runtime.idle();
      expect(written).toEqual(["idle3"]);
      expect(store.get<BotStatus>("status", "idle3")?.triggers.mentions?.lastCheckAt).toBe(checkedAt);
    } finally {
      await runtime.stop();
      await sandbox.close();
      status.mockRestore();
      mark.mockRestore();
    }
  });
});

describe("status saver, bots waiting for budget", () => {
  it("lists a bot's waiting requests once a round, for its status alone", async () => {
    const clock = createClock({ frozen: true, start: Date.parse("2026-03-02T12:00:00Z") });
    const sandbox = await createSandbox({ clock });
    // The app's mentions window (15 a quarter on basic) spent by the first 15 bots' polls: the other 5 wait.
    const hosted = await provisionBots(
      sandbox,
      Array.from({ length: 20 }, (_, i) =>
        testBotConfig({ name: `poller${i}`, plan: "basic", triggers: { mentions: {} }, plugins: {} }, {}),
      ),
    );
    const list = vi.spyOn(ActionQueue.prototype, "list");
    const store = createMemoryStore();
    const runtime = await startRuntime({ baseUrl: sandbox.url, bots: hosted, store, clock, logger: silentLogger });
    try {
      await clock.advance(STATUS_EVERY_MS);
      await runtime.idle();
      const waiting = [...runtime.bots.keys()].filter((name) => runtime.bots.get(name)!.status().waiting?.length);
      expect(waiting.length).toBeGreaterThan(0);
      list.mockClear();
      await clock.advance(STATUS_EVERY_MS);
      await runtime.idle();
      // A bot's waiting requests listed once a round, for its status saved (and so its
      // budget asked once): not again for its mark, nor for whether it is still.
      const asked = list.mock.calls.map(([bot]) => bot).filter((bot) => bot !== undefined);
      expect(asked).toEqual(expect.arrayContaining(waiting));
      expect(asked).toHaveLength(new Set(asked).size);
      for (const name of waiting) expect(store.get<BotStatus>("status", name)?.waiting).toHaveLength(1);
    } finally {
      await runtime.stop();
      await sandbox.close();
      list.mockRestore();
    }
  });
});
