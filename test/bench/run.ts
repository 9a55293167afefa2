/**
 * `npm run bench [-- NAME...]`: runs every `test/bench/*.bench.ts` (or those whose name or
 * file contains one of NAME) and prints a table per benchmark. Add a benchmark by adding
 * such a file that default-exports a `Bench` (see harness.ts).
 */
import { readdirSync } from "node:fs";
import { formatTable, type Bench, type BenchRow } from "./harness.ts";

const filters = process.argv.slice(2);
const dir = new URL("./", import.meta.url);
const files = readdirSync(dir)
  .filter((f) => f.endsWith(".bench.ts"))
  .sort();
const tables: string[] = [];
for (const file of files) {
  const bench = ((await import(new URL(file, dir).href)) as { default: Bench }).default;
  if (filters.length > 0 && !filters.some((f) => bench.name.includes(f) || file.includes(f))) continue;
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
