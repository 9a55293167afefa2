/**
 * A journal that knows when it was cut (src/store/journal-check.ts): cut or damaged after it
 * was written, it is refused with a message that says how to recover, and nothing is changed;
 * the torn last append a crash leaves is dropped with one log line naming its bytes. Never a
 * silent replay of part of it: the ledger's "done" marks of the last run would be forgotten,
 * and its replies sent again.
 */
import { createHash } from "node:crypto";
import { cp, mkdir, mkdtemp, readdir, readFile, rm, rmdir, stat, truncate, unlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { UserError } from "../../src/errors.ts";
import { definePlugin } from "../../src/plugins/plugin.ts";
import { openFileStore } from "../../src/store/file-store.ts";
import { encodeLine, parseJournal } from "../../src/store/journal-line.ts";
import { createTestBed } from "../../src/testing.ts";
import { captureLogs } from "../helpers/log.ts";
import { until } from "../helpers/until.ts";

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "postbot-journal-"));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const echo = definePlugin({
  name: "echo",
  options: z.object({ text: z.string() }),
  setup(bot, options) {
    bot.on("mention", async (ctx) => {
      await ctx.reply(`${options.text} (${ctx.post.text})`); // the service refuses a text it was just sent
    });
  },
});

/**
 * A run of a bot answering mentions over several polls (inbox, cursor, ledger marks, budget
 * windows, status: a line per flush), stopped by a crash: the state directory as a kill -9
 * right after the last flush leaves it. Returns the data directory holding it.
 */
async function crashedRun(mentions = 6): Promise<string> {
  const dir = join(root, "run");
  const store = await openFileStore(dir);
  const bed = await createTestBed({
    bots: [{ name: "greeter", plan: "basic", triggers: { mentions: {} }, plugins: { echo: { text: "hi" } } }],
    plugins: { echo },
    store,
  });
  try {
    const alice = await bed.user("alice");
    for (let i = 0; i < mentions; i++) {
      await bed.post(alice, `@greeter number ${i}`);
      await bed.advance(90_000);
      await bed.settle();
    }
    expect(bed.postsBy("greeter")).toHaveLength(mentions);
    await bed.stop();
    await store.flush();
    const image = join(root, "image");
    await cp(join(dir, "state"), join(image, "state"), { recursive: true }); // what the kill leaves
    return image;
  } finally {
    await bed.close();
    await store.close();
  }
}

/** A fresh copy of a data directory to open. */
let copies = 0;
async function copyOf(image: string): Promise<string> {
  const dir = join(root, `copy-${copies++}`);
  await cp(image, dir, { recursive: true });
  return dir;
}

/** Every file of a directory and its bytes' hash: "nothing was changed" is this, before and after. */
async function fingerprint(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    out[path.slice(dir.length)] = createHash("sha256")
      .update(await readFile(path))
      .digest("hex");
  }
  return out;
}

/** The whole state a data directory opens to: the files a clean close writes, parsed. */
async function stateOf(dir: string): Promise<Record<string, unknown>> {
  const store = await openFileStore(dir);
  await store.close();
  const out: Record<string, unknown> = {};
  for (const entry of await readdir(join(dir, "state"), { recursive: true }))
    if (String(entry).endsWith(".json"))
      out[String(entry)] = JSON.parse(await readFile(join(dir, "state", String(entry)), "utf8"));
  return out;
}

/** Where each line of a journal starts and ends (after its newline). */
async function linesOf(path: string): Promise<Array<{ start: number; end: number }>> {
  const { lines } = parseJournal(await readFile(path));
  return lines.map((line, i) => ({ start: i === 0 ? 0 : lines[i - 1]!.end, end: line.end }));
}

/** Cut points of a journal: every line boundary, and inside every line (just after its start, its middle, just before its newline). */
function cutPoints(lines: Array<{ start: number; end: number }>): number[] {
  const points = new Set<number>();
  for (const { start, end } of lines)
    for (const at of [start, start + 1, Math.floor((start + end) / 2), end - 1]) points.add(at);
  return [...points].sort((a, b) => a - b);
}

