/**
 * A test bed whose runtime reports to a status server (`bot start --http` in-process): the
 * sandbox on port 0 with a frozen clock, the server on 127.0.0.1:0, and a plugin that
 * answers mentions with a text of the mention's own (user content on the page).
 */
import { z } from "zod";
import { createClock } from "../../src/clock.ts";
import type { BotFileInput } from "../../src/config/index.ts";
import { definePlugin, type Plugin } from "../../src/index.ts";
import { runtimeSource, startObserveServer, type ObserveServer, type StatusSource } from "../../src/observe/index.ts";
import type { BotStatus } from "../../src/runtime/types.ts";
import { createSandbox, type Sandbox } from "../../src/sandbox/index.ts";
import { createTestBed, type TestBed } from "../../src/testing.ts";

/** The frozen clock's start in these tests (a Monday noon). */
export const T0 = Date.parse("2026-03-02T12:00:00Z");

/** Answers each mention with `echo: <the mention's text>`. */
export const echo = definePlugin({
  name: "echo",
  options: z.object({}),
  setup(bot) {
    bot.on("mention", async (ctx) => {
      await ctx.reply(`echo: ${ctx.post.text}`);
    });
  },
});

export interface ObservedBed {
  bed: TestBed;
  server: ObserveServer;
  sandbox: Sandbox;
  close(): Promise<void>;
}

/** Starts the server first (as `bot start --http` does), then the bots, then attaches them. */
export async function observedBed(
  bots: BotFileInput[],
  options: { attach?: boolean; plugins?: Record<string, Plugin> } = {},
): Promise<ObservedBed> {
  const clock = createClock({ frozen: true, start: T0 });
  const sandbox = await createSandbox({ clock });
  const server = await startObserveServer({ host: "127.0.0.1", port: 0, clock });
  let bed: TestBed;
  try {
    bed = await createTestBed({
      bots,
      plugins: { echo, ...options.plugins },
      sandbox,
      runtime: { observer: server.observer },
    });
  } catch (err) {
    await server.close();
    await sandbox.close();
    throw err;
  }
  if (options.attach ?? true) server.attach(runtimeSource(bed.runtime, clock));
  return {
    bed,
    server,
    sandbox,
    async close() {
      await server.close();
      await bed.close();
      await sandbox.close();
    },
  };
}

/** The bot files of most tests: pro plan (a mentions poll every 3 s), answering with echo. */
export const echoBot = (name: string): BotFileInput => ({
  name,
  plan: "pro",
  triggers: { mentions: {} },
  plugins: { echo: {} },
});

/** One sample of a Prometheus exposition: its name, labels and value. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Parses Prometheus text exposition (format 0.0.4): every sample line; comments are skipped. */
export function parseExposition(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split("\n")) {
    if (!line || line.startsWith("#")) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)(?: \d+)?$/.exec(line);
    if (!m) throw new Error(`not an exposition line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, k, v] of (m[2] ?? "").matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g))
      labels[k!] = v!.replace(/\\(.)/g, (_, c: string) => (c === "n" ? "\n" : c));
    samples.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return samples;
}

/** The samples named `name` whose labels include `labels`. */
export function samples(all: Sample[], name: string, labels: Record<string, string> = {}): Sample[] {
  return all.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
}

/** The value of the one sample named `name` with `labels`; fails when there is not exactly one. */
export function value(all: Sample[], name: string, labels: Record<string, string> = {}): number {
  const found = samples(all, name, labels);
  if (found.length !== 1) throw new Error(`${found.length} samples of ${name} ${JSON.stringify(labels)}`);
  return found[0]!.value;
}

export /** A status source of `n` bots named bot-0000..., every tenth paused; counts budget reads. */
function manyBots(n: number): StatusSource & { budgetReads: number } {
  const bots: BotStatus[] = Array.from({ length: n }, (_, i) => {
    const name = `bot-${String(i).padStart(4, "0")}`;
    return {
      bot: name,
      appId: "app",
      userId: String(1000 + i),
      username: `${name}_user`,
      plan: "pro",
      triggers: { mentions: { lastCheckAt: T0 - 1_000, events: i } },
      inbox: 0,
      updatedAt: T0,
      ...(i % 10 === 0 ? { paused: { reason: `the service refused the account of ${name}`, at: T0 - 60_000 } } : {}),
    };
  });
  const source = {
    budgetReads: 0,
    bots: () => bots,
    budget: () => {
      source.budgetReads++;
      return undefined;
    },
    queueDepth: () => 0,
    apps: () => [],
    now: () => T0,
  };
  return source;
}
