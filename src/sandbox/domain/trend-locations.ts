/**
 * The places trends are reported for, by their real WOEIDs (Yahoo "Where On Earth" ids,
 * which the service's `GET /2/trends/by/woeid/:id` takes): the world, some countries and
 * some of their cities. A small table of the real codes; other codes are refused.
 *
 * Sandbox posts carry no place, so a post belongs to a place through its author's profile
 * `location`: "Berlin, Germany" counts for Berlin and for Germany (a city counts for its
 * country). Every post counts for the world.
 */

/** One place: its WOEID, name, the words a profile location names it by, and its country. */
export interface TrendLocation {
  woeid: number;
  name: string;
  placeType: "Supername" | "Country" | "Town";
  /** Lower-case names matched as whole words in a profile's `location`. */
  aliases: readonly string[];
  /** The WOEID of the country a town is in. */
  parent?: number;
}

export const TREND_LOCATIONS: readonly TrendLocation[] = [
  { woeid: 1, name: "Worldwide", placeType: "Supername", aliases: [] },
  {
    woeid: 23424977,
    name: "United States",
    placeType: "Country",
    aliases: ["united states", "usa", "u.s.a.", "us", "america"],
  },
  {
    woeid: 23424975,
    name: "United Kingdom",
    placeType: "Country",
    aliases: ["united kingdom", "uk", "england", "scotland", "wales", "great britain"],
  },
  { woeid: 23424829, name: "Germany", placeType: "Country", aliases: ["germany", "deutschland"] },
  { woeid: 23424819, name: "France", placeType: "Country", aliases: ["france"] },
  { woeid: 23424856, name: "Japan", placeType: "Country", aliases: ["japan", "日本"] },
  { woeid: 23424775, name: "Canada", placeType: "Country", aliases: ["canada"] },
  { woeid: 23424748, name: "Australia", placeType: "Country", aliases: ["australia"] },
  { woeid: 23424768, name: "Brazil", placeType: "Country", aliases: ["brazil", "brasil"] },
  { woeid: 23424848, name: "India", placeType: "Country", aliases: ["india"] },
  {
    woeid: 2459115,
    name: "New York",
    placeType: "Town",
    aliases: ["new york", "nyc", "brooklyn", "manhattan"],
    parent: 23424977,
  },
  { woeid: 2442047, name: "Los Angeles", placeType: "Town", aliases: ["los angeles"], parent: 23424977 },
  { woeid: 2487956, name: "San Francisco", placeType: "Town", aliases: ["san francisco", "sf"], parent: 23424977 },
  { woeid: 2379574, name: "Chicago", placeType: "Town", aliases: ["chicago"], parent: 23424977 },
  { woeid: 44418, name: "London", placeType: "Town", aliases: ["london"], parent: 23424975 },
  { woeid: 28218, name: "Manchester", placeType: "Town", aliases: ["manchester"], parent: 23424975 },
  { woeid: 638242, name: "Berlin", placeType: "Town", aliases: ["berlin"], parent: 23424829 },
  { woeid: 676757, name: "Munich", placeType: "Town", aliases: ["munich", "münchen"], parent: 23424829 },
  { woeid: 615702, name: "Paris", placeType: "Town", aliases: ["paris"], parent: 23424819 },
  { woeid: 1118370, name: "Tokyo", placeType: "Town", aliases: ["tokyo", "東京"], parent: 23424856 },
  { woeid: 4118, name: "Toronto", placeType: "Town", aliases: ["toronto"], parent: 23424775 },
  { woeid: 1105779, name: "Sydney", placeType: "Town", aliases: ["sydney"], parent: 23424748 },
  { woeid: 455827, name: "São Paulo", placeType: "Town", aliases: ["são paulo", "sao paulo"], parent: 23424768 },
  { woeid: 2295411, name: "Mumbai", placeType: "Town", aliases: ["mumbai", "bombay"], parent: 23424848 },
];

/** The place of a WOEID, or undefined for a code the sandbox does not know. */
export const trendLocation = (woeid: number): TrendLocation | undefined =>
  TREND_LOCATIONS.find((l) => l.woeid === woeid);

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

function names(place: TrendLocation, text: string): boolean {
  return place.aliases.some((a) => new RegExp(`(^|[^\\p{L}\\p{N}])${escape(a)}($|[^\\p{L}\\p{N}])`, "u").test(text));
}

/**
 * Whether a profile `location` lies in a place: the world holds everything; a country holds
 * a location that names it or one of its towns; a town, one that names it.
 */
export function locatedIn(place: TrendLocation, location: string | undefined): boolean {
  if (place.placeType === "Supername") return true;
  if (!location) return false;
  const text = location.toLowerCase();
  if (names(place, text)) return true;
  return (
    place.placeType === "Country" && TREND_LOCATIONS.some((town) => town.parent === place.woeid && names(town, text))
  );
}
