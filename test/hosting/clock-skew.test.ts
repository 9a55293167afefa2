/**
 * A host whose clock is off from the service's: the runtime runs on a clock hours ahead of
 * the sandbox's, or minutes behind it (the same frozen clock underneath, read with an
 * offset, as libfaketime would make a process read it). The service refuses a signature
 * more than 5 minutes off its time (401, code 135); the client learns the service's time
 * from the `Date` of its answers, signs with it (and sends its time parameters in it), says
 * once how far off the local clock is, and every mention is answered once.
 */
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { createClock, type Clock } from "../../src/clock.ts";
import { provisionBots } from "../../src/hosting/provision.ts";
import { startRuntime } from "../../src/hosting/runtime.ts";
import type { Runtime } from "../../src/hosting/types.ts";
import { definePlugin } from "../../src/plugins/plugin.ts";
import { createSandbox, type Sandbox } from "../../src/sandbox/index.ts";
import { createMemoryStore } from "../../src/store/store.ts";
import { testBotConfig } from "../../src/testing.ts";
import { captureLogs } from "../helpers/log.ts";

const echo = definePlugin({
  name: "echo",
  options: z.object({}),
  setup(bot) {
    bot.on("mention", async (ctx) => {
      await ctx.reply(`@${ctx.author.username} got: ${ctx.post.text.replace(/@\w+\s*/g, "")}`);
    });
  },
});

let sandbox: Sandbox | undefined;
let runtime: Runtime | undefined;
afterEach(async () => {
  await runtime?.stop();
  await sandbox?.close();
  runtime = undefined;
  sandbox = undefined;
});

const MIN = 60_000;
const HOUR = 60 * MIN;

describe("a local clock off from the service's", () => {
  it.each([
    { skew: 2 * HOUR, words: "2 h 0 min ahead of" },
    { skew: -10 * MIN, words: /10 min \d+ s behind|9 min 5\d s behind/ },
  ])("$skew ms: every mention answered once, the skew said once", async ({ skew, words }) => {
    const base = createClock({ frozen: true, start: Date.parse("2026-03-02T12:00:00Z") });
    sandbox = await createSandbox({ clock: base });
    // The process's clock: the same time underneath, read `skew` off.
    const local: Clock = {
      now: () => base.now() + skew,
      setTimeout: (fn, ms) => base.setTimeout(fn, ms),
      sleep: (ms, signal) => base.sleep(ms, signal),
    };
    const { lines, logger } = captureLogs("info");
    const hosted = await provisionBots(sandbox, [
      testBotConfig(
        { name: "skewed", plan: "pro", triggers: { mentions: { via: "poll" } }, plugins: { echo: {} } },
        {
          echo,
        },
      ),
    ]);
    const alice = await sandbox.admin.createUser({ username: "alice", name: "alice" });
    const early = await sandbox.admin.createPost({ author_id: alice.id, text: "@skewed before the start" });
    runtime = await startRuntime({
      baseUrl: sandbox.url,
      bots: hosted,
      store: createMemoryStore(),
      clock: local,
      logger,
    });
    const mentions = [early.id];
    for (let i = 0; i < 5; i++) {
      mentions.push((await sandbox.admin.createPost({ author_id: alice.id, text: `@skewed question ${i}` })).id);
      await base.advance(20_000);
      await runtime.idle();
    }
    for (let i = 0; i < 6; i++) {
      await base.advance(20_000);
      await runtime.idle();
    }
    const botId = hosted[0]!.user.id;
    const replies = Object.values(sandbox.context.data.world.posts).filter((p) => p.author_id === botId);
    for (const id of mentions)
      expect(
        replies.filter((r) => r.in_reply_to_post_id === id),
        `answers to ${id}`,
      ).toHaveLength(1);
    const said = lines.filter((l) => /the local clock is .* the service's/.test(String(l.msg)));
    expect(said.map((l) => l.msg)).toHaveLength(1);
    expect(String(said[0]!.msg)).toMatch(words);
    expect(lines.filter((l) => /code 135/.test(String(l.msg)) || /code 135/.test(String(l.reason)))).toEqual([]);
  });
});
