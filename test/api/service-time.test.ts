/**
 * The service's time beside the local clock (src/api/service-time.ts): learnt from the `Date`
 * of the service's answers, used where a time goes on the wire (the OAuth 1.0a timestamp,
 * `start_time`), said once; a request refused for its timestamp (401, code 135) is signed
 * again once with the service's time, and without a `Date` to learn from, the error says what
 * to do.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createClient, type ApiClient } from "../../src/api/client.ts";
import { OAuthError } from "../../src/api/errors.ts";
import { ServiceTime } from "../../src/api/service-time.ts";
import { createClock } from "../../src/clock.ts";
import { captureLogs } from "../helpers/log.ts";
import { fakeService, json, type FakeService } from "./fake-service.ts";

const T = Date.parse("2026-03-01T12:00:00Z");
const consumer = { key: "app-key", secret: "app-secret" };
const user = { token: "1-user-token", secret: "user-secret" };
let service: FakeService | undefined;
let client: ApiClient | undefined;
afterEach(async () => {
  await client?.close();
  await service?.close();
  client = undefined;
  service = undefined;
});

const refused = { errors: [{ code: 135, message: "Timestamp out of bounds." }] };
const post = { data: { id: "1", text: "hi", edit_history_post_ids: ["1"] } };
/** The `oauth_timestamp` of a request (seconds). */
const timestampOf = (authorization: string | undefined) =>
  Number(/oauth_timestamp="(\d+)"/.exec(authorization ?? "")?.[1]);

describe("ServiceTime", () => {
  it("applies an offset past a minute, says so once, and once more when the clocks agree again", () => {
    const clock = createClock({ frozen: true, start: T });
    const { lines, logger } = captureLogs("info");
    const time = new ServiceTime(clock, logger);
    time.observe(new Date(T + 30_000).toUTCString());
    expect(time.offsetMs).toBe(0);
    time.observe(new Date(T - 2 * 3_600_000).toUTCString());
    expect(time.offsetMs).toBe(-2 * 3_600_000 + 500);
    expect(time.now()).toBe(T - 2 * 3_600_000 + 500);
    // The same skew, seen again within the header's second: nothing new to say.
    time.observe(new Date(T - 2 * 3_600_000 + 1_000).toUTCString());
    time.observe(new Date(T - 2 * 3_600_000 - 1_000).toUTCString());
    time.observe(undefined);
    time.observe("not a date");
    expect(lines.map((l) => l.msg)).toEqual([
      "the local clock is 2 h 0 min ahead of the service's (by the Date of its responses): requests are signed with the service's time; set this host's clock right (NTP)",
    ]);
    time.observe(new Date(T).toUTCString());
    expect(time.offsetMs).toBe(0);
    expect(lines.at(-1)!.msg).toBe(
      "the local clock agrees with the service's again: requests are signed with the local time",
    );
  });
});

describe("a client whose clock is off from the service's", () => {
  it("signs again once with the service's time when its timestamp is refused, then signs with it from the start", async () => {
    const service_ = await fakeService((req, res) => {
      const skew = Math.abs(timestampOf(req.headers.authorization) * 1000 - T);
      const date = new Date(T).toUTCString();
      if (skew > 5 * 60_000) return json(res, 401, refused, { date });
      json(res, 200, post, { date });
    });
    service = service_;
    const clock = createClock({ frozen: true, start: T + 2 * 3_600_000 });
    client = createClient({ baseUrl: service_.url, clock, auth: { consumer, user } });
    expect((await client.posts.lookup("1")).data?.id).toBe("1");
    expect(service_.requests.map((r) => timestampOf(r.headers.authorization) * 1000 - T)).toEqual([2 * 3_600_000, 0]);
    await client.request("GET /2/users/:id/posts", {
      params: { id: "1" },
      query: { start_time: new Date(clock.now() - 60_000) },
    });
    expect(service_.requests).toHaveLength(3);
    // The time parameter is in the service's time too: a minute before its now, not two hours ahead.
    expect(service_.requests[2]!.query.get("start_time")).toBe("2026-03-01T11:59:00Z");
  });

  it("without a Date to learn from, the refusal says what to do", async () => {
    const service_ = await fakeService((_req, res) => {
      res.sendDate = false;
      json(res, 401, refused);
    });
    service = service_;
    client = createClient({
      baseUrl: service_.url,
      clock: createClock({ frozen: true, start: T }),
      auth: { consumer, user },
    });
    const err = await client.posts.lookup("1").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OAuthError);
    expect((err as OAuthError).code).toBe(135);
    expect((err as Error).message).toMatch(
      /more than 5 minutes off the service's: set this host's clock right \(NTP\)/,
    );
    expect(service_.requests).toHaveLength(1);
  });
});
