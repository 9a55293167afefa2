/**
 * v2 problem answers (wire-facts 3.1). A handler throws an {@link ApiProblem}; the platform
 * turns it into the status and `application/problem+json` body. The constructors below give
 * the shapes and wordings the real service uses.
 */
import { PROBLEM_TYPE_BASE, type Problem, type ProblemKind } from "../api/types.ts";

export class ApiProblem extends Error {
  constructor(
    readonly status: number,
    readonly problem: Problem,
    readonly headers: Record<string, string> = {},
  ) {
    super(problem.detail ?? problem.title);
  }
}

/** A problem object of a kind, with the kind's type URI. */
export function problem(
  kind: ProblemKind,
  title: string,
  detail: string,
  members: Record<string, unknown> = {},
): Problem {
  return { ...members, title, detail, type: PROBLEM_TYPE_BASE + kind };
}

/** 400 invalid-request, naming the parameter and what was wrong with it. */
export function invalidRequest(message: string, parameters: Record<string, string[]> = {}): ApiProblem {
  return new ApiProblem(400, {
    errors: [{ parameters, message }],
    title: "Invalid Request",
    detail: "One or more parameters to your request was invalid.",
    type: PROBLEM_TYPE_BASE + "invalid-request",
  });
}

/** 404 for a path that names no resource (an unknown route, or an id in a path that must exist). */
export function notFound(detail = "Not Found"): ApiProblem {
  return new ApiProblem(404, {
    title: "Not Found Error",
    detail,
    type: PROBLEM_TYPE_BASE + "resource-not-found",
    status: 404,
  });
}

/**
 * The partial error of a lookup (sent with HTTP 200 next to, or instead of, `data`):
 * `Could not find post with ids: [1].`
 */
export function resourceNotFound(
  resourceType: "post" | "user" | "list" | "space" | "media",
  parameter: string,
  value: string,
): Problem {
  return problem(
    "resource-not-found",
    "Not Found Error",
    `Could not find ${resourceType} with ${parameter}: [${value}].`,
    {
      value,
      resource_type: resourceType,
      parameter,
      resource_id: value,
    },
  );
}

/** A plain HTTP problem (`about:blank`): 401 Unauthorized, 403 Forbidden, 429 Too Many Requests... */
export function httpProblem(
  status: number,
  title: string,
  detail = title,
  headers: Record<string, string> = {},
): ApiProblem {
  return new ApiProblem(status, { title, detail, type: "about:blank", status }, headers);
}

/** 403 when the caller may not do this to this resource (not the author, not a participant...). */
export function forbidden(detail: string): ApiProblem {
  return httpProblem(403, "Forbidden", detail);
}
