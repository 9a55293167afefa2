import { describe, expect, it } from "vitest";
import { inWindow, paginate, readPage, readWindow, sortKey } from "../../../src/sandbox/domain/paging.ts";
import { Params } from "../../../src/sandbox/domain/params.ts";
import { ApiProblem } from "../../../src/sandbox/problems.ts";
import { compareIds } from "../../../src/sandbox/model/index.ts";
import { invalidMessage } from "./world.ts";

const params = (
  q: Record<string, string>,
  allowed = ["max_results", "pagination_token", "since_id", "until_id", "start_time", "end_time"],
) => new Params(new URLSearchParams(q), allowed);
const items = Array.from({ length: 7 }, (_, i) => String(100 + i)); // ids 100..106
const key = (id: string) => sortKey(id);

describe("paginate", () => {
  it("pages newest first, forward with next_token and back with previous_token, whatever the input order", () => {
    const shuffled = ["103", "100", "106", "101", "105", "102", "104"];
    const p1 = paginate(shuffled, key, readPage(params({ max_results: "3" }), { min: 1, max: 10, def: 5 }));
    expect(p1.items).toEqual(["106", "105", "104"]);
    expect(p1.previous_token).toBeUndefined();
    const p2 = paginate(
      items,
      key,
      readPage(params({ max_results: "3", pagination_token: p1.next_token! }), { min: 1, max: 10, def: 5 }),
    );
    expect(p2.items).toEqual(["103", "102", "101"]);
    const p3 = paginate(
      items,
      key,
      readPage(params({ max_results: "3", pagination_token: p2.next_token! }), { min: 1, max: 10, def: 5 }),
    );
    expect(p3.items).toEqual(["100"]);
    expect(p3.next_token).toBeUndefined();
    const back = paginate(
      items,
      key,
      readPage(params({ max_results: "3", pagination_token: p3.previous_token! }), { min: 1, max: 10, def: 5 }),
    );
    expect(back.items).toEqual(["103", "102", "101"]);
  });

  it("keeps a page stable when newer items arrive above it", () => {
    const p1 = paginate(items, key, { max: 3 });
    const grown = [...items, "107", "108"];
    const p2 = paginate(
      grown,
      key,
      readPage(params({ pagination_token: p1.next_token! }), { min: 1, max: 10, def: 3 }),
    );
    expect(p2.items).toEqual(["103", "102", "101"]);
  });

  it("makes opaque tokens of at least 16 characters and refuses forged ones", () => {
    const p = paginate(items, key, { max: 2 });
    expect(p.next_token!.length).toBeGreaterThanOrEqual(16);
    expect(() => readPage(params({ pagination_token: "abc" }), { min: 1, max: 10, def: 5 })).toThrow(ApiProblem);
    expect(
      invalidMessage(() =>
        readPage(params({ pagination_token: Buffer.from("x:123456789012345").toString("base64url") }), {
          min: 1,
          max: 10,
          def: 5,
        }),
      ),
    ).toMatch(/not valid/);
  });

  it("checks max_results against the family's range, with its default", () => {
    expect(readPage(params({}), { min: 5, max: 100, def: 10 }).max).toBe(10);
    expect(invalidMessage(() => readPage(params({ max_results: "101" }), { min: 5, max: 100, def: 10 }))).toMatch(
      /not between 5 and 100/,
    );
    expect(invalidMessage(() => readPage(params({ max_results: "ten" }), { min: 5, max: 100, def: 10 }))).toMatch(
      /\[ten\]/,
    );
  });
});

describe("windows", () => {
  const t = Date.parse("2026-03-02T12:00:00Z");
  it("keeps ids strictly between since_id and until_id, times in [start, end)", () => {
    const w = readWindow(params({ since_id: "101", until_id: "105" }), true);
    expect(items.filter((id) => inWindow(w, id, t, compareIds))).toEqual(["102", "103", "104"]);
    const tw = readWindow(params({ start_time: "2026-03-02T12:00:00Z", end_time: "2026-03-02T12:00:01Z" }), true);
    expect(inWindow(tw, "1", t, compareIds)).toBe(true);
    expect(inWindow(tw, "1", t + 1000, compareIds)).toBe(false);
    expect(inWindow(tw, "1", t - 1, compareIds)).toBe(false);
  });

  it("lets ids win over times on timelines, and applies both in search", () => {
    const q = { since_id: "101", start_time: "2030-01-01T00:00:00Z" };
    expect(readWindow(params(q), true).start_time).toBeUndefined();
    expect(readWindow(params(q), false).start_time).toBe(Date.parse("2030-01-01T00:00:00Z"));
  });

  it("refuses a start_time not before end_time and unparseable times", () => {
    expect(
      invalidMessage(() =>
        readWindow(params({ start_time: "2026-03-02T12:00:00Z", end_time: "2026-03-02T12:00:00Z" }), true),
      ),
    ).toMatch(/must be before/);
    expect(invalidMessage(() => readWindow(params({ end_time: "2026-13-02" }), true))).toMatch(/Invalid 'end_time'/);
  });
});

describe("Params", () => {
  it("refuses unknown and repeated parameters, naming them", () => {
    expect(invalidMessage(() => params({ bogus: "1" }))).toMatch(/\[bogus\] is not one of/);
    expect(
      invalidMessage(() => new Params(new URLSearchParams("max_results=1&max_results=2"), ["max_results"])),
    ).toMatch(/more than once/);
  });
});
