/**
 * Insults: aimed at the reader (rules/curses.ts, rules/insults.ts, and aimed.ts for words no
 * list has), at the people behind the account or a group the reply addresses
 * (rules/account-and-group-insults.ts), and name-calling about a third person (third-person.ts).
 */
import { describe, expect, it } from "vitest";
import { WEIGHTS } from "../../src/moderation/index.ts";
import { classifier, rulesAlone, rules, abusive, check } from "./verdicts.ts";

describe("insults aimed at the reader (rules/curses.ts, rules/insults.ts)", () => {
  it("hides insults aimed at someone, with or without swearing", () => {
    expect(rules(classifier.classify("you're a fucking idiot"))).toEqual(["insult:idiot", "profanity:fuck"]);
    expect(classifier.classify("you're a fucking idiot").score).toBe(0.79);
    expect(rules(classifier.classify("what a loser"))).toEqual(["insult:loser"]);
    expect(rules(classifier.classify("thanks for nothing, moron"))).toEqual(["insult:moron"]);
    expect(rules(classifier.classify("stfu"))).toEqual(["insult:stfu"]);
    expect(classifier.classify("are you stupid?").abusive).toBe(true);
  });

  it("does not treat insults about absent people or about oneself as abuse", () => {
    for (const text of [
      "the referee is an idiot",
      "I'm such an idiot, forgot my keys",
      "this take is stupid",
      "your bot is broken",
    ]) {
      expect(classifier.classify(text), text).toEqual({ abusive: false, score: 0, rules: [] });
    }
  });

  it("finds 'sack of' insults, not sacks of things", () => {
    expect(rules(classifier.classify("you useless sack of garbage"))).toContain("insult:sack-of");
    check({
      yes: ["sack of shit", "what a sack of crap", "you pathetic sack", "bag of dicks"],
      no: ["a sack of flour costs how much now?", "the sack race was fun", "a bag of chips"],
    });
  });

  it("counts an insult half beside laughter or affection, so banter passes and swearing at someone still does not", () => {
    const v = classifier.classify("you idiot 😂😂 I can't breathe");
    expect(v).toEqual({
      abusive: false,
      score: WEIGHTS.insult / 2,
      rules: [
        { rule: "insult:idiot", pattern: "insult:<word>/you-insult", match: "you idiot", weight: WEIGHTS.insult / 2 },
      ],
    });
    check({
      yes: ["you fucking idiot 😂", "kill yourself 😂", "you idiot", "lol you idiot"],
      no: [
        "haha you absolute clown, love it",
        "you numpty 😂 it's the other button",
        "bitch please, we both know you're right",
      ],
    });
  });

  it("lets a reclaimed word said of oneself through, and not the same word aimed", () => {
    check({ yes: ["shut up you dyke"], no: ["as a proud dyke, thank you for this", "the dyke march is on Saturday"] });
  });
});

describe("insults aimed at the reader in words no list has (aimed.ts)", () => {
  it("names the hit after the insult word and reports the words from 'you' to it", () => {
    expect(classifier.classify("you are a bumbling oaf").rules).toEqual([
      { rule: "insult:oaf", match: "you are a bumbling oaf", weight: WEIGHTS.insult },
    ]);
    expect(rules(classifier.classify("listen here you ignorant swine"))).toEqual(["insult:swine"]);
  });

  it("reads insults from the scored lexicon after 'you', 'you are', 'are you' and their spellings", () => {
    check({
      yes: [
        "ur a brainless twit",
        "you're repugnant",
        "u r one seriously deluded goblin",
        "are u a nincompoop?",
        "yer a pillock",
        "you sound like a gormless plonker",
      ],
      no: [
        "you are a genius",
        "ur a hero",
        "you're a gem",
        "you are so kind",
        "you are right, I was wrong",
        "are you free on Friday?",
      ],
    });
  });

  it("takes an unknown head noun as an insult after a strong insulting adjective, or 'of a human'", () => {
    check({
      yes: [
        "you festering boil",
        "you're a nasty, vindictive harpy",
        "you are an absolute walnut of a human",
        "honestly you are the most insufferable person on this site",
      ],
      no: [
        "you lovely boil of a brother",
        "you're a dark horse",
        "you're a night owl like me",
        "you are a human being with rights",
      ],
    });
  });

  it("lets praise, negation, a condition or a fond adjective stop it", () => {
    check({
      yes: ["u absolute cabbage", "you're an idiot", "what a fucking idiot"],
      no: [
        "you absolute legend",
        "what a bunch of absolute units",
        "what a fucking game, what a bloody mess",
        "such a bloody shame",
        "you're not stupid for asking",
        "you're never a burden",
        "if you are a racist, leave this page",
        "you cheeky bastard, you actually did it",
        "you crazy sod",
        "you silly goose",
        "you goof, you posted it twice",
      ],
    });
  });

  it("does not read an insult that a verb, pronoun or preposition puts on someone else", () => {
    check({
      yes: ["you two idiots", "you lot are a rabble of halfwits", "your dev team are a bunch of amateurs and frauds"],
      no: [
        "you hired a clown for the party?",
        "did you see that idiot driver",
        "you remind me of my stupid cat",
        "you made that moron look smart",
        "you and your silly puns",
      ],
    });
  });
});

