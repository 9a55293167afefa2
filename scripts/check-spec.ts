/**
 * `npm run check:spec`: proves that postbot's own copies of spec facts still match
 * ../shared/spec/social-posting-api.md: the limit table (part 8.2) row by row and cell by
 * cell, the endpoint list (part 4.1), the scope names and the per-group scopes and number
 * of authentication methods (part 5). CI runs it only where the spec file exists.
 */
import { existsSync } from "node:fs";
import { AUTH_GROUPS, ENDPOINTS, SPEC_SCOPES, type AuthGroup } from "../src/api/endpoints.ts";
import { SPEC_LIMITS } from "../src/limits/table.ts";
import { canonicalKey } from "./gen-limits.ts";
import { DEFAULT_SPEC, parseSpec, PLANS } from "./spec-parse.ts";

const file = process.argv[2] ? new URL(process.argv[2], `file://${process.cwd()}/`) : DEFAULT_SPEC;
if (!existsSync(file)) {
  console.error(`check:spec: no spec at ${file.pathname}; pass its path as the first argument.`);
  process.exit(2);
}
const spec = parseSpec(file);
const problems: string[] = [];
let checked = 0;

// Part 8.2, row by row.
const table = SPEC_LIMITS as Record<string, Record<string, unknown>>;
const seen = new Set<string>();
for (const row of spec.limitRows) {
  const key = canonicalKey(spec, row.method, row.path);
  seen.add(key);
  for (const plan of PLANS) {
    checked++;
    const ours = JSON.stringify(table[key]?.[plan]);
    const theirs = JSON.stringify(row.cells[plan]);
    if (ours !== theirs) problems.push(`limits ${key} (${plan}): spec says ${theirs}, src/limits/table.ts has ${ours}`);
  }
}
for (const key of Object.keys(table)) if (!seen.has(key)) problems.push(`limits: ${key} is not in spec part 8.2`);

// Part 4.1: the same endpoints, in the same order.
const specKeys = spec.endpoints.map((e) => `${e.method} ${e.path}`);
const ourKeys = ENDPOINTS.map((e) => e.key as string);
for (const k of specKeys)
  if (!ourKeys.includes(k)) problems.push(`endpoints: ${k} (spec 4.1) is missing from src/api/endpoints.ts`);
for (const k of ourKeys) if (!specKeys.includes(k)) problems.push(`endpoints: ${k} is not in spec 4.1`);
checked += specKeys.length;

// Part 5: scope names, and per row the scopes and the number of methods.
if (JSON.stringify([...SPEC_SCOPES]) !== JSON.stringify(spec.scopes)) {
  problems.push(`scopes: spec lists ${spec.scopes.join(" ")}, src/api/endpoints.ts has ${SPEC_SCOPES.join(" ")}`);
}
const groups = Object.entries(AUTH_GROUPS) as Array<[string, AuthGroup]>;
for (const row of spec.authRows) {
  const ours = groups.filter(([, g]) => g.specRow === row.group);
  if (ours.length === 0) {
    problems.push(`auth: part 5 row "${row.group}" has no group in src/api/endpoints.ts`);
    continue;
  }
  for (const [name, g] of ours) {
    checked++;
    if (JSON.stringify([...g.scopes].sort()) !== JSON.stringify([...row.scopes].sort())) {
      problems.push(`auth ${name}: spec scopes ${row.scopes.join(" ")}, ours ${g.scopes.join(" ")}`);
    }
    const marks = Number.parseInt(row.marks, 10);
    // Documented exceptions: `me` has no app-only form; the home timeline is the "partial" one.
    const exception = name === "usersMe" || name === "homeTimeline";
    if (!exception && g.methods.length !== marks) {
      problems.push(`auth ${name}: spec shows ${marks} marks, ours accepts ${g.methods.join(", ")}`);
    }
  }
}

if (problems.length > 0) {
  console.error(`check:spec: ${problems.length} difference(s) from the spec:\n- ${problems.join("\n- ")}`);
  console.error("Run `npm run gen:limits` for the limit table; fix src/api/endpoints.ts by hand.");
  process.exit(1);
}
console.log(`check:spec: ${checked} facts match ${file.pathname}`);
