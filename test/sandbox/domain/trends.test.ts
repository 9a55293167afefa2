import { describe, expect, it } from "vitest";
import { locatedIn, trendLocation } from "../../../src/sandbox/domain/trend-locations.ts";
import { categoryOf, rankTrends, termsOf } from "../../../src/sandbox/domain/trends.ts";

describe("trend terms", () => {
  it("takes hashtags and uncommon words once each, leaving out links, mentions, cashtags and short or common words", () => {
    const terms = termsOf("@bob The #Rust release is out! Rust rust https://example.com/rust $TSLA ok l'été");
    expect([...terms.entries()]).toEqual([
      ["#rust", { name: "#Rust", hashtag: true }],
      ["release", { name: "release", hashtag: false }],
      ["rust", { name: "Rust", hashtag: false }],
      ["l'été", { name: "l'été", hashtag: false }],
    ]);
  });

  it("ranks by count, then the most recent start, then name; categories start at word boundaries", () => {
    const t = (name: string, count: number, since: number) => ({ name, count, since, hashtag: false });
    expect(rankTrends([t("b", 2, 1), t("a", 2, 1), t("c", 2, 5), t("d", 9, 0)]).map((x) => x.name)).toEqual([
      "d",
      "c",
      "a",
      "b",
    ]);
    expect(categoryOf("#WorldCup")).toBe("Trending");
    expect(categoryOf("#football")).toBe("Sports");
    expect(categoryOf("TypeScript")).toBe("Technology");
    expect(categoryOf("again")).toBe("Trending");
  });
});

describe("trend locations", () => {
  it("knows real WOEIDs and places profile locations in towns and their countries", () => {
    expect(trendLocation(1)?.name).toBe("Worldwide");
    expect(trendLocation(2459115)?.name).toBe("New York");
    expect(trendLocation(424242)).toBeUndefined();
    const us = trendLocation(23424977)!;
    const nyc = trendLocation(2459115)!;
    const berlin = trendLocation(638242)!;
    expect(locatedIn(trendLocation(1)!, undefined)).toBe(true);
    expect(locatedIn(us, "Brooklyn, NY")).toBe(true);
    expect(locatedIn(nyc, "Brooklyn, NY")).toBe(true);
    expect(locatedIn(us, "Berlin")).toBe(false);
    expect(locatedIn(berlin, "Berlin, Germany")).toBe(true);
    expect(locatedIn(berlin, "Berlinale fan")).toBe(false);
    expect(locatedIn(berlin, undefined)).toBe(false);
  });
});
