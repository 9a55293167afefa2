/**
 * `npm run bench -- startup`: how long `bot` takes to start, from the installed package.
 * postbot is built (npm run build), packed (`npm pack`, what `files` ships) and unpacked into
 * a scratch node_modules, beside links to this checkout's packages (as `npm install` would lay
 * them out, without the minutes of an install); `bot init` writes a project there. Each
 * command runs 15 times; the table gives the median and the fastest wall time, the CPU time
 * of the median run's process, and the aim beside each figure. `node -e 0` is the floor: no
 * command can start faster than Node itself.
 */
import { spawn, spawnSync } from "node:child_process";
import { rmSync } from "node:fs";
import { mkdir, mkdtemp, readdir, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildCode, buildTypes, ROOT } from "../../scripts/build.ts";
import type { Bench, BenchRow } from "./harness.ts";

const RUNS = 15;

/** One run's wall time, from spawn to exit. */
function wallOnce(args: string[], cwd: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(process.execPath, args, { cwd, stdio: "ignore", env: { PATH: process.env.PATH ?? "" } });
    child.on("error", reject);
    child.on("exit", (code) => {
      if (code !== 0) return reject(new Error(`node ${args.join(" ")} exited ${code} in ${cwd}`));
      resolve(Number(process.hrtime.bigint() - started) / 1e6);
    });
  });
}

/**
 * One run's CPU time (user + system, ms): a small node process runs the command and prints
 * the CPU its waited-for children used (/proc/self/stat's cutime and cstime, Linux).
 */
function cpuOnce(args: string[], cwd: string): number {
  const probe = `require("node:child_process").spawnSync(process.execPath, JSON.parse(process.env.ARGS), { stdio: "ignore", env: { PATH: process.env.PATH } });
const stat = require("node:fs").readFileSync("/proc/self/stat", "utf8");
const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
console.log((Number(f[13]) + Number(f[14])) * 10);`;
  const result = spawnSync(process.execPath, ["-e", probe], {
    cwd,
    encoding: "utf8",
    env: { PATH: process.env.PATH ?? "", ARGS: JSON.stringify(args) },
  });
  return Number(result.stdout.trim());
}

async function measure(
  args: string[],
  cwd: string,
  before: () => void = () => undefined,
): Promise<{ median: number; min: number; cpu: number }> {
  const walls: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    before();
    walls.push(await wallOnce(args, cwd));
  }
  walls.sort((a, b) => a - b);
  const cpus: number[] = [];
  for (let i = 0; i < 5; i++) {
    before();
    cpus.push(cpuOnce(args, cwd));
  }
  cpus.sort((a, b) => a - b);
  return { median: walls[Math.floor(RUNS / 2)]!, min: walls[0]!, cpu: cpus[2]! };
}

/** postbot as `npm install` lays it out: the packed files in node_modules/postbot, its dependencies beside. */
async function installed(): Promise<{ dir: string; bot: string }> {
  await buildCode();
  buildTypes();
  const dir = await mkdtemp(join(tmpdir(), "postbot-startup-"));
  const pack = spawnSync("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", dir], {
    cwd: ROOT,
    encoding: "utf8",
  });
  if (pack.status !== 0) throw new Error(`npm pack failed: ${pack.stderr}`);
  const [{ filename }] = JSON.parse(pack.stdout) as { filename: string }[];
  const modules = join(dir, "node_modules");
  await mkdir(join(modules, "postbot"), { recursive: true });
  const untar = spawnSync("tar", [
    "-xzf",
    join(dir, filename!),
    "-C",
    join(modules, "postbot"),
    "--strip-components=1",
  ]);
  if (untar.status !== 0) throw new Error(`tar failed: ${untar.stderr}`);
  for (const entry of await readdir(join(ROOT, "node_modules")))
    if (!entry.startsWith(".")) await symlink(join(ROOT, "node_modules", entry), join(modules, entry));
  return { dir, bot: join(modules, "postbot", "bin", "bot.js") };
}

const VALIDATE = "bot validate (bot init's project)";
const FIRST_VALIDATE = "bot validate, its first run (bundles the project's plugins)";
const AIMS: Record<string, number | undefined> = { "bot --version": 150, [VALIDATE]: 600, [FIRST_VALIDATE]: 600 };

const bench: Bench = {
  name: "startup",
  async run() {
    const { dir, bot } = await installed();
    try {
      const init = spawnSync(process.execPath, [bot, "init", "project"], { cwd: dir, encoding: "utf8" });
      if (init.status !== 0) throw new Error(`bot init failed: ${init.stderr}`);
      const project = join(dir, "project");
      // The first validate of a project bundles its plugins into .postbot/plugins; later ones
      // import the bundles. Both are measured: the second row starts each run without them.
      const unbundled = () => rmSync(join(project, ".postbot", "plugins"), { recursive: true, force: true });
      const commands: [string, string[], (() => void)?][] = [
        ["node -e 0 (the floor)", ["-e", "0"]],
        ["bot --version", [bot, "--version"]],
        ["bot --help", [bot, "--help"]],
        [VALIDATE, [bot, "validate"]],
        [FIRST_VALIDATE, [bot, "validate"], unbundled],
      ];
      const rows: BenchRow[] = [];
      for (const [name, args, before] of commands) {
        const { median, min, cpu } = await measure(args, project, before);
        const aim = AIMS[name];
        rows.push({
          bench: name,
          "median ms": Math.round(median),
          "fastest ms": Math.round(min),
          "CPU ms": cpu,
          "aim ms": aim ?? "",
          verdict: aim === undefined ? "" : median <= aim ? "met" : "missed",
        });
      }
      return rows;
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  },
};

export default bench;