/** Opens `dir` expecting a refusal that names `file`, says how to recover, and changed nothing. */
async function expectRefused(dir: string, file: string, problem: RegExp): Promise<string> {
  const before = await fingerprint(dir);
  const { lines, logger } = captureLogs();
  const error = (await openFileStore(dir, { logger }).then(
    async (store) => {
      await store.close();
      return undefined;
    },
    (e: unknown) => e,
  )) as Error | undefined;
  expect(error, `${file} opened`).toBeInstanceOf(UserError);
  const message = error!.message;
  expect(message).toContain(`${file} is damaged (`);
  expect(message).toMatch(problem);
  expect(message).toContain("Nothing was changed. Restore the state directory from a backup; or, to go on from");
  expect(message).toContain(join(dir, "state", "journal.synced"));
  expect(await fingerprint(dir)).toEqual(before); // the lock was released too: it is not in the directory
  expect(lines.filter((l) => (l.level as number) >= 40 && !String(l.msg).includes("stale lock"))).toEqual([]);
  return message;
}

describe("a journal cut after it was written", () => {
  it("is refused at every line boundary and inside every line of a run's journal, changing nothing", async () => {
    const image = await crashedRun();
    expect((await readdir(join(image, "state"))).sort()).toEqual(["journal-1.log", "journal.synced"]);
    const journal = join(image, "state", "journal-1.log");
    const lines = await linesOf(journal);
    expect(lines.length).toBeGreaterThanOrEqual(10);
    const length = lines.at(-1)!.end;
    const points = cutPoints(lines).filter((at) => at < length);
    expect(points.length).toBeGreaterThanOrEqual(4 * lines.length - 1);
    for (const at of points) {
      const dir = await copyOf(image);
      const file = join(dir, "state", "journal-1.log");
      await truncate(file, at);
      await expectRefused(dir, file, /was cut after it was written/);
    }
  });

  it("drops the torn last append a crash leaves, with one log line naming its bytes, and keeps every line before it", async () => {
    const image = await crashedRun(3);
    const whole = await stateOf(await copyOf(image));
    const next = encodeLine(1_000, [["ledger", "greeter:reply:99", { state: "pending" }, 99]]);
    const tails = [
      next.subarray(0, 1),
      next.subarray(0, next.length / 2),
      next.subarray(0, next.length - 1), // all but its newline
      Buffer.alloc(300), // a file system kept the new length, not the data
      Buffer.concat([next.subarray(0, 20), Buffer.alloc(40), Buffer.from("\n")]), // the same, its last page written
    ];
    for (const tail of tails) {
      const dir = await copyOf(image);
      const file = join(dir, "state", "journal-1.log");
      await writeFile(file, tail, { flag: "a" });
      const { lines, logger } = captureLogs();
      const store = await openFileStore(dir, { logger });
      expect(store.get("ledger", "greeter:reply:99")).toBeUndefined();
      await store.close();
      const dropped = lines.filter((l) => String(l.msg).startsWith("dropped"));
      expect(dropped).toHaveLength(1);
      expect(dropped[0]).toMatchObject({ level: 40, file, bytes: tail.length });
      expect(dropped[0]!.msg).toBe(
        `dropped the last ${tail.length} bytes of ${file}, the start of a line never finished: an append a crash or a full disk cut short, never acknowledged, so nothing was done on its strength`,
      );
      expect(await stateOf(dir)).toEqual(whole);
    }
  });

  it("goes on from what is left when the user removes journal.synced, as the message says", async () => {
    const image = await crashedRun(4);
    const whole = await stateOf(await copyOf(image));
    const lines = await linesOf(join(image, "state", "journal-1.log"));
    const cut = lines.at(-3)!.end; // the last two lines lost: a reply's "done" mark among them
    const dir = await copyOf(image);
    const file = join(dir, "state", "journal-1.log");
    await truncate(file, cut + 5);
    const message = await expectRefused(
      dir,
      file,
      /it holds \d+ bytes of whole entries, but \d+ bytes up to entry \d+/,
    );
    expect(message).toContain(`(the changes after it are lost, so actions of the last run may be done again), remove`);
    await unlink(join(dir, "state", "journal.synced"));
    const { lines: logged, logger } = captureLogs();
    const store = await openFileStore(dir, { logger });
    await store.close();
    expect(logged.filter((l) => String(l.msg).startsWith("dropped")).map((l) => l.bytes)).toEqual([5]);
    // With no mark, nothing says the cut line was never acknowledged: the message does not claim it.
    expect(logged.find((l) => String(l.msg).startsWith("dropped"))!.msg).toBe(
      `dropped the last 5 bytes of ${file}, the start of a line never finished: with no journal.synced to say how far the journal had reached, it may have been acknowledged before it was cut, so an action of the last run may be done again`,
    );
    const left = await stateOf(dir);
    expect(left).not.toEqual(whole);
    const ledger = (s: Record<string, unknown>) =>
      (s["bots/greeter.json"] as { namespaces: { ledger: Array<[string, { state: string }]> } }).namespaces.ledger.map(
        ([key, entry]) => `${key} ${entry.state}`,
      );
    expect(ledger(left).length).toBeLessThanOrEqual(ledger(whole).length);
    expect(ledger(left)).not.toEqual(ledger(whole));
  });
});

