import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createClient, type ApiClient } from "../../src/api/client.ts";
import {
  ApiError,
  BearerTooFrequentError,
  InvalidTokenError,
  NetworkError,
  OAuthError,
  ProblemError,
  RateLimitError,
  ResponseError,
  UsageCappedError,
} from "../../src/api/errors.ts";
import { createClock } from "../../src/clock.ts";
import { fakeService, json, type FakeService } from "./fake-service.ts";

const clock = createClock({ frozen: true, start: Date.parse("2026-03-01T12:00:00Z") });
const auth = { consumer: { key: "ck", secret: "cs" }, user: { token: "1-tok", secret: "ts" } };
let service: FakeService;
let client: ApiClient;

beforeEach(async () => {
  service = await fakeService();
  client = createClient({ baseUrl: service.url, auth, clock });
});
afterEach(async () => {
  await client.close();
  await service.close();
});

/** Calls `GET /2/users/:id/mentions` (a token in the query must never reach the message) and returns what it threw. */
async function failure(): Promise<ApiError> {
  const err = await client.users.mentions("42", { pagination_token: "secret-cursor" }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiError);
  const e = err as ApiError;
  expect(e.method).toBe("GET");
  expect(e.path).toBe("/2/users/42/mentions");
  expect(e.endpoint).toBe("GET /2/users/:id/mentions");
  expect(e.message.startsWith("GET /2/users/42/mentions: ")).toBe(true);
  expect(e.message).not.toContain("secret-cursor");
  return e;
}

describe("responses become typed errors naming the request", () => {
  it("429 with x-rate-limit-reset is a RateLimitError with the reset time", async () => {
    const reset = Math.floor(clock.now() / 1000) + 600;
    service.handle((_q, res) =>
      json(
        res,
        429,
        { title: "Too Many Requests", detail: "Too Many Requests", type: "about:blank", status: 429 },
        {
          "x-rate-limit-limit": "10",
          "x-rate-limit-remaining": "0",
          "x-rate-limit-reset": String(reset),
        },
      ),
    );
    const e = await failure();
    expect(e).toBeInstanceOf(RateLimitError);
    const r = e as RateLimitError;
    expect(r.resetAt).toBe(reset * 1000);
    expect(r.limit).toBe(10);
    expect(r.remaining).toBe(0);
    expect(r.message).toContain(new Date(reset * 1000).toISOString());
  });

  it("429 without a reset header is still a RateLimitError, saying to back off", async () => {
    service.handle((_q, res) => json(res, 429, { title: "Too Many Requests", type: "about:blank" }));
    const e = (await failure()) as RateLimitError;
    expect(e).toBeInstanceOf(RateLimitError);
    expect(e.resetAt).toBeUndefined();
    expect(e.message).toMatch(/no x-rate-limit-reset header; back off exponentially/);
  });

  it("429 usage-capped is a UsageCappedError, whatever the type URI's host", async () => {
    service.handle((_q, res) =>
      json(res, 429, {
        title: "UsageCapExceeded",
        detail: "Usage cap exceeded: Monthly product cap",
        type: "https://api.x.com/2/problems/usage-capped",
        period: "Monthly",
        scope: "Product",
      }),
    );
    const e = (await failure()) as UsageCappedError;
    expect(e).toBeInstanceOf(UsageCappedError);
    expect(e).toBeInstanceOf(ProblemError);
    expect(e.kind).toBe("usage-capped");
    expect(e.period).toBe("Monthly");
    expect(e.scope).toBe("Product");
  });

  it("401 with code 89 is an InvalidTokenError; other v1.1 codes are OAuthErrors", async () => {
    service.handle((_q, res) => json(res, 401, { errors: [{ code: 89, message: "Invalid or expired token." }] }));
    const e = await failure();
    expect(e).toBeInstanceOf(InvalidTokenError);
    expect((e as InvalidTokenError).code).toBe(89);
    expect(e.status).toBe(401);
    expect(e.message).toMatch(/bot auth login/);

    service.handle((_q, res) => json(res, 401, { errors: [{ code: 32, message: "Could not authenticate you." }] }));
    const e2 = await failure();
    expect(e2).toBeInstanceOf(OAuthError);
    expect(e2).not.toBeInstanceOf(InvalidTokenError);
    expect((e2 as OAuthError).code).toBe(32);
  });

  it("403 with code 99 is a BearerTooFrequentError", async () => {
    service.handle((_q, res) =>
      json(res, 403, {
        errors: [{ code: 99, message: "Unable to verify your credentials", label: "authenticity_token_error" }],
      }),
    );
    expect(await failure()).toBeInstanceOf(BearerTooFrequentError);
  });

  it("a v2 problem is a ProblemError with type, kind, title, detail and the whole problem", async () => {
    const problem = {
      title: "Unsupported Authentication",
      detail: "Authenticating with OAuth 2.0 Application-Only is forbidden for this endpoint.",
      type: "https://api.twitter.com/2/problems/unsupported-authentication",
      status: 403,
    };
    service.handle((_q, res) => json(res, 403, problem, { "content-type": "application/problem+json" }));
    const e = (await failure()) as ProblemError;
    expect(e).toBeInstanceOf(ProblemError);
    expect(e.kind).toBe("unsupported-authentication");
    expect(e.title).toBe(problem.title);
    expect(e.detail).toBe(problem.detail);
    expect(e.status).toBe(403);
    expect(e.problem).toEqual(problem);
  });

  it("a 200 whose body is not JSON, or is truncated JSON, is a ResponseError", async () => {
    service.handle((_q, res) => {
      res.writeHead(200, { "content-type": "text/html" });
      res.end("<html>maintenance</html>");
    });
    const e = await failure();
    expect(e).toBeInstanceOf(ResponseError);
    expect(e.message).toMatch(/not valid JSON \(text\/html, 24 bytes\)/);

    service.handle((_q, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end('{"data":[{"id":"1","te');
    });
    expect(await failure()).toBeInstanceOf(ResponseError);
  });

  it("a body cut off before its Content-Length is a NetworkError", async () => {
    service.handle((_q, res, raw) => {
      res.writeHead(200, { "content-type": "application/json", "content-length": "500" });
      res.write('{"data":[');
      setImmediate(() => raw.socket.destroy());
    });
    const e = (await failure()) as NetworkError;
    expect(e).toBeInstanceOf(NetworkError);
    expect(e.aborted).toBe(false);
  });

  it("an unexpected status with an unknown body is a ResponseError with the status", async () => {
    service.handle((_q, res) => {
      res.writeHead(502, { "content-type": "text/html" });
      res.end("<h1>Bad gateway</h1>");
    });
    const e = await failure();
    expect(e).toBeInstanceOf(ResponseError);
    expect(e.status).toBe(502);
    expect(e.message).toMatch(/unexpected HTTP 502 with a body that is not JSON/);
  });

  it("a refused connection is a NetworkError that says so", async () => {
    await service.close();
    const e = (await failure()) as NetworkError;
    expect(e).toBeInstanceOf(NetworkError);
    expect(e.code).toBe("ECONNREFUSED");
    expect(e.message).toMatch(/connection refused/);
  });

  it("the caller's abort signal aborts the call with an aborted NetworkError", async () => {
    service.handle(() => {}); // never answers
    const ctl = new AbortController();
    const pending = client.users.me({}, { signal: ctl.signal });
    await service.waitForRequests(1);
    ctl.abort();
    const e = (await pending.catch((x: unknown) => x)) as NetworkError;
    expect(e).toBeInstanceOf(NetworkError);
    expect(e.aborted).toBe(true);
  });
});
