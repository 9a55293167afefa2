/**
 * The admin API (DESIGN.md "The sandbox"), which is not part of the service: apps, tokens,
 * stats, the clock and injected faults here; users, posts and direct messages from the
 * world's own table (`worldAdminRoutes`, whose module comment lists them). Every call needs `Authorization: Bearer <admin token>` over HTTP;
 * `sandbox.admin` calls the same handlers in-process.
 */
import { ENDPOINTS } from "../../api/endpoints.ts";
import { issueAccessToken, createApp, appByConsumerKey, signInAllowed } from "../auth/credentials.ts";
import { OAUTH_ROUTES } from "../auth/routes.ts";
import { flows } from "../auth/state.ts";
import type { SandboxApp } from "../model/index.ts";
import { statsOf } from "../meter/stats.ts";
import type { Platform } from "../platform.ts";
import { ApiProblem, invalidRequest } from "../problems.ts";
import type { AdminRequest, AdminRouteTable } from "../route.ts";
import { ok } from "../routes/common.ts";
import { worldAdminRoutes } from "../routes/index.ts";
import {
  appChangesSchema,
  clockSchema,
  faultSchema,
  newAppSchema,
  newTokenSchema,
  parseBody,
  passwordSchema,
} from "./schemas.ts";

/** An app as the admin API shows it: every credential a test or a demo needs. */
export function appView(app: SandboxApp) {
  return {
    id: app.id,
    name: app.name,
    plan: app.plan,
    consumer_key: app.consumer_key,
    consumer_secret: app.consumer_secret,
    client_id: app.client_id,
    client_secret: app.client_secret,
    callback_urls: app.callback_urls,
    academic: app.academic,
    allow_sign_in: signInAllowed(app),
    ...(app.owner_id ? { owner_id: app.owner_id } : {}),
    created_at: new Date(app.created_at).toISOString(),
  };
}

export type AppView = ReturnType<typeof appView>;

const noWorldHandler = (key: string) =>
  new ApiProblem(404, {
    title: "Not Found Error",
    detail: `${key} has no handler in this sandbox yet.`,
    type: "about:blank",
    status: 404,
  });

/** Every route template a fault may name: the v2 catalog and the OAuth endpoints. */
export const FAULTABLE_ROUTES: ReadonlySet<string> = new Set([
  ...ENDPOINTS.map((e) => e.key),
  ...Object.keys(OAUTH_ROUTES),
]);

/** Apps and their tokens, made and changed as a developer would on the portal. */
function appRoutes(p: Platform): AdminRouteTable {
  const data = () => p.context.data;
  return {
    "POST /_sandbox/apps": ({ body }) => {
      const input = parseBody(newAppSchema, body);
      if (input.owner_id && !data().world.users[input.owner_id]) {
        throw invalidRequest(`owner_id: no user has id ${input.owner_id}`, { owner_id: [input.owner_id] });
      }
      const app = createApp(data(), p.clock.now(), { ...input, plan: input.plan ?? p.defaultPlan });
      return ok(appView(app), 201);
    },

    /** Changes an app's settings (callback URLs, name, sign-in), as its developer would on the portal. */
    "PATCH /_sandbox/apps": ({ body }) => {
      const { consumer_key, ...changes } = parseBody(appChangesSchema, body);
      const app = appByConsumerKey(data(), consumer_key);
      if (!app) throw invalidRequest("consumer_key: no app has this consumer key", { consumer_key: [] });
      Object.assign(app, changes);
      return ok(appView(app));
    },

    "POST /_sandbox/tokens": ({ body }) => {
      const input = parseBody(newTokenSchema, body);
      const app = appByConsumerKey(data(), input.consumer_key);
      if (!app) throw invalidRequest("consumer_key: no app has this consumer key", { consumer_key: [] });
      const user = data().world.users[input.user_id];
      if (!user) throw invalidRequest(`user_id: no user has id ${input.user_id}`, { user_id: [input.user_id] });
      return ok(issueAccessToken(data(), p.clock.now(), app, user, input.access ?? "write"), 201);
    },
  };
}

/** The sandbox's clock: read it, or move it forward (timers due on the way fire). */
function clockRoutes(p: Platform): AdminRouteTable {
  return {
    "POST /_sandbox/clock": async ({ body }) => {
      const { advance_ms } = parseBody(clockSchema, body);
      await p.clock.advance(advance_ms);
      const now = p.clock.now();
      return ok({ now: new Date(now).toISOString(), now_ms: now });
    },

    "GET /_sandbox/clock": () => {
      const now = p.clock.now();
      return ok({ now: new Date(now).toISOString(), now_ms: now });
    },
  };
}

/** Faults injected into the service's routes: add, list, clear. */
function faultRoutes(p: Platform): AdminRouteTable {
  return {
    "POST /_sandbox/faults": ({ body }) => {
      const input = parseBody(faultSchema, body);
      if (!FAULTABLE_ROUTES.has(input.route)) {
        throw invalidRequest(
          `route: ${JSON.stringify(input.route)} is not a route of the service; use a template such as "GET /2/posts/:id"`,
          { route: [input.route] },
        );
      }
      const { route, count, ...spec } = input;
      return ok(p.faults.add(route, count, spec), 201);
    },

    "GET /_sandbox/faults": () => ok({ faults: p.faults.list() }),

    "DELETE /_sandbox/faults": () => {
      p.faults.clear();
      return ok({ faults: [] });
    },
  };
}

/** `POST /_sandbox/users`: the world's handler, plus the platform's part: the password the user signs in with. */
function createUserRoute(p: Platform): AdminRouteTable[string] {
  return async (req: AdminRequest) => {
    const handler = worldAdminRoutes["POST /_sandbox/users"];
    if (!handler) throw noWorldHandler("POST /_sandbox/users");
    let body = req.body;
    let password: string | undefined;
    if (body && typeof body === "object" && !Array.isArray(body) && "password" in body) {
      const { password: given, ...rest } = body as Record<string, unknown>;
      const parsed = passwordSchema.safeParse(given);
      if (!parsed.success) throw invalidRequest("password: must be a string of 1 to 200 characters", { password: [] });
      password = parsed.data;
      body = rest;
    }
    const result = await handler({ ...req, body });
    const id =
      (result.body as { id?: unknown; data?: { id?: unknown } } | undefined)?.id ??
      (result.body as { data?: { id?: unknown } })?.data?.id;
    if (password !== undefined && result.status < 300 && typeof id === "string")
      flows(p.context.data).passwords[id] = password;
    return result;
  };
}

/**
 * The platform's admin routes (apps, tokens, stats, the clock, faults, users with a
 * password), one part per concern; the world's own admin routes are looked up beside them
 * by {@link adminHandler}.
 */
export function createAdminRoutes(p: Platform): AdminRouteTable {
  return {
    ...appRoutes(p),
    "GET /_sandbox/stats": () => ok(statsOf(p.context.data)),
    ...clockRoutes(p),
    ...faultRoutes(p),
    "POST /_sandbox/users": createUserRoute(p),
  };
}

/**
 * The admin handler of a key: the platform's own, else the world's (`POST /_sandbox/posts`
 * and whatever the world adds). Looked up on every call, so world routes registered after the
 * sandbox started are found too.
 */
export function adminHandler(table: AdminRouteTable, key: string) {
  return table[key] ?? worldAdminRoutes[key];
}