describe("a journal damaged after it was written", () => {
  it("is refused at the line that does not check, and the message's way to go on from the lines before it works", async () => {
    const image = await crashedRun(3);
    const lines = await linesOf(join(image, "state", "journal-1.log"));
    for (const k of [0, 2, lines.length - 1]) {
      const dir = await copyOf(image);
      const file = join(dir, "state", "journal-1.log");
      const bytes = await readFile(file);
      const at = Math.floor((lines[k]!.start + lines[k]!.end) / 2);
      bytes[at] = bytes[at] === 0x30 ? 0x31 : 0x30; // one byte changed, the newline kept
      await writeFile(file, bytes);
      const message = await expectRefused(dir, file, new RegExp(`line ${k + 1} does not match its checksum`));
      const command = `truncate -s ${lines[k]!.start} ${file}`;
      expect(message).toContain(`to go on from the ${k} whole lines before it`);
      expect(message).toContain(
        `cut the journal there (${command}) and remove ${join(dir, "state", "journal.synced")}`,
      );
      await truncate(file, lines[k]!.start);
      await unlink(join(dir, "state", "journal.synced"));
      const store = await openFileStore(dir);
      await store.close();
    }
  });

  it("refuses a damaged journal.synced, and says it may be removed if the journals are whole", async () => {
    const image = await crashedRun(1);
    const dir = await copyOf(image);
    const mark = join(dir, "state", "journal.synced");
    const bytes = await readFile(mark);
    bytes[12] ^= 1;
    await writeFile(mark, bytes);
    const before = await fingerprint(dir);
    const error = (await openFileStore(dir).catch((e: unknown) => e)) as Error;
    expect(error).toBeInstanceOf(UserError);
    expect(error.message).toBe(
      `${mark} is damaged (it does not match its checksum). Nothing was changed. Restore the state directory from a backup; or, if the journals beside it are whole, remove ${mark}.`,
    );
    expect(await fingerprint(dir)).toEqual(before);
  });
});

