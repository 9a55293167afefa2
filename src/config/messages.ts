/**
 * The words of validation errors. Every problem a user sees names the key, the bad value
 * and what is allowed, in YAML's terms (a mapping, a list, text) rather than JavaScript's,
 * and stays on one line so `file:line:col message` can be read, grepped and jumped to.
 *
 * zod produces the issues; this module words them: {@link errorMap} for the default
 * messages of any zod 4 schema (plugins' options schemas too), {@link explainIssues} to
 * split and finish them (one problem per unknown key, with a "did you mean").
 */
import type { z } from "zod";
import { SECRET_FIELDS } from "../log.ts";
import { didYouMean } from "./did-you-mean.ts";

const MAX_SHOWN = 60;

/**
 * A count with its noun, singular for one: `1 bot`, `3 bots`, `1 problem`. One helper so no
 * message says "1 bots" or "problem(s)". Nouns here take a plain `s`.
 */
export const countOf = (n: number, noun: string) => `${n} ${noun}${n === 1 ? "" : "s"}`;

/**
 * A value as a message shows it: strings and numbers as written (quoted), containers by
 * kind, so a message never spills a whole mapping.
 *
 * @example
 * ```ts
 * showValue("gold"); // "\"gold\""
 * showValue(null); // "nothing"
 * showValue({ a: 1 }); // "a mapping"
 * ```
 */
export function showValue(value: unknown): string {
  if (value === undefined || value === null) return "nothing";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "a mapping";
  if (typeof value === "string") {
    const quoted = JSON.stringify(value);
    return quoted.length > MAX_SHOWN ? `${quoted.slice(0, MAX_SHOWN - 2)}…"` : quoted;
  }
  return String(value);
}

/**
 * An error function for a zod schema: "is required; give WHAT" when the key is missing,
 * "is empty; give WHAT" when it has no value (`plan:`), "expected WHAT, got VALUE"
 * otherwise (or `bad(value)` when given).
 */
export function valueError(what: string, bad?: (shown: string) => string): (issue: { input?: unknown }) => string {
  return (issue) => {
    if (issue.input === undefined) return `is required; give ${what}`;
    if (issue.input === null) return `is empty; give ${what}`;
    return bad ? bad(showValue(issue.input)) : `expected ${what}, got ${showValue(issue.input)}`;
  };
}

const TYPE_WORDS: Record<string, string> = {
  string: "text",
  number: "a number",
  int: "a whole number",
  bigint: "a whole number",
  boolean: "true or false",
  object: "a mapping (key: value lines)",
  array: "a list (- item lines)",
  record: "a mapping (key: value lines)",
  null: "nothing",
  date: "a date",
};

type RawIssue = z.core.$ZodRawIssue;

/**
 * Default wording for zod's issues, passed as the per-parse `error` option. Messages a
 * schema sets itself take precedence over it.
 */
export function errorMap(issue: RawIssue): string | undefined {
  const input = issue.input;
  switch (issue.code) {
    case "invalid_type":
      return valueError(TYPE_WORDS[issue.expected] ?? issue.expected)(issue);
    case "invalid_value": {
      const values = issue.values.map((v) => showValue(v)).join(", ");
      if (input === undefined || input === null)
        return `is ${input === null ? "empty" : "required"}; use ${issue.values.length > 1 ? "one of " : ""}${values}`;
      return `${showValue(input)} is not allowed; use ${issue.values.length > 1 ? "one of " : ""}${values}`;
    }
    case "too_small": {
      const min = Number(issue.minimum);
      if (issue.origin === "string")
        return min <= 1 ? "must not be empty" : `${showValue(input)} is too short; use at least ${min} characters`;
      if (issue.origin === "array" || issue.origin === "set")
        return `needs at least ${min} item${min === 1 ? "" : "s"}`;
      return `${showValue(input)} is too small; the least allowed is ${min}${issue.inclusive === false ? " (exclusive)" : ""}`;
    }
    case "too_big": {
      const max = Number(issue.maximum);
      if (issue.origin === "string") return `${showValue(input)} is too long; use at most ${max} characters`;
      if (issue.origin === "array" || issue.origin === "set") return `has too many items; at most ${max} allowed`;
      return `${showValue(input)} is too big; the most allowed is ${max}${issue.inclusive === false ? " (exclusive)" : ""}`;
    }
    case "invalid_format":
      return `${showValue(input)} is not a valid ${issue.format === "regex" ? `value (it must match ${issue.pattern})` : issue.format}`;
    case "not_multiple_of":
      return `${showValue(input)} is not a multiple of ${String(issue.divisor)}`;
    case "invalid_union":
      return `${showValue(input)} does not match any of the allowed forms`;
    default:
      return undefined;
  }
}

