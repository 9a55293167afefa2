/**
 * The documents (README.md and docs/*.md) against the code, in both directions, so neither
 * can drift from the other: the README's example plugin and that plugin's test run as
 * written; its bot file validates; every command, flag, bot file key, event and example
 * plugin option they document exists in the code, and everything the code offers there is
 * documented. Every expectation comes from the documents or from the code, never from this
 * file. (test/docs/commands.ts runs their shell commands.)
 */
import { existsSync } from "node:fs";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { buildProgram } from "../../src/cli/main.ts";
import { botJsonSchema } from "../../src/config/index.ts";
import type { Plugin } from "../../src/plugins/index.ts";
import { TRIGGER_OF } from "../../src/triggers/events.ts";
import { killBots, runBot } from "../helpers/cli.ts";
import { EXAMPLE_PLUGINS } from "../helpers/examples.ts";
import { biomeFormat } from "../helpers/biome.ts";
import { docBlocks, docFiles } from "../helpers/doc-blocks.ts";
import { captureLogs } from "../helpers/log.ts";
import { createTestBed } from "../../src/testing.ts";

const readme = await readFile("README.md", "utf8");
/** Every document, README first: the tables may be in any of them. */
const documents = (await Promise.all(docFiles().map((f) => readFile(f, "utf8")))).join("\n");

/** The README's block marked `<!-- file: PATH -->`: a file the reader writes. */
function block(path: string): string {
  const found = docBlocks("README.md").find((b) => b.marker?.kind === "file" && b.marker.path === path);
  if (!found) throw new Error(`README.md has no block marked <!-- file: ${path} -->`);
  return found.text;
}

/** The rows of the documents' table whose header row starts with `| first |`: each row's cells. */
function table(first: string): string[][] {
  const lines = documents.split("\n");
  const start = lines.findIndex((l) => l.startsWith(`| ${first} |`));
  if (start < 0) throw new Error(`no document has a table headed "| ${first} |"`);
  const rows: string[][] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith("|")) break;
    rows.push(
      line
        .slice(1, -1)
        .split(/(?<!\\)\|/)
        .map((c) => c.trim()),
    );
  }
  return rows;
}

