/**
 * `npm run bench [-- NAME...]`: runs every `test/bench/*.bench.ts` (or those NAME picks) and
 * prints a table per benchmark. A NAME that is a file's name without `.bench.ts` picks that
 * file alone (`scale` is scale.bench.ts, not also scale100k.bench.ts, whose 100,000 accounts
 * take the machine for a quarter of an hour); any other NAME picks every benchmark whose name
 * or file contains it (`"moderation judge"`). Add a benchmark by adding such a file that
 * default-exports a `Bench` (see harness.ts).
 */
import { readdirSync } from "node:fs";
import { formatTable, type Bench, type BenchRow } from "./harness.ts";

const filters = process.argv.slice(2);
const dir = new URL("./", import.meta.url);
const files = readdirSync(dir)
  .filter((f) => f.endsWith(".bench.ts"))
  .sort();
const stems = new Set(files.map((f) => f.slice(0, -".bench.ts".length)));
/** Whether NAME `f` picks the bench `name` of `file`; see the module comment. */
const picks = (f: string, name: string, file: string) =>
  stems.has(f) ? file === `${f}.bench.ts` : name.includes(f) || file.includes(f);
const tables: string[] = [];
for (const file of files) {
  const bench = ((await import(new URL(file, dir).href)) as { default: Bench }).default;
  if (filters.length > 0 && !filters.some((f) => picks(f, bench.name, file))) continue;
  process.stderr.write(`running ${bench.name}...\n`);
  let rows: BenchRow[];
  try {
    rows = await bench.run();
  } catch (err) {
    rows = [{ bench: bench.name, error: (err as Error).message.split("\n")[0]! }];
    process.exitCode = 1;
  }
  tables.push(`## ${bench.name}\n\n${formatTable(rows)}\n`);
}
process.stdout.write(tables.join("\n"));