describe("insults aimed at the account's people and at groups (rules/account-and-group-insults.ts)", () => {
  it("finds insults aimed at a group the reply addresses, not the same nouns elsewhere", () => {
    expect(rules(classifier.classify("what a bunch of idiots"))).toEqual(["insult:idiots"]);
    check({
      yes: [
        "you're all morons",
        "y'all are losers",
        "pack of losers, every one of you",
        "the replies are full of idiots",
      ],
      no: [
        "what a bunch of flowers! so pretty",
        "you're all invited to the party",
        "a pack of wolves on the trail cam",
        "everyone here is so nice",
      ],
    });
  });

  it("finds insults aimed at the people behind the account, not about absent third parties", () => {
    expect(rules(classifier.classify("whoever runs this account is a complete moron"))).toEqual(["insult:moron"]);
    check({
      yes: [
        "your admins are a bunch of clowns",
        "the person who programmed you is an idiot",
        "tell your owner he's a worthless hack",
      ],
      no: [
        "the referee is an idiot",
        "whoever runs this account is a genius",
        "the devs are legends",
        "the owner is wrong about this",
      ],
    });
  });

  it("finds insults said of whoever made the account, in the passive or by comparison", () => {
    check({
      yes: [
        "this page is run by a gutless weasel",
        "this bot was clearly made by a moron",
        "your takes are as dumb as you are",
        "typical gang of bootlicking losers",
      ],
      no: [
        "this page is run by volunteers, be kind",
        "your takes are as good as always",
        "a gang of geese on the lake",
      ],
    });
  });
});

describe("name-calling about a third person (third-person.ts)", () => {
  /** Each `yes` text fires `insult:<noun>` by the rules alone; each `no` text is not abusive to the rules alone. */
  const checkRules = (texts: { yes: Array<[string, string]>; no: string[] }) => {
    for (const [text, rule] of texts.yes) expect(rules(rulesAlone.classify(text)), text).toContain(rule);
    for (const [text] of texts.yes) expect(rulesAlone.classify(text).abusive, text).toBe(true);
    for (const text of texts.no) expect(rulesAlone.classify(text).abusive, text).toBe(false);
  };

  it("names the hit after the noun in the lexicon's spelling and reports the words that show a person is meant", () => {
    expect(rulesAlone.classify("this twat thinks the bus is late").rules).toContainEqual({
      rule: "insult:twat",
      match: "this twat thinks",
      weight: WEIGHTS.insult,
    });
    expect(rulesAlone.classify("complete bellend of a human").rules).toEqual([
      { rule: "insult:bellend", match: "bellend of a human", weight: WEIGHTS.insult },
    ]);
  });

  it("finds an insult noun as the subject of a verb only a person does, after a determiner or opening a clause", () => {
    checkRules({
      yes: [
        ["this twat thinks the bus is late", "insult:twat"],
        ["that bitch thinks she can dance", "insult:bitch"],
        ["b!tch thinks she can dance", "insult:bitch"],
        ["d i c k h e a d reckons he's funny", "insult:dickhead"],
        ["that prick keeps parking in my space", "insult:prick"],
        ["those wankers genuinely think they own the road", "insult:wanker"],
        ["the twats next door reckon the fence is theirs", "insult:twat"],
        ["the twat who cut me up on the M6", "insult:twat"],
      ],
      no: [
        "that girl thinks she can dance, and she can",
        "my idiot brother thinks he can cook, bless him",
        "Dick thinks it will rain later",
        "the rat keeps getting into the compost bin",
        "the clown says hello to every kid",
        "git says the branch is two commits behind",
        "did you see that idiot driver",
        "did you hear what that idiot councillor said about the library",
        "the referee is an idiot",
      ],
    });
  });

  it("finds a scornful 'the absolute ...' naming someone, but not a book title or a thing", () => {
    checkRules({
      yes: [
        ["the absolute bellend at table 4", "insult:bellend"],
        ["that fat lazy twat on reception", "insult:twat"],
      ],
      no: [
        "the complete idiot's guide to sourdough",
        "the idiot box is on all day",
        "the stupid bastard won't start again",
        "what a fucking game",
      ],
    });
  });

  it("finds '<insult> behaviour', '<insult> move' and '<insult> energy', not praise or self-mockery", () => {
    checkRules({
      yes: [
        ["idiot behaviour, parking on the kerb", "insult:idiot"],
        ["c.u.n.t behaviour", "insult:cunt"],
        ["tw@t move", "insult:twat"],
        ["proper bellend energy from the lad at the front", "insult:bellend"],
      ],
      no: [
        "big dick energy from that guitar solo",
        "bad bitch energy in the new video",
        "idiot behaviour from me, left my phone on the train",
        "rude behaviour from the bloke in the audi",
      ],
    });
  });

  it("finds '<insult> of a man/woman/human/bloke', not '<insult> of a thing'", () => {
    checkRules({
      yes: [
        ["absolute tosser of a man", "insult:tosser"],
        ["complete bellend of a human", "insult:bellend"],
        ["pig of a bloke, grabbed my arm", "insult:pig"],
        ["cunt of a landlord", "insult:cunt"],
      ],
      no: [
        "a bitch of a commute",
        "the bastard of a bug took me hours",
        "son of a gun",
        "what a beast of a man, deadlifted a car",
        "a giant of a man",
        "this prick of light is Venus",
      ],
    });
  });

  it("leaves swearing for emphasis, figures of speech, pity, fondness, quotes and look-alikes alone", () => {
    checkRules({
      yes: [],
      no: [
        "this fucking slaps",
        "holy shit",
        "this hill is a bitch",
        "this bastard keeps crashing",
        "this fucker keeps freezing on the loading screen",
        "that lucky bastard won the raffle again",
        "the poor sod thinks it's Friday",
        "this idiot thought it was Tuesday and missed my train",
        "I'm the idiot who left the oven on",
        "he called me a 'stupid bitch' and then blocked me",
        "Scunthorpe",
        "cocktail",
        "reading Dickens",
      ],
    });
  });
});