/** A finished problem about one key path, before it is given a file position. */
export interface PathProblem {
  path: PropertyKey[];
  /** Point at the key itself (an unknown key) or at its value (a bad value). */
  at: "key" | "value";
  message: string;
}

/**
 * Turns zod issues into one {@link PathProblem} each, except that an unknown-keys issue
 * becomes one per key, each with the keys allowed there and a "did you mean". `schema` is
 * the schema that produced the issues (used to list the allowed keys).
 */
export function explainIssues(issues: readonly z.core.$ZodIssue[], schema: unknown): PathProblem[] {
  const out: PathProblem[] = [];
  for (const issue of issues) {
    const path = [...issue.path];
    if (issue.code === "unrecognized_keys") {
      const allowed = objectKeysAt(schema, path);
      for (const key of issue.keys) {
        const suggestion = allowed ? didYouMean(key, allowed) : undefined;
        let message = "unknown key";
        if (suggestion) message += `; did you mean "${suggestion}"?`;
        if (allowed)
          message += `${suggestion ? " Allowed" : "; allowed"} here: ${allowed.length ? allowed.join(", ") : "no keys"}`;
        out.push({ path: [...path, key], at: "key", message });
      }
    } else if (issue.code === "invalid_key") {
      out.push({ path, at: "key", message: issue.issues[0]?.message ?? issue.message });
    } else {
      out.push({ path, at: "value", message: secretSafe(path, issue.message) });
    }
  }
  return out;
}

/** Messages about a secret field never quote its value. */
function secretSafe(path: PropertyKey[], message: string): string {
  const last = path[path.length - 1];
  if (typeof last === "string" && (SECRET_FIELDS as readonly string[]).includes(last)) {
    return message.replace(/got .*$/, "got a value of the wrong kind");
  }
  return message;
}

interface DefLike {
  type?: string;
  shape?: Record<string, unknown>;
  innerType?: unknown;
  in?: unknown;
  element?: unknown;
  valueType?: unknown;
  options?: unknown[];
  left?: unknown;
  right?: unknown;
  getter?: () => unknown;
}

const defOf = (schema: unknown): DefLike | undefined => (schema as { _zod?: { def?: DefLike } } | undefined)?._zod?.def;

/**
 * The keys an object schema found at `path` allows, walking zod 4 schema definitions
 * through wrappers (optional, default, pipe...), arrays and records; undefined when the
 * schema is not one this can walk (another validation library, zod 3).
 */
export function objectKeysAt(schema: unknown, path: readonly PropertyKey[], depth = 0): string[] | undefined {
  const def = defOf(schema);
  if (!def || depth > 64) return undefined;
  switch (def.type) {
    case "object":
      if (path.length === 0) return Object.keys(def.shape ?? {});
      return objectKeysAt(def.shape?.[String(path[0])], path.slice(1), depth + 1);
    case "optional":
    case "nullable":
    case "default":
    case "prefault":
    case "readonly":
    case "catch":
    case "nonoptional":
    case "success":
      return objectKeysAt(def.innerType, path, depth + 1);
    case "pipe":
      return objectKeysAt(def.in, path, depth + 1);
    case "lazy":
      return def.getter ? objectKeysAt(def.getter(), path, depth + 1) : undefined;
    case "array":
      return path.length === 0 ? undefined : objectKeysAt(def.element, path.slice(1), depth + 1);
    case "record":
      return path.length === 0 ? undefined : objectKeysAt(def.valueType, path.slice(1), depth + 1);
    case "union":
      for (const option of def.options ?? []) {
        const keys = objectKeysAt(option, path, depth + 1);
        if (keys) return keys;
      }
      return undefined;
    case "intersection": {
      const left = objectKeysAt(def.left, path, depth + 1);
      const right = objectKeysAt(def.right, path, depth + 1);
      return left || right ? [...(left ?? []), ...(right ?? [])] : undefined;
    }
    default:
      return undefined;
  }
}

/**
 * A key path as messages show it: `triggers.schedule[0].cron`.
 */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const segment of path) {
    if (typeof segment === "number") out += `[${segment}]`;
    else out += out === "" ? String(segment) : `.${String(segment)}`;
  }
  return out;
}
