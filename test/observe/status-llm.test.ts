/**
 * The status page's language-model row (`GET /api/status`, each bot's `llm`): what a bot's
 * model may still use of its `budget.llm`, tokens and requests per window and a 429's pause,
 * read from the state store as `bot status` reads it, on a test bed whose `llm-reply` bot
 * asks the loopback model server.
 */
import { afterEach, describe, expect, it } from "vitest";
import llmReply from "../../plugins/llm-reply.ts";
import { createClock } from "../../src/clock.ts";
import { collectStatus, formatStatus } from "../../src/hosting/status-report.ts";
import { savedModelBudget } from "../../src/llm/index.ts";
import { runtimeSource } from "../../src/observe/index.ts";
import type { StatusView } from "../../src/observe/status-view.ts";
import { answer, startModelServer, type ModelServer } from "../helpers/model-server.ts";
import { observedBed, T0, type ObservedBed } from "./bed.ts";

let t: ObservedBed | undefined;
let model: ModelServer | undefined;
afterEach(async () => {
  await t?.close();
  await model?.close();
  t = undefined;
  model = undefined;
});

describe("the status page: a bot's language model budget", () => {
  it("shows tokens and requests left per window and a 429's pause, the same figures as bot status", async () => {
    model = await startModelServer({ clock: createClock({ frozen: true, start: T0 }) });
    model.chat.queue(
      answer.chat("We open at nine.", { prompt_tokens: 40, completion_tokens: 9 }),
      answer.rateLimited(30),
      answer.chat("Back after a pause.", { prompt_tokens: 41, completion_tokens: 6 }),
    );
    t = await observedBed(
      [
        {
          name: "helpdesk",
          plan: "pro",
          triggers: { mentions: {} },
          reply_cooldown: "0s",
          plugins: { "llm-reply": { url: model.url, model: "llama3.2" } },
          budget: { llm: { tokens: 1000, per: "24h", requests: 5, per_minute: true } },
        },
        { name: "plain", plan: "pro", triggers: { mentions: {} }, plugins: { echo: {} } },
      ],
      { attach: false, plugins: { "llm-reply": llmReply } },
    );
    const { bed, server } = t;
    // As bot start --http attaches it: with the state store.
    server.attach(runtimeSource(bed.runtime, bed.clock, bed.store));
    const row = async (bot: string) => {
      const view = (await (await fetch(`${server.url}/api/status`)).json()) as StatusView;
      return view.bots.find((b) => b.bot === bot)!;
    };
    const alice = await bed.user("alice");

    await bed.post(alice, "@helpdesk when do you open?");
    await expect.poll(() => model!.chat.requests.length).toBe(1);
    await bed.settle();
    expect(bed.postsBy("helpdesk").map((p) => p.text)).toEqual(["We open at nine."]);
    expect((await row("helpdesk")).llm).toEqual({
      tokens: { used: 49, limit: 1000, windowMs: 86_400_000, resetAt: expect.any(Number) },
      requests: { used: 1, limit: 5, windowMs: 60_000, resetAt: expect.any(Number) },
      waiting: 0,
    });
    // A bot without budget.llm has no such row.
    expect(await row("plain")).not.toHaveProperty("llm");

    // A 429 with retry-after 30: the model is paused, and the page says until when.
    await bed.post(alice, "@helpdesk and on Sundays?");
    await expect.poll(() => model!.chat.requests.length).toBe(2);
    // The reply waits on the clock for the pause (no settling while it does).
    await expect.poll(async () => (await row("helpdesk")).llm?.pausedUntil).toBeDefined();
    const paused = (await row("helpdesk")).llm!;
    expect(paused.pausedUntil).toBe(bed.clock.now() + 30_000);
    expect(paused.requests!.used).toBe(2);
    // The same figures as bot status reads from the store, and shows.
    expect(paused).toEqual(savedModelBudget(bed.store, "helpdesk", bed.clock.now()));
    expect(formatStatus(collectStatus(bed.store, bed.clock), bed.clock.now())).toMatch(
      /^ {2}llm {8}tokens 951 of 1,000 left per 1d, requests 3 of 5 left per 1m, paused by the model server for 30s$/m,
    );

    await bed.advance(30_000);
    await bed.settle();
    expect(bed.postsBy("helpdesk").map((p) => p.text)).toContain("Back after a pause.");
    const after = (await row("helpdesk")).llm!;
    expect(after.pausedUntil).toBeUndefined();
    expect(after.tokens!.used).toBe(49 + 47);
  });
});
