/**
 * postbot as a user gets it: `npm pack` of this checkout (what `files` in package.json ships),
 * installed into a fresh folder from npm's cache (what `npm ci` fetched: `--prefer-offline`),
 * `bot init` from the installed package, then in the new project: `npm install`, its own
 * `npm test`, `bot validate`, and `bot start` on the embedded sandbox until a mention is
 * answered (by the project's TypeScript plugin, loaded without a build step) and a DM starts a
 * dialog (a built-in plugin, compiled). Slow (two installs, minutes on a loaded machine), and
 * mostly waiting for npm and the bots: it runs first among the process tests.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { buildTypes } from "../../scripts/build.ts";
import { ROOT } from "../helpers/built.ts";
import { lineReader } from "../helpers/cli.ts";

const children = new Set<ChildProcess>();
const dirs: string[] = [];
afterEach(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  children.clear();
});
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

/** What npm and the installed `bot` see: the path, the home that holds npm's cache, nothing secret. */
const ENV = {
  PATH: process.env.PATH ?? "",
  HOME: process.env.HOME ?? "",
  NO_COLOR: "1",
  npm_config_update_notifier: "false",
  npm_config_fund: "false",
  npm_config_audit: "false",
};

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function start(command: string, args: string[], cwd: string): ChildProcess & { stdout: NodeJS.ReadableStream } {
  const child = spawn(command, args, { cwd, env: ENV, stdio: ["ignore", "pipe", "pipe"] });
  children.add(child);
  return child as ChildProcess & { stdout: NodeJS.ReadableStream };
}

function run(command: string, args: string[], cwd: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = start(command, args, cwd);
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

const ok = (r: Run) => `exit ${r.code}\n${r.stdout}\n${r.stderr}`.slice(-3000);

interface Packed {
  filename: string;
  size: number;
  unpackedSize: number;
  entryCount: number;
  files: { path: string }[];
}

describe("the package", () => {
  it("packs without tests, installs from the tarball, and its bot init project tests, validates and runs", async () => {
    const work = await mkdtemp(join(tmpdir(), "postbot-pack-"));
    dirs.push(work);

    // The tarball, as prepack builds it: the code is the suite's build (test/helpers/build-setup.ts), plus the types.
    buildTypes();
    const packing = await run("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", work], ROOT);
    expect(packing.code, ok(packing)).toBe(0);
    const [packed] = JSON.parse(packing.stdout) as Packed[];
    const tarball = join(work, packed!.filename);
    const paths = packed!.files.map((f) => f.path);
    expect(paths.filter((p) => /^test\/|\.test\.ts$|fixtures|bench/.test(p))).toEqual([]);
    expect(paths.filter((p) => p.startsWith("src/") && !/\.(jsonl?|html|css|js)$/.test(p))).toEqual([]);
    for (const file of ["bin/bot.js", "build/index.js", "build/types/index.d.ts", "build/plugins/dialog.js"])
      expect(paths).toContain(file);
    expect(paths).toContain("starter/gitignore");
    // The reference says how large the package is; it stays within a fifth of that.
    const reference = await readFile(join(ROOT, "docs", "reference.md"), "utf8");
    const said = /npm pack.*?: (\d+(?:\.\d+)?) MB packed/.exec(reference);
    expect(said, "docs/reference.md says the packed size (`npm pack`: N MB packed)").not.toBeNull();
    expect(Math.abs(packed!.size / 1e6 - Number(said![1])) / Number(said![1])).toBeLessThan(0.2);

    // bot init, from postbot installed in a folder of its own.
    const tool = join(work, "tool");
    await mkdir(tool);
    await writeFile(join(tool, "package.json"), '{ "private": true }\n');
    const installed = await run("npm", ["install", "--prefer-offline", tarball], tool);
    expect(installed.code, ok(installed)).toBe(0);
    const init = await run(
      process.execPath,
      [join(tool, "node_modules", "postbot", "bin", "bot.js"), "init", "my-bots"],
      work,
    );
    expect(init.code, ok(init)).toBe(0);
    expect(init.stdout).toContain("cd my-bots\n  npm install && npm start");

    // The project: npm install (postbot from the tarball, as the registry would give it), npm test.
    const project = join(work, "my-bots");
    const deps = await run("npm", ["install", "--prefer-offline", tarball], project);
    expect(deps.code, ok(deps)).toBe(0);
    const tested = await run("npm", ["test"], project);
    expect(tested.code, ok(tested)).toBe(0);
    // Its own test only, not postbot's.
    expect(tested.stdout).toMatch(/Test Files +1 passed \(1\)/);
    expect(tested.stdout).toContain("test/hello.test.ts");

    // The three entries import; nothing else of the package does.
    const imports = await run(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        `const { createSandbox } = await import("postbot/sandbox");
const { createTestBed } = await import("postbot/testing");
const { definePlugin, startRuntime } = await import("postbot");
console.log([createSandbox, createTestBed, definePlugin, startRuntime].map((f) => typeof f).join(" "));
await import("postbot/build/index.js").catch((e) => console.log(e.code));`,
      ],
      project,
    );
    expect(imports.stdout, ok(imports)).toBe("function function function function\nERR_PACKAGE_PATH_NOT_EXPORTED\n");

    const bot = join(project, "node_modules", "postbot", "bin", "bot.js");
    const validated = await run(process.execPath, [bot, "validate"], project);
    expect(validated, ok(validated)).toMatchObject({
      code: 0,
      stdout: "OK: 2 bots in 2 files (greeter, survey), 1 template (greeter), 4 plugins checked\n",
    });

    // npm start's command: the bots on the embedded sandbox, then a mention and a DM as a user would send them.
    const server = start(process.execPath, [bot, "start", "--http", "127.0.0.1:0"], project);
    const log = lineReader(server.stdout as never);
    await log.waitFor(/all bots started/);
    const mention = await run(process.execPath, [bot, "say", "--as", "alice", "--wait", "@greeter hi"], project);
    expect(mention.code, ok(mention)).toBe(0);
    expect(mention.stdout).toContain("Hello @alice! I am a bot of this project.");
    const dm = await run(process.execPath, [bot, "say", "--dm", "--as", "bob", "--wait", "survey", "hi"], project);
    expect(dm.code, ok(dm)).toBe(0);
    expect(dm.stdout).toContain("Hi! What's your name?");
    const exited = new Promise<number | null>((resolve) => server.once("exit", resolve));
    server.kill("SIGTERM");
    expect(await exited).toBe(0);
  }, 600_000);
});
