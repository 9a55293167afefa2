/**
 * The benchmark harness behind `npm run bench`: each `test/bench/*.bench.ts` file
 * default-exports a {@link Bench}; `run.ts` runs them one after another and prints one table
 * of all their rows. Benchmarks measure; they never assert a time (that belongs nowhere in
 * the test suite), though a row may carry a verdict column against a stated aim.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";

/** One line of the table: the first column names what was measured. */
export interface BenchRow {
  bench: string;
  [column: string]: string | number;
}

export interface Bench {
  name: string;
  run(): Promise<BenchRow[]>;
}

/** Formats numbers for the table: integers with separators, others to 2 decimals. */
const cell = (v: string | number | undefined) =>
  v === undefined ? "" : typeof v === "number" ? (Number.isInteger(v) ? v.toLocaleString("en-US") : v.toFixed(2)) : v;

/** Renders rows as a Markdown-style table, columns in first-seen order. */
export function formatTable(rows: BenchRow[]): string {
  const columns: string[] = [];
  for (const r of rows) for (const k of Object.keys(r)) if (!columns.includes(k)) columns.push(k);
  const cells = rows.map((r) => columns.map((c) => cell(r[c])));
  const widths = columns.map((c, i) => Math.max(c.length, ...cells.map((row) => row[i]!.length)));
  const line = (values: string[]) => `| ${values.map((v, i) => v.padEnd(widths[i]!)).join(" | ")} |`;
  return [line(columns), `|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`, ...cells.map(line)].join("\n");
}

/**
 * Starts a child process and waits for a stdout line matching `ready`; resolves with the
 * match. The child is killed if it exits first or when `stop()` is called.
 */
export function startChild(
  command: string,
  args: string[],
  ready: RegExp,
  env: Record<string, string> = {},
): Promise<{ match: RegExpExecArray; child: ChildProcess; stop(): Promise<void> }> {
  const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null) =>
      reject(new Error(`${args.join(" ")} exited (${code}) before it was ready:\n${out}`));
    child.once("exit", onExit);
    const onData = (d: Buffer) => {
      out += d.toString();
      const match = ready.exec(out);
      if (!match) return;
      child.stdout!.off("data", onData);
      child.off("exit", onExit);
      child.stdout!.resume();
      resolve({
        match,
        child,
        stop: () =>
          new Promise<void>((done) => {
            if (child.exitCode !== null) return done();
            child.once("exit", () => done());
            child.kill("SIGTERM");
          }),
      });
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", (d: Buffer) => (out += d.toString()));
  });
}

/**
 * CPU time (user + system, ms) a process has used so far, from /proc on Linux; undefined
 * elsewhere. CPU per request is steadier than requests per second on a busy machine.
 */
export function cpuMs(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // Fields 14 and 15 of stat (utime, stime) are at 11 and 12 after the command name, in ticks of 10 ms.
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}
