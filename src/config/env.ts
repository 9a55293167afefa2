/**
 * `${VAR}` in bot files: secrets and per-deployment values come from the environment (or a
 * `.env` file), never from the YAML itself.
 *
 * Where values come from, first match wins: the process environment, then `.env` next to
 * the bots directory (`./.env` for `bots/`), then `.env` in the current directory. A
 * variable set in the shell thus overrides a file, as with dotenv and docker compose.
 *
 * Forms: `${NAME}`, `${NAME:-default}` (the default when NAME is unset or empty), and `$${`
 * for a literal `${`. Interpolation happens on the parsed YAML's values (never keys), so a
 * value can never inject YAML structure. A value that is exactly one `${...}` in a plain
 * (unquoted) scalar is typed like YAML would type it (`max: ${REPLY_MAX}` is a number).
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { parseEnv } from "node:util";
import { isScalar, visit } from "yaml";
import { UserError } from "../errors.ts";
import { displayPath } from "../display-path.ts";
import type { SourceProblem, YamlSource } from "./yaml-source.ts";

/** The variables bot files may read, and which `.env` file a user should add one to. */
export interface BotEnv {
  vars: Readonly<Record<string, string | undefined>>;
  /** The `.env` files read, in precedence order (for messages and logs). */
  files: string[];
  /** Where a missing variable is best added: the `.env` next to the bots directory. */
  suggestedFile: string;
}

export interface LoadEnvOptions {
  botsDir: string;
  /** Default `process.cwd()`. */
  cwd?: string;
  /** Default `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
}

/**
 * Reads the environment bot files see. The runtime uses the same values for its own
 * settings (`POSTBOT_BASE_URL`...), so a `.env` works for both.
 */
export function loadEnv(options: LoadEnvOptions): BotEnv {
  const cwd = options.cwd ?? process.cwd();
  const nextToBots = resolve(cwd, dirname(resolve(cwd, options.botsDir)), ".env");
  const inCwd = resolve(cwd, ".env");
  const candidates = nextToBots === inCwd ? [nextToBots] : [nextToBots, inCwd];
  const files: string[] = [];
  const vars: Record<string, string | undefined> = {};
  for (const file of candidates.slice().reverse()) {
    if (!existsSync(file)) continue;
    let parsed: NodeJS.Dict<string>;
    try {
      parsed = parseEnv(readFileSync(file, "utf8"));
    } catch (error) {
      throw new UserError(`${displayPath(file, cwd)}: cannot read it: ${(error as Error).message}`);
    }
    Object.assign(vars, parsed);
    files.unshift(file);
  }
  Object.assign(vars, options.env ?? process.env);
  return { vars, files: files.map((f) => displayPath(f, cwd)), suggestedFile: displayPath(nextToBots, cwd) };
}

const EXPRESSION = /\$\$\{|\$\{([^}]*)\}|\$\{/g;
const BODY = /^([A-Za-z_][A-Za-z0-9_]*)(?::-(.*))?$/s;
const INT = /^[-+]?(0|[1-9]\d*)$/;
const FLOAT = /^[-+]?(\d+\.\d*|\.\d+|\d+)([eE][-+]?\d+)?$/;

/**
 * Replaces every `${...}` in the string values of `source` (in place), returning a problem
 * at the position of each variable that is unset (with how to set it) or malformed.
 */
export function interpolate(source: YamlSource, text: string, env: BotEnv): SourceProblem[] {
  const problems: SourceProblem[] = [];
  visit(source.doc, {
    Scalar(key, node) {
      if (key === "key" || typeof node.value !== "string" || !node.value.includes("${")) return;
      const raw = node.range ? text.slice(node.range[0], node.range[1]) : "";
      let searchFrom = 0;
      const offsetOf = (expr: string) => {
        const at = raw.indexOf(expr, searchFrom);
        if (at < 0) return node.range?.[0] ?? 0;
        searchFrom = at + expr.length;
        return (node.range?.[0] ?? 0) + at;
      };
      const value = node.value.replace(EXPRESSION, (expr: string, body: string | undefined) => {
        if (expr === "$${") return "${";
        const offset = offsetOf(expr);
        const parsed = body === undefined ? null : BODY.exec(body);
        if (!parsed) {
          problems.push({
            offset,
            message: `${JSON.stringify(expr)} is not a variable reference; write \${NAME} or \${NAME:-default} (or $\${ for a literal \${)`,
          });
          return expr;
        }
        const name = parsed[1]!;
        const fallback = parsed[2];
        const set = env.vars[name];
        if (set !== undefined && (set !== "" || fallback === undefined)) return set;
        if (fallback !== undefined) return fallback;
        problems.push({
          offset,
          message: `the environment variable ${name} is not set; set it (export ${name}=...), add a line ${name}=... to ${env.suggestedFile}, or write \${${name}:-default}`,
        });
        return "";
      });
      const whole = node.type === "PLAIN" && /^\$\{[^}]*\}$/.test(node.value);
      node.value = whole ? typed(value) : value;
    },
  });
  return problems;
}

/** A plain scalar's value as YAML's core schema would type it. */
function typed(value: string): string | number | boolean | null {
  if (INT.test(value) || FLOAT.test(value)) return Number(value);
  if (/^(true|True|TRUE)$/.test(value)) return true;
  if (/^(false|False|FALSE)$/.test(value)) return false;
  if (/^(null|Null|NULL|~)$/.test(value)) return null;
  return value;
}

/** What to say about a setting that is not set: what it is, and the two ways to give it. */
export const notSetMessage = (name: string, what: string, file: string) =>
  `${name} is not set: it is ${what}. Set it (export ${name}=...) or add a line ${name}=... to ${file}`;

/**
 * What to check when the service refuses the app's own keys (401 code 32 on a signed call,
 * 403 code 99 at the bearer token endpoint): the two variables, and where they were read.
 */
export const appKeysHint = (file: string) =>
  `check POSTBOT_CONSUMER_KEY and POSTBOT_CONSUMER_SECRET (the environment, then ${file}): they must be the API key and API key secret of the app on this service`;
