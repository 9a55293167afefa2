import { describe, expect, it } from "vitest";
import { ReconnectPolicy, type ReconnectCause } from "../../../src/api/stream/reconnect-policy.ts";

const delays = (policy: ReconnectPolicy, cause: ReconnectCause, n: number) =>
  Array.from({ length: n }, () => policy.next(cause));

describe("the documented reconnect policy", () => {
  it("reconnects at once after an established connection drops, stalls or sends an error", () => {
    const p = new ReconnectPolicy();
    expect([p.next("drop"), p.next("stall"), p.next("stream-error")]).toEqual([0, 0, 0]);
  });

  it("backs off network errors linearly by 250 ms up to 16 s", () => {
    const d = delays(new ReconnectPolicy(), "network", 66);
    expect(d.slice(0, 4)).toEqual([250, 500, 750, 1000]);
    expect(d[63]).toBe(16_000);
    expect(d[65]).toBe(16_000);
  });

  it("backs off HTTP errors exponentially from 5 s up to 320 s", () => {
    expect(delays(new ReconnectPolicy(), "http", 9)).toEqual([
      5_000, 10_000, 20_000, 40_000, 80_000, 160_000, 320_000, 320_000, 320_000,
    ]);
  });

  it("backs off 429 exponentially from 60 s, up to the 15-minute window", () => {
    expect(delays(new ReconnectPolicy(), "rate-limit", 6)).toEqual([
      60_000, 120_000, 240_000, 480_000, 900_000, 900_000,
    ]);
  });

  it("keeps each cause's count separately and starts over once a connection is established", () => {
    const p = new ReconnectPolicy();
    expect([p.next("http"), p.next("network"), p.next("http"), p.next("network")]).toEqual([5_000, 250, 10_000, 500]);
    expect(p.attempts).toBe(4);
    p.connected();
    expect(p.attempts).toBe(0);
    expect([p.next("http"), p.next("network"), p.next("rate-limit")]).toEqual([5_000, 250, 60_000]);
  });
});
