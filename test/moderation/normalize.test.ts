import { describe, expect, it } from "vitest";
import { collapseRepeats, normalize, normalizePattern, originalSpan } from "../../src/moderation/normalize.ts";

const collapsed = (text: string) => normalize(text).collapsed.text;
const folded = (text: string) => normalize(text).folded.text;

describe("normalize", () => {
  it("reads leetspeak inside words but leaves numbers and punctuation alone", () => {
    expect(collapsed("k1ll y0urs3lf")).toBe("kil yourself");
    expect(folded("sh!t $hit @ss")).toBe("shit shit ass");
    expect(folded("wow! 100 people at 5pm")).toBe("wow! 100 people at spm");
    expect(folded("!important")).toBe("!important");
    expect(folded("a$$hole a$$ you!!! $5")).toBe("asshole ass you!!! $5");
  });

  it("fills in masked swear words, and only those", () => {
    expect(folded("f**k off, sh*t, a**hole, f***ing, f-ck")).toBe("fuck off, shit, asshole, fucking, fuck");
    expect(folded("e-mail the x-ray team")).toBe("e-mail the x-ray team");
    expect(folded("f**x")).toBe("f**x");
  });

  it("joins letters spelt out one at a time, three or more", () => {
    expect(folded("f u c k you")).toBe("fuck you");
    expect(folded("k.y.s")).toBe("kys");
    expect(folded("k-i-l-l y-o-u-r-s-e-l-f")).toBe("kill yourself");
    expect(folded("plan a b")).toBe("plan a b");
    // Three-character gaps when they are not all spaces ("k . y . s"); three spaces are a break.
    expect(folded("k . y . s")).toBe("kys");
    expect(folded("you're a f . a . g")).toBe("youre a fag");
    expect(folded("plan a   b   c")).toBe("plan a b c");
  });

  it("keeps a one-letter word apart from a spelt-out word after it", () => {
    // Dots between the letters, a plain space before them: the space is a word break.
    expect(folded("you're a f.a.g.g.o.t")).toBe("youre a faggot");
    expect(folded("you're a n-i-g-g-e-r")).toBe("youre a nigger");
    expect(folded("what a m.o.r.o.n")).toBe("what a moron");
    expect(folded("a f.a.g")).toBe("a fag");
    // Spaces only: "a" leads when the rest spells a known masked word.
    expect(folded("ur a f a g g o t")).toBe("ur a faggot");
    expect(folded("u r a b i t c h")).toBe("urabitch");
    // Two dotted letters after a space stay as written.
    expect(folded("plan a.b c")).toBe("plan a.b c");
  });

  it("resolves Unicode look-alikes, full-width letters and accents, and drops the rest", () => {
    expect(folded("ƒυ¢κ уσυ")).toBe("fuck you");
    expect(folded("ｆｕｃｋ")).toBe("fuck");
    expect(folded("fück café")).toBe("fuck cafe");
    expect(folded("great 😂 post")).toBe("great post");
  });

  it("drops apostrophes and squeezes spaces, so contractions read as one word", () => {
    expect(folded("you’re   dead")).toBe("youre dead");
    expect(folded("I'll")).toBe("ill");
  });

  it("blanks the @mentions that open a reply, unless they are the whole text", () => {
    expect(folded("@bot @Scunthorpe_FC nice")).toBe("nice");
    expect(folded("thanks @alice")).toBe("thanks aalice");
    expect(folded("@sshole")).toBe("asshole");
  });

  it("collapses repeated characters", () => {
    expect(collapsed("fuuuuck youuuu!!!")).toBe("fuck you!");
    expect(collapseRepeats({ text: "aab", from: [0, 1, 2], to: [1, 2, 3] })).toEqual({
      text: "ab",
      from: [0, 2],
      to: [2, 3],
    });
  });

  it("traces every character back to the original, through every step", () => {
    const original = "@bot Y0U  @re a f**k1ng c u n t 😂";
    const { collapsed: c } = normalize(original);
    expect(c.text).toBe("you are a fucking cunt");
    const at = (word: string) => {
      const start = c.text.indexOf(word);
      const span = originalSpan(c, start, start + word.length);
      return original.slice(span.start, span.end);
    };
    expect(at("you")).toBe("Y0U");
    expect(at("are")).toBe("@re");
    expect(at("fucking")).toBe("f**k1ng");
    expect(at("cunt")).toBe("c u n t");
  });

  it("keeps surrogate pairs whole when tracing", () => {
    const original = "𝔣𝔲𝔠𝔨 off";
    const { folded: f } = normalize(original);
    expect(f.text).toBe("fuck off");
    const span = originalSpan(f, 0, 4);
    expect(original.slice(span.start, span.end)).toBe("𝔣𝔲𝔠𝔨");
  });

  it("normalises patterns as input is collapsed, without touching regex syntax", () => {
    expect(normalizePattern("I'll KILL (?:you|u)")).toBe("il kil (?:you|u)");
    expect(normalizePattern("[^a-z0-9]*")).toBe("[^a-z0-9]*");
  });
});
