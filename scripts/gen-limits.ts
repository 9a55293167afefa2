/**
 * Writes src/limits/table.ts from spec part 8.2 (`npm run gen:limits`). Each row is keyed by
 * the endpoint's spec 4.1 template, so the limit table and the endpoint catalog share keys.
 */
import { writeFileSync } from "node:fs";
import { parseSpec, type Spec, type SpecCell } from "./spec-parse.ts";

const shape = (key: string) => key.replace(/:\w+/g, ":_");

/** The 4.1 template for a part 8.2 row (the tables name some path parameters differently). */
export function canonicalKey(spec: Spec, method: string, path: string): string {
  const wanted = shape(`${method} ${path}`);
  const found = spec.endpoints.find((e) => shape(`${e.method} ${e.path}`) === wanted);
  if (!found) throw new Error(`spec part 8.2 lists ${method} ${path}, which part 4.1 does not`);
  return `${found.method} ${found.path}`;
}

function renderCell(cell: SpecCell): string {
  if (typeof cell === "string") return JSON.stringify(cell);
  return `[${cell.map((l) => `{ max: ${l.max}, per: "${l.per}", scope: "${l.scope}" }`).join(", ")}]`;
}

export function renderTable(spec: Spec): string {
  const rows = spec.limitRows.map((r) => {
    const cells = Object.entries(r.cells)
      .map(([plan, cell]) => `${plan}: ${renderCell(cell)}`)
      .join(", ");
    return `  ${JSON.stringify(canonicalKey(spec, r.method, r.path))}: { ${cells} },`;
  });
  return `// Generated from spec part 8.2 by \`npm run gen:limits\`: do not edit by hand.
// \`npm run check:spec\` proves that this file still matches the spec, row by row.
import type { LimitCell, Plan } from "./types.ts";

/** The part 8.2 tables: per endpoint, per plan, the limits that apply together. */
export const SPEC_LIMITS = {
${rows.join("\n")}
} as const satisfies Record<string, Record<Plan, LimitCell>>;
`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const out = new URL("../src/limits/table.ts", import.meta.url);
  writeFileSync(out, renderTable(parseSpec()));
  console.log(`wrote ${out.pathname}`);
}