/** The backticked words of a table cell, outside parentheses (which hold values and examples). */
const codeWords = (cell: string) => [...cell.replace(/\([^)]*\)/g, "").matchAll(/`([^`]+)`/g)].map((m) => m[1]!);

const sorted = (xs: Iterable<string>) => [...new Set(xs)].sort();

// Inside the repository, so `import ... from "postbot"` resolves as in a user's project.
const work = join("test", ".readme-work");
afterAll(() => rm(work, { recursive: true, force: true }));
afterEach(killBots);

describe("README.md and docs/", () => {
  it("opens with the two commands a newcomer runs", () => {
    const first = readme.split("\n").slice(0, 6).join("\n");
    expect(first).toContain("npm install && npm start");
    expect(first).toContain("npm test");
  });

  it("its plugin passes its own test, as the README writes both", async () => {
    await mkdir(join(work, "plugins"), { recursive: true });
    await mkdir(join(work, "test"), { recursive: true });
    await writeFile(join(work, "plugins", "shout.ts"), block("plugins/shout.ts"));
    // The README's test, with vitest's `it` and `afterEach` collecting their bodies so this test can run them.
    const source = block("test/shout.test.ts").replace(
      'import { afterEach, expect, it } from "vitest";',
      'import { expect } from "vitest";\nexport const tests: Array<() => Promise<void>> = [];\nexport const cleanups: Array<() => Promise<void>> = [];\nconst afterEach = (fn: () => Promise<void>) => void cleanups.push(fn);\nconst it = (_name: string, fn: () => Promise<void>) => void tests.push(fn);',
    );
    const file = join(work, "test", "shout.test.ts");
    await writeFile(file, source);
    const { tests, cleanups } = (await import(join(process.cwd(), file))) as {
      tests: Array<() => Promise<void>>;
      cleanups: Array<() => Promise<void>>;
    };
    expect(tests).toHaveLength(1);
    try {
      await tests[0]!();
    } finally {
      for (const cleanup of cleanups) await cleanup();
    }
  });

  it("its plugin, next to reply on one bot, logs what became of its reply (duplicate: reply answered first)", async () => {
    await mkdir(join(work, "plugins"), { recursive: true });
    await writeFile(join(work, "plugins", "shout.ts"), block("plugins/shout.ts"));
    const shout = (await import(join(process.cwd(), work, "plugins", "shout.ts"))).default as Plugin;
    const reply = (await import(join(process.cwd(), "plugins", "reply.ts"))).default as Plugin;
    const { lines, logger } = captureLogs("info");
    const bed = await createTestBed({
      logger,
      bots: [{ name: "loud", plan: "pro", triggers: { mentions: {} }, plugins: { reply: { text: "hi" }, shout: {} } }],
      plugins: { reply, shout },
    });
    try {
      const alice = await bed.user("alice");
      await bed.post(alice, "@loud hello");
      await bed.advance(3_000);
      await bed.settle();
      expect(bed.postsBy("loud").map((p) => p.text)).toEqual(["hi"]);
      const said = lines.filter((l) => l.plugin === "shout").map((l) => [l.msg, l.status]);
      expect(said).toEqual([["did not shout: duplicate", "duplicate"]]);
    } finally {
      await bed.close();
    }
  });

  it("its code is formatted as biome.json says, so pasting it keeps npm test's format check green", () => {
    const code = docFiles()
      .flatMap((f) => docBlocks(f))
      .filter((b) => b.marker?.kind === "file" && /\.(ts|js)$/.test(b.marker.path));
    expect(code.length).toBeGreaterThan(0);
    for (const b of code) {
      const path = (b.marker as { path: string }).path;
      expect(biomeFormat(path, b.text), `${b.file}:${b.line}: ${path}`).toBe(b.text);
    }
  });

  it("links only to documents and headings that exist", async () => {
    /** A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces as dashes. */
    const slug = (heading: string) =>
      heading
        .toLowerCase()
        .replace(/[^\p{L}\p{N} _-]/gu, "")
        .replace(/ /g, "-");
    const anchors = async (file: string) =>
      new Set(
        (await readFile(file, "utf8"))
          .split("\n")
          .filter((l) => /^#{1,6} /.test(l))
          .map((l) => slug(l.replace(/^#+ /, ""))),
      );
    const broken: string[] = [];
    for (const file of docFiles()) {
      const text = await readFile(file, "utf8");
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(target!)) continue; // https:, mailto:
        const [path, hash] = target!.split("#");
        const linked = path ? join(dirname(file), path) : file;
        if (!existsSync(linked)) broken.push(`${file}: ${target} (no such file)`);
        else if (hash !== undefined && !(await anchors(linked)).has(hash))
          broken.push(`${file}: ${target} (no such heading)`);
      }
    }
    expect(broken).toEqual([]);
  });

  it("its first bot file validates with the example plugins", async () => {
    await mkdir(join(work, "bots"), { recursive: true });
    await writeFile(join(work, "bots", "hello.yaml"), block("bots/hello.yaml"));
    const res = await runBot(["validate", "--bots", join(work, "bots"), "--plugins", "plugins"]);
    expect(res.stdout).toMatch(/^OK: 1 bot in 1 file \(hello\)/m);
    expect(res.code).toBe(0);
  });

  it("documents every command and flag of the CLI, and only those", async () => {
    const program = await buildProgram();
    const documented = new Map<string, { flags: string[]; subcommands: string[] }>();
    for (const [cell] of table("command")) {
      const code = codeWords(cell!)[0]!;
      const [, name, rest] = /^bot (\S+)(.*)$/.exec(code)!;
      // `bot auth login / pkce / ...` lists subcommands; `bot start [--bots DIR] ...` flags.
      const subcommands = rest!.includes(" / ") ? rest!.split("/").map((s) => s.trim()) : [];
      documented.set(name!, {
        flags: sorted([...rest!.matchAll(/--[\w-]+/g)].map((m) => m[0])),
        subcommands: sorted(subcommands),
      });
    }
    expect(sorted(documented.keys())).toEqual(sorted(program.commands.map((c) => c.name())));
    for (const cmd of program.commands) {
      const doc = documented.get(cmd.name())!;
      if (cmd.commands.length > 0)
        expect(doc.subcommands, `bot ${cmd.name()}`).toEqual(sorted(cmd.commands.map((c) => c.name())));
      else
        expect(doc.flags, `bot ${cmd.name()}`).toEqual(
          sorted(cmd.options.map((o) => o.long!).filter((f) => f !== "--help")),
        );
    }
  });

  it("documents every key of a bot file, and only those", () => {
    const schema = botJsonSchema() as { properties: Record<string, { properties?: Record<string, unknown> }> };
    const keys = table("key").map(([cell]) => codeWords(cell!)[0]!);
    const top = sorted(keys.map((k) => k.split(".")[0]!));
    expect(top).toEqual(sorted(Object.keys(schema.properties)));
    expect(sorted(keys.filter((k) => k.startsWith("triggers.")).map((k) => k.slice("triggers.".length)))).toEqual(
      sorted(Object.keys(schema.properties.triggers!.properties!)),
    );
    const budget = table("key").find(([cell]) => codeWords(cell!)[0] === "budget")!;
    expect(sorted(codeWords(budget[1]!).filter((w) => /^\w+$/.test(w)))).toEqual(
      sorted(Object.keys(schema.properties.budget!.properties!)),
    );
  });

  it("documents every event a plugin can handle, and only those", () => {
    expect(sorted(table("event").map(([cell]) => codeWords(cell!)[0]!))).toEqual(sorted(Object.keys(TRIGGER_OF)));
  });

  it("documents every example plugin and each of its options, and only those", async () => {
    const documented = new Map<string, string[]>();
    for (const [names, , options] of table("plugin"))
      for (const name of codeWords(names!)) documented.set(name, sorted(codeWords(options!)));
    const inCode = new Map<string, string[]>();
    for (const name of EXAMPLE_PLUGINS) {
      const plugin = (await import(join(process.cwd(), "plugins", `${name}.ts`))).default as Plugin;
      const schema = plugin.options
        ? (z.toJSONSchema(plugin.options, { io: "input", unrepresentable: "any" }) as {
            properties?: Record<string, unknown>;
          })
        : {};
      inCode.set(plugin.name, sorted(Object.keys(schema.properties ?? {})));
    }
    expect(Object.fromEntries([...documented].sort())).toEqual(Object.fromEntries([...inCode].sort()));
  });
});
