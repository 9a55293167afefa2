/**
 * Reading query and path parameters the way the real service checks them: an unknown
 * parameter, a repeated one, an id that is not digits or a number out of range is a 400
 * invalid-request naming the parameter and the value, with the service's wordings.
 */
import { invalidRequest } from "../problems.ts";

/** The pattern of every post, user, event and rule id (wire-facts 1.1). */
export const ID_PATTERN = /^[0-9]{1,19}$/;
/** The pattern of a username (wire-facts 1.3). */
export const USERNAME_PATTERN = /^[A-Za-z0-9_]{1,15}$/;

/**
 * The query parameters of one request, checked against the names its endpoint accepts.
 *
 * @example
 * ```ts
 * const q = new Params(req.query, ["ids", ...POST_RENDER_PARAMS]);
 * const ids = q.ids("ids", 100);
 * ```
 */
export class Params {
  constructor(
    readonly query: URLSearchParams,
    readonly allowed: readonly string[],
  ) {
    const seen = new Set<string>();
    for (const [name, value] of query) {
      if (!allowed.includes(name)) {
        throw invalidRequest(`The query parameter [${name}] is not one of [${allowed.join(",")}]`, { [name]: [value] });
      }
      if (seen.has(name))
        throw invalidRequest(`The \`${name}\` query parameter was given more than once; give it once`, {
          [name]: query.getAll(name),
        });
      seen.add(name);
    }
  }

  /** The raw value, or undefined when absent. An empty value counts as absent. */
  get(name: string): string | undefined {
    const v = this.query.get(name);
    return v === null || v === "" ? undefined : v;
  }

  /** A required value. */
  required(name: string): string {
    const v = this.get(name);
    if (v === undefined) throw invalidRequest(`The \`${name}\` query parameter can not be empty`, { [name]: [] });
    return v;
  }

  /** A comma-separated list (empty items dropped). */
  list(name: string): string[] | undefined {
    const v = this.get(name);
    return v === undefined
      ? undefined
      : v
          .split(",")
          .map((s) => s.trim())
          .filter(Boolean);
  }

  /** A list whose every item must be one of `allowed`. */
  enumList<T extends string>(name: string, allowed: readonly T[]): T[] | undefined {
    const items = this.list(name);
    if (!items) return undefined;
    for (const item of items) {
      if (!(allowed as readonly string[]).includes(item)) {
        throw invalidRequest(`The \`${name}\` query parameter value [${item}] is not one of [${allowed.join(",")}]`, {
          [name]: [this.get(name)!],
        });
      }
    }
    return [...new Set(items)] as T[];
  }

  /** One value of an enumeration. */
  oneOf<T extends string>(name: string, allowed: readonly T[]): T | undefined {
    const v = this.get(name);
    if (v === undefined) return undefined;
    if (!(allowed as readonly string[]).includes(v)) {
      throw invalidRequest(`The \`${name}\` query parameter value [${v}] is not one of [${allowed.join(",")}]`, {
        [name]: [v],
      });
    }
    return v as T;
  }

  /** A required list of 1..max ids (duplicates dropped, order kept). */
  ids(name: string, max: number, pattern = ID_PATTERN): string[] {
    const items = this.list(name);
    if (!items || !items.length)
      throw invalidRequest(`The \`${name}\` query parameter can not be empty`, { [name]: [] });
    for (const item of items) {
      if (!pattern.test(item)) {
        throw invalidRequest(`The \`${name}\` query parameter value [${item}] does not match ${pattern.source}`, {
          [name]: [this.get(name)!],
        });
      }
    }
    const unique = [...new Set(items)];
    if (unique.length > max) {
      throw invalidRequest(
        `The \`${name}\` query parameter value [${this.get(name)}] is not valid: give between 1 and ${max} values`,
        {
          [name]: [this.get(name)!],
        },
      );
    }
    return unique;
  }

  /** An optional single id. */
  id(name: string): string | undefined {
    const v = this.get(name);
    if (v !== undefined && !ID_PATTERN.test(v))
      throw invalidRequest(`The \`${name}\` query parameter value [${v}] does not match ${ID_PATTERN.source}`, {
        [name]: [v],
      });
    return v;
  }

  /** An integer within a range, or the default. */
  int(name: string, min: number, max: number, def: number): number {
    const v = this.get(name);
    if (v === undefined) return def;
    const n = /^-?[0-9]+$/.test(v) ? Number(v) : NaN;
    if (!Number.isSafeInteger(n) || n < min || n > max) {
      throw invalidRequest(`The \`${name}\` query parameter value [${v}] is not between ${min} and ${max}`, {
        [name]: [v],
      });
    }
    return n;
  }

  /** A boolean (`true` / `false`). */
  bool(name: string): boolean | undefined {
    const v = this.get(name);
    if (v === undefined) return undefined;
    if (v !== "true" && v !== "false")
      throw invalidRequest(`The \`${name}\` query parameter value [${v}] is not one of [true,false]`, { [name]: [v] });
    return v === "true";
  }

  /**
   * A time (`YYYY-MM-DDTHH:mm:ssZ`, optionally with milliseconds or an offset), as ms
   * since the epoch.
   */
  time(name: string): number | undefined {
    const v = this.get(name);
    if (v === undefined) return undefined;
    const ok = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/.test(v);
    const t = ok ? Date.parse(v) : NaN;
    if (Number.isNaN(t)) {
      throw invalidRequest(`Invalid '${name}':'${v}'. '${name}' must be a date-time in the form YYYY-MM-DDTHH:mm:ssZ`, {
        [name]: [v],
      });
    }
    return t;
  }
}

/** Checks a path parameter that must be an id. */
export function pathId(params: Record<string, string>, name: string): string {
  const v = params[name] ?? "";
  if (!ID_PATTERN.test(v))
    throw invalidRequest(`The \`${name}\` path parameter value [${v}] does not match ${ID_PATTERN.source}`, {
      [name]: [v],
    });
  return v;
}

/** Checks a path parameter that must be a username. */
export function pathUsername(params: Record<string, string>, name: string): string {
  const v = params[name] ?? "";
  if (!USERNAME_PATTERN.test(v)) {
    throw invalidRequest(`The \`${name}\` path parameter value [${v}] does not match ${USERNAME_PATTERN.source}`, {
      [name]: [v],
    });
  }
  return v;
}

/** The service's time format: ISO-8601 UTC with milliseconds. */
export const iso = (ms: number): string => new Date(ms).toISOString();
