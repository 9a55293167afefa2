/**
 * Whether an authenticated caller may use an endpoint at all: the methods its group accepts
 * and the PKCE scopes it needs (the catalog in src/api/endpoints.ts, from spec part 5), and
 * the access level of an OAuth 1.0a token. Refusals use the real service's wording
 * (wire-facts 3.1).
 */
import type { AuthMethod, Endpoint } from "../../api/endpoints.ts";
import { PROBLEM_TYPE_BASE } from "../../api/types.ts";
import { ApiProblem } from "../problems.ts";
import type { Caller } from "../route.ts";

/** How the real service names the methods in its error texts (not the spec's names). */
const WIRE_NAMES: Record<AuthMethod, string> = {
  oauth1: "OAuth 1.0a User Context",
  app: "OAuth 2.0 Application-Only",
  pkce: "OAuth 2.0 User Context",
};

/**
 * 403 unsupported-authentication, worded as the service words it:
 * `Authenticating with OAuth 2.0 Application-Only is forbidden for this endpoint.  Supported
 * authentication types are [OAuth 1.0a User Context, OAuth 2.0 User Context].` (two spaces
 * after the period, as sent).
 */
export function unsupportedAuthentication(used: AuthMethod, allowed: readonly AuthMethod[]): ApiProblem {
  const order: AuthMethod[] = ["oauth1", "app", "pkce"];
  const supported = order.filter((m) => allowed.includes(m)).map((m) => WIRE_NAMES[m]);
  return new ApiProblem(403, {
    title: "Unsupported Authentication",
    detail: `Authenticating with ${WIRE_NAMES[used]} is forbidden for this endpoint.  Supported authentication types are [${supported.join(", ")}].`,
    type: PROBLEM_TYPE_BASE + "unsupported-authentication",
    status: 403,
  });
}

/** Throws unless the caller's method, scopes and access level allow the endpoint. */
export function checkAccess(endpoint: Endpoint, caller: Caller, access: "read" | "write"): void {
  const { methods, scopes } = endpoint.auth;
  if (!methods.includes(caller.method)) throw unsupportedAuthentication(caller.method, methods);
  if (caller.method === "pkce") {
    const granted = new Set(caller.scopes ?? []);
    const missing = scopes.filter((s) => !granted.has(s));
    if (missing.length > 0) {
      throw new ApiProblem(403, {
        title: "Forbidden",
        detail: `Missing scope${missing.length > 1 ? "s" : ""}: ${missing.join(", ")}. This endpoint requires the scopes [${scopes.join(", ")}]; ask for them at authorization.`,
        type: "about:blank",
        status: 403,
        missing_scopes: missing,
      });
    }
  }
  if (caller.method === "oauth1" && access === "read" && endpoint.method !== "GET") {
    throw new ApiProblem(403, {
      title: "Forbidden",
      detail: "Your client app is not configured with the appropriate oauth1 app permissions for this endpoint.",
      type: PROBLEM_TYPE_BASE + "oauth1-permissions",
      status: 403,
    });
  }
}
