/**
 * Reads the facts postbot keeps as data out of the spec's Markdown: the part 4.1 endpoint
 * list, the part 5 scopes and authentication table, and the part 8.2 limit tables.
 *
 * Only scripts use this (`npm run gen:limits`, `npm run check:spec`); nothing in src/ or
 * test/ reads the spec, so a clone without ../shared still builds and tests.
 */
import { readFileSync } from "node:fs";

export const DEFAULT_SPEC = new URL("../../shared/spec/social-posting-api.md", import.meta.url);

export type Plan = "pro" | "basic" | "free";
export const PLANS: Plan[] = ["pro", "basic", "free"];

/** One limit of a cell: `900/15m U` is `{max: 900, per: "15m", scope: "user"}`. */
export interface SpecLimit {
  max: number;
  per: "1s" | "15m" | "24h";
  scope: "user" | "app";
}
/** A part 8.2 cell: limits that apply together, `unavailable` (—), or `absent` (no cell). */
export type SpecCell = SpecLimit[] | "unavailable" | "absent";

export interface SpecLimitRow {
  method: string;
  path: string;
  section: string;
  cells: Record<Plan, SpecCell>;
}

export interface SpecAuthRow {
  group: string;
  marks: string;
  scopes: string[];
}

export interface Spec {
  endpoints: Array<{ method: string; path: string; group: string }>;
  scopes: string[];
  authRows: SpecAuthRow[];
  limitRows: SpecLimitRow[];
}

function parseCell(raw: string, where: string): SpecCell {
  const text = raw.trim();
  if (text === "—") return "unavailable";
  if (text === "absent cell") return "absent";
  return text.split(";").map((part) => {
    const m = /^(\d+)\/(s|15m|24h) ([UA])$/.exec(part.trim());
    if (!m) throw new Error(`${where}: cannot read the limit "${part.trim()}"`);
    return {
      max: Number(m[1]),
      per: m[2] === "s" ? "1s" : (m[2] as "15m" | "24h"),
      scope: m[3] === "U" ? "user" : "app",
    };
  });
}

/** Splits a Markdown table row into its cells. */
const cells = (line: string) =>
  line
    .trim()
    .replace(/^\||\|$/g, "")
    .split("|")
    .map((c) => c.trim());

export function parseSpec(file: URL | string = DEFAULT_SPEC): Spec {
  const text = readFileSync(file, "utf8");
  const lines = text.split("\n");

  const endpoints: Spec["endpoints"] = [];
  const limitRows: SpecLimitRow[] = [];
  const authRows: SpecAuthRow[] = [];
  let part = "";
  let group = "";
  let section = "";

  for (const line of lines) {
    if (line.startsWith("### ") || line.startsWith("## ")) {
      part = line.replace(/^#+ /, "");
      continue;
    }
    if (part.startsWith("4.1")) {
      if (/^[A-Z][\w ,]*:$/.test(line)) group = line.slice(0, -1);
      const m = /^- (GET|POST|PUT|DELETE) `([^`]+)`/.exec(line);
      if (m) endpoints.push({ method: m[1]!, path: m[2]!, group });
    }
    if (part.startsWith("8.2")) {
      if (/^[A-Z][\w ,]*$/.test(line.trim()) && !line.startsWith("|")) section = line.trim();
      const m = /^\| (GET|POST|PUT|DELETE) (\/\S+) \|/.exec(line);
      if (m) {
        const [, pro, basic, free] = cells(line);
        const where = `spec part 8.2, ${m[1]} ${m[2]}`;
        limitRows.push({
          method: m[1]!,
          path: m[2]!,
          section,
          cells: { pro: parseCell(pro!, where), basic: parseCell(basic!, where), free: parseCell(free!, where) },
        });
      }
    }
    if (part.startsWith("5.") && line.startsWith("| ")) {
      const c = cells(line);
      if (c.length === 3 && /^\d/.test(c[1]!)) {
        authRows.push({ group: c[0]!, marks: c[1]!, scopes: c[2] === "none listed" ? [] : c[2]!.split(/\s+/) });
      }
    }
  }

  const scopeLine = lines.find((l) => l.startsWith("Scope names (PKCE):"));
  if (!scopeLine) throw new Error("spec part 5: the line 'Scope names (PKCE):' is missing");
  const scopes = [...scopeLine.matchAll(/`([a-z.]+)`/g)].map((m) => m[1]!);

  return { endpoints, scopes, authRows, limitRows };
}
