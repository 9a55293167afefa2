/**
 * The compiled index of bot files (src/config/compiled-index.ts): what one load parsed, the
 * next reads without parsing; a file with a problem is reported exactly as without an index,
 * with its line and column, whether the problem is in its text (never kept) or found later
 * (a plugin, a duplicate name: the file's data came from the index, and its position from
 * parsing it then). An index in memory here; the Redis one is test/redis/bot-index.test.ts.
 */
import { readFileSync } from "node:fs";
import { deserialize, serialize } from "node:v8";
import { describe, expect, it } from "vitest";
import { compiledKey, formatProblem, loadBots, loadEnv, type CompiledIndex } from "../../src/config/index.ts";

const FIXTURES = "test/fixtures/config";
const PLUGINS = "test/fixtures/plugins";

/** An index in a map, counting what it was asked and what it found. */
function memoryIndex() {
  const entries = new Map<string, Buffer>();
  const asked: string[][] = [];
  let found = 0;
  const index: CompiledIndex = {
    async get(keys) {
      asked.push([...keys]);
      const out = keys.map((k) => entries.get(k) ?? null);
      found += out.filter((v) => v !== null).length;
      return out;
    },
    async set(kept) {
      for (const [k, v] of kept) entries.set(k, v);
    },
  };
  return { index, entries, asked, found: () => found };
}

const VALID = {
  botsDir: `${FIXTURES}/valid/bots`,
  pluginsDir: PLUGINS,
  env: { GREETER_TOKEN: "token-1", COUNTER_STEP: "2" },
};

describe("loading bot files through a compiled index", () => {
  it("keeps what it parsed; the next load reads it from the index instead of parsing the files", async () => {
    const mem = memoryIndex();
    const first = await loadBots({ ...VALID, index: mem.index });
    expect(first.problems).toEqual([]);
    expect(mem.entries.size).toBe(3);
    expect(mem.found()).toBe(0);
    const second = await loadBots({ ...VALID, index: mem.index });
    expect(mem.found()).toBe(3);
    expect(second.bots).toEqual(first.bots);
    expect(second.digests).toEqual(first.digests);
    // Not parsed: what the index holds for the greeter's text is what the load returns.
    const file = `${FIXTURES}/valid/bots/greeter.yaml`;
    const key = compiledKey(readFileSync(file, "utf8"), loadEnv({ botsDir: VALID.botsDir, env: VALID.env }));
    const data = deserialize(mem.entries.get(key)!) as Record<string, unknown>;
    mem.entries.set(key, serialize({ ...data, name: "from-the-index" }));
    const third = await loadBots({ ...VALID, index: mem.index });
    expect(third.bots.map((b) => b.name)).toEqual(["from-the-index", "minimal", "watcher"]);
  });

  it("keys a file by its text and the values of the variables it reads", async () => {
    const mem = memoryIndex();
    await loadBots({ ...VALID, index: mem.index });
    const other = await loadBots({ ...VALID, env: { ...VALID.env, GREETER_TOKEN: "token-2" }, index: mem.index });
    expect(mem.found()).toBe(2); // the greeter reads GREETER_TOKEN: parsed again
    expect(other.bots[0]!.account).toEqual(expect.objectContaining({ token: "token-2" }));
  });

  it("reports every problem of the broken files exactly as without an index, the second time too", async () => {
    const broken = { botsDir: `${FIXTURES}/broken/bots`, pluginsDir: PLUGINS, env: {} };
    const without = (await loadBots(broken)).problems.map(formatProblem);
    const mem = memoryIndex();
    const first = await loadBots({ ...broken, index: mem.index });
    const second = await loadBots({ ...broken, index: mem.index });
    // Kept: the files whose text read well (their plugins, or their names, are what is wrong).
    expect(mem.found()).toBeGreaterThanOrEqual(3);
    expect(first.problems.map(formatProblem)).toEqual(without);
    expect(second.problems.map(formatProblem)).toEqual(without);
    expect(second.bots.map((b) => b.file)).toEqual([`${FIXTURES}/broken/bots/duplicate-name-a.yaml`]);
  });

  it("asks the index for every file once, a batch of files at a time", async () => {
    const mem = memoryIndex();
    const broken = { botsDir: `${FIXTURES}/broken/bots`, pluginsDir: PLUGINS, env: {} };
    const { files } = await loadBots({ ...broken, index: mem.index });
    const env = loadEnv({ botsDir: broken.botsDir, env: {} });
    const readable = files.filter((f) => readFileSync(f).length <= 256 * 1024);
    const keys = mem.asked.flat();
    expect(keys).toHaveLength(readable.length);
    expect(new Set(keys)).toEqual(new Set(readable.map((f) => compiledKey(readFileSync(f, "utf8"), env))));
  });
});
