/**
 * Temporary endpoint handlers for platform tests: the sandbox's authentication, limits,
 * faults and streaming behave the same whatever the handler does, so these tests install a
 * small known handler for an endpoint and restore the real one afterwards. (Each vitest file
 * has its own module graph, so this never leaks into another file.)
 */
import type { EndpointKey } from "../../src/api/endpoints.ts";
import type { RouteHandler, RouteRequest, StreamSink } from "../../src/sandbox/route.ts";
import { routes } from "../../src/sandbox/routes/index.ts";

/** Installs `handler` for `key`; returns a function that puts the previous one back. */
export function installHandler(key: EndpointKey, handler: RouteHandler): () => void {
  const previous = routes[key];
  routes[key] = handler;
  return () => {
    if (previous) routes[key] = previous;
    else delete routes[key];
  };
}

/** Removes the handler of `key` (to see the platform's answer for a missing one); returns the undo. */
export function removeHandler(key: EndpointKey): () => void {
  const previous = routes[key];
  delete routes[key];
  return () => {
    if (previous) routes[key] = previous;
  };
}

/** A handler that answers who called: `{data: {method, app_id, user_id, scopes, params, query, body}}`. */
export const echoHandler: RouteHandler = (req: RouteRequest) => ({
  status: 200,
  body: {
    data: {
      method: req.caller.method,
      app_id: req.caller.app.id,
      user_id: req.caller.user?.id,
      scopes: req.caller.scopes,
      params: req.params,
      query: Object.fromEntries(req.query),
      body: req.body,
    },
  },
});

/** A stream handler whose connections a test drives: `streams[i].send(...)`. */
export function streamProbe() {
  const open: Array<{ sink: StreamSink; closed: boolean; req: RouteRequest }> = [];
  const handler: RouteHandler = (req) => ({
    stream(sink) {
      const entry = { sink, closed: false, req };
      open.push(entry);
      return () => {
        entry.closed = true;
      };
    },
  });
  return { handler, connections: open };
}
