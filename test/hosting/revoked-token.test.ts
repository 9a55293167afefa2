/**
 * A token revoked while a reply is on its way (the service answers it 401, code 89): the bot
 * pauses, and the reply is not dropped: it waits in the ledger, and once the bot file gives
 * the bot a new token (the live fleet restarts it with it) the reply is sent, once. On the
 * sandbox with a frozen clock; the reply is held at the service by a delay fault while the
 * token is revoked.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import type { BotFileInput } from "../../src/config/index.ts";
import { provisionBots } from "../../src/hosting/provision.ts";
import { definePlugin } from "../../src/plugins/plugin.ts";
import { createTestBed, testBotConfig, type TestBed } from "../../src/testing.ts";

const echo = definePlugin({
  name: "echo",
  options: z.object({}),
  setup(bot) {
    bot.on("mention", async (ctx) => {
      await ctx.reply(`@${ctx.author.username} heard: ${ctx.post.text.replace(/@\w+\s*/g, "")}`);
    });
  },
});
const plugins = { echo };

let bed: TestBed | undefined;
afterEach(async () => {
  await bed?.close();
  bed = undefined;
});

const BOT: BotFileInput = {
  name: "revoked",
  plan: "pro",
  triggers: { mentions: { via: "poll" } },
  plugins: { echo: {} },
};

/** The faults the sandbox still holds (over its admin API: the in-process one does not list them). */
async function faultsLeft(b: TestBed): Promise<number> {
  const res = await fetch(new URL("/_sandbox/faults", b.sandbox.url), {
    headers: { authorization: `Bearer ${b.sandbox.adminToken}` },
  });
  return ((await res.json()) as { faults: unknown[] }).faults.length;
}

describe("a token revoked while a reply is on its way", () => {
  it("the reply waits for the new token and is sent once with it", async () => {
    bed = await createTestBed({ bots: [BOT], plugins });
    const b = bed;
    const alice = await b.user("alice");
    const botId = b.runtime.bots.get("revoked")!.identity.userId;
    // The reply's request is held at the service for 10 s (of the frozen clock).
    await b.sandbox.admin.addFault({ route: "POST /2/posts", count: 1, kind: "delay", delay_ms: 10_000 });
    const mention = await b.post(alice, "@revoked are you there?");
    await b.advance(5_000);
    await vi.waitFor(async () => expect(await faultsLeft(b)).toBe(0), { timeout: 10_000, interval: 10 });
    // Revoked while it waits there: the service answers it 401, code 89.
    const tokens = b.sandbox.context.data.auth.access_tokens;
    for (const t of Object.values(tokens)) if (t.user_id === botId) t.invalidated_at = b.clock.now();
    await b.advance(10_000);
    await b.settle();
    const status = b.runtime.status().find((s) => s.bot === "revoked")!;
    expect(status.paused?.accountRefused).toBe(true);
    expect(b.postsBy("revoked")).toEqual([]);
    const entry = b.runtime.actions.ledger.get(`revoked:reply:${mention.id}`);
    expect(entry?.state, JSON.stringify(entry)).toBe("pending");

    // The bot file gets a new token: the live fleet restarts the bot with it.
    const [renewed] = await provisionBots(b.sandbox, [testBotConfig(BOT, plugins)]);
    expect(renewed!.token.token).not.toBe(Object.values(tokens).find((t) => t.user_id === botId)!.token);
    await b.runtime.replace(renewed!);
    await b.advance(5_000);
    await b.settle();
    await b.advance(60_000);
    await b.settle();
    const replies = b.postsBy("revoked").filter((p) => p.in_reply_to_post_id === mention.id);
    expect(replies.map((p) => p.text)).toEqual(["@alice heard: are you there?"]);
    expect(b.runtime.status().find((s) => s.bot === "revoked")!.paused).toBeUndefined();
    expect(b.runtime.actions.ledger.get(`revoked:reply:${mention.id}`)?.state).toBe("done");
  });
});
