import { describe, expect, it } from "vitest";
import { appLoad, capacityLines, humanInterval, LoadTally } from "../../src/hosting/capacity.ts";
import { pollerCounts, PollerTally } from "../../src/hosting/trigger-plan.ts";
import type { HostedBot } from "../../src/hosting/types.ts";

const load = { appId: "app1", mentionsPolled: 0, mentionsStreamed: 0, followers: 0, streamBots: 0, streamRules: 0 };

describe("capacity lines", () => {
  it("say how often each of many bots is polled, and what the stream would change", () => {
    expect(capacityLines({ ...load, plan: "basic", mentionsPolled: 1000 })).toEqual([
      "1,000 bots poll mentions on basic (app app1): each is polled every 16 h 40 min; pro delivers them through the stream",
    ]);
    const pro = capacityLines({
      ...load,
      plan: "pro",
      mentionsStreamed: 10_000,
      followers: 2,
      streamBots: 3,
      streamRules: 4,
      ruleCap: 1000,
    });
    expect(pro).toEqual([
      "10,000 bots get mentions through the stream of app app1 (pro) as they happen; the catch-up poll of each at start and after a reconnect takes up to 5 h 33 min for all",
      "2 bots poll followers on pro (app app1): each is polled every 60 s",
      "3 bots share the stream of app app1 for their own 4 rules of the 1000 the plan allows",
    ]);
    expect(capacityLines({ ...load, plan: "pro", mentionsPolled: 1 })[0]).toMatch(
      /^1 bot polls mentions on pro .*every 3 s; mentions: \{via: stream\}/,
    );
    expect(capacityLines({ ...load, plan: "pro" })).toEqual([]);
    expect([humanInterval(3_000), humanInterval(600_000), humanInterval(7_200_000)]).toEqual(["3 s", "10 min", "2 h"]);
  });

  it("say what the plan means for direct messages: once a day on basic, every minute on pro", () => {
    expect(capacityLines({ ...load, plan: "basic", dms: 1 })).toEqual([
      "1 bot reads direct messages on basic (app app1): basic: DMs are checked once a day for each bot, in its own window; pro checks them every minute",
    ]);
    expect(capacityLines({ ...load, plan: "pro", dms: 3 })).toEqual([
      "3 bots read direct messages on pro (app app1): pro: DMs are checked every minute for each bot, in its own window",
    ]);
  });
});

describe("an app's load and pollers, counted as its bots come and go", () => {
  const app = { id: "app1", key: "k", secret: "s", plan: "pro" as const };
  const bot = (name: string, triggers: Record<string, unknown>): HostedBot =>
    ({
      config: { name, file: `bots/${name}.yaml`, plan: "pro", triggers: { stream: [], schedule: [], ...triggers } },
      app,
      token: { token: "t", secret: "s" },
    }) as unknown as HostedBot;
  const fleet = [
    bot("a", { mentions: { backfill: 0 } }),
    bot("b", { mentions: { via: "poll", backfill: 0 }, followers: {} }),
    bot("c", { dms: {}, stream: [{ value: "#cats" }, { value: "#dogs" }] }),
    bot("d", { stream: [{ value: "#cats" }, { value: "#cats", tag: "again" }] }),
    bot("e", { followers: {}, stream: [{ value: "#owls" }] }),
  ];

  it("are what counting the bots there are says, after each arrival, departure and change", () => {
    const load = new LoadTally(app);
    const pollers = new PollerTally();
    const here = new Map<string, HostedBot>();
    const same = () => {
      expect(load.load()).toEqual(appLoad([...here.values()], app));
      const counted = pollerCounts([...here.values()]);
      for (const trigger of ["mentions", "followers"] as const)
        expect(pollers.counts()("app1", trigger)).toBe(counted("app1", trigger));
    };
    const come = (h: HostedBot) => {
      const before = here.get(h.config.name);
      if (before) {
        load.add(before, -1);
        pollers.add(before, -1);
      }
      load.add(h);
      pollers.add(h);
      here.set(h.config.name, h);
      same();
    };
    const go = (name: string) => {
      load.add(here.get(name)!, -1);
      pollers.add(here.get(name)!, -1);
      here.delete(name);
      same();
    };
    for (const h of fleet) come(h);
    expect(load.load()).toMatchObject({
      mentionsPolled: 1,
      mentionsStreamed: 1,
      followers: 2,
      dms: 1,
      streamBots: 3,
      streamRules: 3,
    });
    go("c");
    expect(load.load().streamRules).toBe(2); // #cats is still d's
    come(bot("d", { mentions: { via: "poll", backfill: 0 } }));
    expect(load.load()).toMatchObject({ mentionsPolled: 2, streamBots: 1, streamRules: 1 });
    for (const name of [...here.keys()]) go(name);
    expect(load.load()).toMatchObject({ mentionsPolled: 0, mentionsStreamed: 0, followers: 0, dms: 0, streamRules: 0 });
  });
});
