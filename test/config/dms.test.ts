/**
 * `triggers: { dms: {} }` in a bot file: refused on a plan without DM lookup (free) and with
 * an interval faster than the plan allows, each as file:line:col and what to do, by
 * `bot validate` as by the loader; accepted on basic and pro with the defaults.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { formatProblem, loadBots } from "../../src/config/index.ts";
import { botJsonSchema } from "../../src/config/schema.ts";
import { killBots, runBot } from "../helpers/cli.ts";

const dirs: string[] = [];
afterEach(async () => {
  await killBots();
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function botsDir(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "postbot-dms-config-"));
  dirs.push(dir);
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
  return dir;
}

const FILES = {
  "on-free.yaml": "name: on-free\nplan: free\ntriggers:\n  mentions: {}\n  dms: {}\n",
  "too-fast.yaml": "name: too-fast\nplan: pro\ntriggers:\n  dms: { interval: 30s }\n",
  "on-basic.yaml": "name: on-basic\nplan: basic\ntriggers:\n  dms: {}\n",
};

describe("the dms trigger in a bot file", () => {
  it("is refused on free and faster than the plan, with the place and what to do", async () => {
    const dir = await botsDir(FILES);
    const { bots, problems } = await loadBots({ botsDir: dir, pluginsDir: join(dir, "plugins"), env: {} });
    expect(problems.map(formatProblem)).toEqual([
      `${dir}/on-free.yaml:5:3 triggers.dms: the free plan has no DM lookup, so no direct message can be read; remove dms or use the basic plan (DMs checked once a day) or pro (every minute)`,
      `${dir}/too-fast.yaml:4:20 triggers.dms.interval: 30s is faster than the pro plan allows; use 1m or more, or leave interval out to poll at the fastest allowed`,
    ]);
    expect(bots.map((b) => [b.name, b.triggers.dms])).toEqual([["on-basic", { backfill: 3_600_000 }]]);
  });

  it("is refused by bot validate, exit 1", async () => {
    const dir = await botsDir({ "on-free.yaml": FILES["on-free.yaml"] });
    const run = await runBot(["validate", "--bots", dir, "--plugins", join(dir, "plugins")]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(`${dir}/on-free.yaml:5:3 triggers.dms: the free plan has no DM lookup`);
  });

  it("is in the JSON schema editors read", () => {
    const schema = botJsonSchema() as {
      properties: { triggers: { properties: Record<string, { properties?: Record<string, unknown> }> } };
    };
    expect(Object.keys(schema.properties.triggers.properties.dms!.properties!)).toEqual(["interval", "backfill"]);
  });
});