describe("several journals", () => {
  /**
   * A run whose checkpoints fail (a bot's file cannot be replaced), so that its journals stay:
   * each line a reply's pending or done mark, as the ledger writes them.
   */
  async function journals(): Promise<{ image: string; generations: string[] }> {
    const dir = join(root, "run");
    const { logger, lines } = captureLogs();
    const store = await openFileStore(dir, { checkpointBytes: 400, logger });
    await mkdir(join(dir, "state", "bots", "bob.json"), { recursive: true });
    // A journal that reaches 400 bytes starts a checkpoint, which rotates it; one is started
    // only when none runs. Each one here fails (bob.json is a directory) and logs so. Waiting
    // for it before the next write makes every full journal a generation of its own, however
    // slow the disk (on a loaded machine two or three were folded into one checkpoint's time).
    const fullJournals = async () => {
      let full = 0;
      for (const name of await readdir(join(dir, "state")))
        if (/^journal-\d+\.log$/.test(name) && (await stat(join(dir, "state", name))).size >= 400) full++;
      return full;
    };
    const failedCheckpoints = () => lines.filter((l) => /^cannot bring the files/.test(String(l.msg))).length;
    const flushed = async () => {
      await store.flush();
      const full = await fullJournals();
      await until(`${full} checkpoints ended`, () => failedCheckpoints() >= full);
    };
    for (let i = 0; i < 12; i++) {
      const bot = ["ann", "bob", "cid"][i % 3]!;
      store.set("ledger", `${bot}:reply:${i}`, { state: "pending", target: String(i) });
      await flushed();
      store.set("ledger", `${bot}:reply:${i}`, { state: "done", target: String(i), result: { id: String(1000 + i) } });
      await flushed();
    }
    await store.close(); // its checkpoint fails too: the journals stay, as a crash leaves them
    await rmdir(join(dir, "state", "bots", "bob.json"));
    const generations = (await readdir(join(dir, "state"))).filter((n) => /^journal-\d+\.log$/.test(n));
    return { image: dir, generations: generations.sort((a, b) => Number(a.slice(8, -4)) - Number(b.slice(8, -4))) };
  }

  it("reads back whole, every reply done", async () => {
    const { image, generations } = await journals();
    expect(generations.length).toBeGreaterThanOrEqual(4);
    const store = await openFileStore(await copyOf(image));
    expect(store.entries<{ state: string }>("ledger").map(([, e]) => e.state)).toEqual(Array(12).fill("done"));
    await store.close();
  });

  it("refuses any of them cut at a line boundary or inside a line: the next one, or journal.synced, says lines are missing", async () => {
    const { image, generations } = await journals();
    for (const name of generations) {
      const lines = await linesOf(join(image, "state", name));
      const length = lines.at(-1)!.end;
      for (const at of cutPoints(lines).filter((p) => p < length)) {
        const dir = await copyOf(image);
        const file = join(dir, "state", name);
        await truncate(file, at);
        const last = name === generations.at(-1);
        await expectRefused(dir, file, last ? /was cut after it was written/ : /entries \d+ to \d+ are missing/);
      }
    }
  });

  it("refuses one of them lost whole: the first, one in the middle, the last", async () => {
    const { image, generations } = await journals();
    const [first, second, third] = generations as [string, string, string];
    // The first: what the files hold says where the journals must start.
    let dir = await copyOf(image);
    await unlink(join(dir, "state", first));
    await expectRefused(
      dir,
      join(dir, "state", second),
      /entries 1 to \d+ are missing: it starts at entry \d+, after entry 0, the last the files hold \(journal\.synced\)/,
    );
    // One in the middle: the journals around it do not follow each other.
    dir = await copyOf(image);
    await unlink(join(dir, "state", second));
    await expectRefused(
      dir,
      join(dir, "state", first),
      new RegExp(
        `entries \\d+ to \\d+ are missing: the next journal, ${third}, starts at entry \\d+, after entry \\d+ in ${first}`,
      ),
    );
    // The last: journal.synced names it.
    dir = await copyOf(image);
    await unlink(join(dir, "state", generations.at(-1)!));
    const mark = join(dir, "state", "journal.synced");
    await expectRefused(dir, mark, new RegExp(`bytes written to ${generations.at(-1)!}, which is missing`));
  });
});

describe("journals of an earlier postbot (no checksums)", () => {
  it("are replayed once, folded into the files before the start goes on, and gone, tokens with them", async () => {
    const dir = join(root, "old");
    await mkdir(join(dir, "state"), { recursive: true, mode: 0o700 });
    const old = [
      [
        ["auth:app-tokens", "http://127.0.0.1:1 ck", { token: "old-bearer-secret" }, 0],
        ["ledger", "ann:reply:1", { state: "pending" }, 1],
      ],
      [["ledger", "ann:reply:1", { state: "done" }, 1]],
    ];
    await writeFile(
      join(dir, "state", "journal-3.log"),
      `${old.map((l) => JSON.stringify(l)).join("\n")}\n[["ledger","ann:re`,
      { mode: 0o600 },
    );
    const { lines, logger } = captureLogs();
    const store = await openFileStore(dir, { logger });
    expect(store.get("ledger", "ann:reply:1")).toEqual({ state: "done" });
    expect(store.get("auth:app-tokens", "http://127.0.0.1:1 ck")).toEqual({ token: "old-bearer-secret" });
    // Folded before the open returned: no journal left, the token in credentials.json alone.
    const names = (await readdir(join(dir, "state"))).sort();
    expect(names).toEqual(["bots", "credentials.json", "journal.synced"]);
    expect(await readFile(join(dir, "state", "credentials.json"), "utf8")).toContain("old-bearer-secret");
    expect(lines.filter((l) => String(l.msg).startsWith("dropped")).map((l) => l.bytes)).toEqual([18]);
    // The next line continues from the mark the open wrote: a crash now, and the journal checks.
    store.set("ledger", "ann:reply:2", { state: "done" });
    await store.flush();
    const crashed = join(root, "crashed");
    await cp(dir, crashed, { recursive: true });
    await store.close();
    const again = await openFileStore(crashed);
    expect(again.entries("ledger").map(([k]) => k)).toEqual(["ann:reply:1", "ann:reply:2"]);
    await again.close();
  });
});
