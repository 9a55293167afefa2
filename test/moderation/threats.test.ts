/**
 * Threats: of violence (rules/threats.ts), incitement to self-harm and death wishes
 * (rules/self-harm.ts, rules/death-wishes.ts), threats with no violent word
 * (rules/veiled-threats.ts), and the literal senses of the idioms they are made of.
 */
import { describe, expect, it } from "vitest";
import { classifier, rulesAlone, rules, check, checkRule } from "./verdicts.ts";

describe("threats of violence (rules/threats.ts)", () => {
  it("finds threats without a swear word, and not their figures of speech", () => {
    expect(rules(classifier.classify("kill yourself"))).toEqual(["threat:kill-yourself"]);
    expect(rules(classifier.classify("k y s"))).toEqual(["threat:kys"]);
    expect(rules(classifier.classify("I KNOW WHERE YOU LIVE"))).toEqual(["threat:know-where-you-live"]);
    expect(rules(classifier.classify("i'm g0nna k1ll u"))).toEqual(["threat:violence"]);
    expect(rules(classifier.classify("I hope you die"))).toEqual(["threat:wish-death"]);
    expect(rules(classifier.classify("I'll post your home address"))).toEqual(["threat:dox"]);
    for (const text of [
      "I'm dying of laughter",
      "this game kills it",
      "I'll kill the process",
      "i will beat you at chess",
      "I hope you die laughing",
    ]) {
      expect(classifier.classify(text).abusive, text).toBe(false);
    }
  });

  it("finds calls to pile on a person, and threats of a beating, not their idioms", () => {
    check({
      yes: [
        "guys let's all pile on this clown",
        "touch my post again and you're getting a slap",
        "i'll wring your scrawny neck",
        "i'd knock your teeth out",
      ],
      no: [
        "lets all pile on the pancakes this morning",
        "you're getting a slap on the wrist at most",
        "i'll knock your socks off with this recipe",
      ],
    });
  });

  it("finds threats of hospital, visits and 'before I make you', not their harmless twins", () => {
    check({
      yes: [
        "gonna send you to the ER",
        "you'll be in a wheelchair by the time i'm done",
        "you won't be laughing when i turn up at your door",
        "quit posting before i make you",
      ],
      no: [
        "gonna send you the slides",
        "I'll put you in touch with the team",
        "we'll put you on the guest list",
        "what are you wearing to the wedding?",
      ],
    });
  });
});

describe("self-harm and death wishes (rules/self-harm.ts, rules/death-wishes.ts)", () => {
  it('reads "off yourself" as a threat only as a command, not "take care of yourself"', () => {
    for (const text of [
      "off yourself",
      "go off yourself, loser",
      "just off urself already",
      "you should off yourself",
      "nobody likes you. off yourself",
    ]) {
      expect(rules(classifier.classify(text)), text).toContain("threat:kill-yourself");
    }
    // Normalised, "off" is "of": these fired the threat until it needed a command.
    for (const text of [
      "take care of yourself",
      "you should be proud of yourself",
      "be kind to yourself and take care of yourself x",
      "make the most of yourself this year",
    ]) {
      expect(rulesAlone.classify(text), text).toEqual({ abusive: false, score: 0, rules: [] });
      expect(classifier.classify(text).abusive, text).toBe(false);
    }
  });

  it("finds death wishes that do not say 'kill', and not the figures of speech that sound like them", () => {
    expect(rules(classifier.classify("drop dead"))).toEqual(["threat:wish-death"]);
    check({
      yes: [
        "hope you choke",
        "go play in traffic",
        "nobody would care if you died",
        "wish you were dead",
        "should have been aborted",
        "stop existing",
      ],
      no: [
        "drop dead gorgeous",
        "hope you feel better soon",
        "I'm dying of laughter",
        "you killed it",
        "kill it on stage tonight!",
        "I'd kill for a coffee",
      ],
    });
  });

  it("finds death wishes without 'kill' or 'die you'", () => {
    check({
      yes: [
        "may you rot",
        "hope a piano falls on you",
        "wishing you a slow painful end",
        "go step in front of a train",
        "i'd dance at your funeral",
        "may your bloodline end with you",
      ],
      no: [
        "I hope your plane lands safely",
        "may your family be blessed",
        "can't wait to read your next post",
        "I'd dance at your wedding any day",
      ],
    });
  });
});

describe("veiled threats (rules/veiled-threats.ts)", () => {
  it("finds threats with no violent word, and not the friendly remarks they are built from", () => {
    checkRule("threat:veiled", {
      yes: [
        "I know your car. see you soon",
        "saw your kids at the park. be seeing you",
        "nice house. shame if something happened to it",
        "nice car you've got... for now",
        "accidents happen to people like you",
        "it'd be a shame if your shop caught fire",
        "you'll be sorry.",
        "I know your route home. consider yourself warned",
        "we'll be outside your office at 5. you've been warned",
      ],
      no: [
        "nice car! see you at the meet",
        "I love your dog, see you soon!",
        "accidents happen, don't worry about the spill",
        "it would be a shame if this series ended",
        "I'm coming for your parkrun PB next week, consider yourself warned",
        "you've been warned: the new spin instructor takes no prisoners",
        "we'll be outside your office at 6 for your birthday drinks",
        "you'll be sorry you missed this gig, it was great",
        "see you soon!",
      ],
    });
    checkRule("threat:stalking", {
      yes: [
        "I know what time you leave work",
        "i know which gym you go to",
        "followed you home yesterday",
        "been watching your house",
      ],
      no: [
        "I know what you mean",
        "I followed you from your old account",
        "been watching your videos for years",
        "I know the way you think",
      ],
    });
  });

  it("finds threats of what the speaker can do or reach, and not the same words meant kindly", () => {
    checkRule("threat:veiled", {
      yes: [
        "I'd be careful if I were you",
        "you have no idea what I'm capable of",
        "we have people in your area",
        "I'll make sure your career is over",
      ],
      no: [
        "be careful out there, the roads are icy",
        "you have no idea how happy this makes me",
        "we have people in your area who can help, call us",
        "your career is over? no way, you're brilliant",
      ],
    });
    checkRule("threat:violence", {
      yes: [
        "you'll be leaving in an ambulance",
        "you'll be found in a ditch",
        "i'll drown you in the bath",
        "you're getting jumped",
      ],
      no: ["you'll be leaving in a limo", "i'll beat you in the final", "you're getting jumper cables for christmas"],
    });
  });
});

describe("literal senses of threatening idioms", () => {
  it("reads 'watch your back on the ice', 'you daft sod, you ...', 'how much for an hour of tutoring' and 'where you are coming from' literally", () => {
    for (const text of [
      "watch your back on the ice this morning",
      "you daft sod, you left your umbrella at the library",
      "how much for an hour of tutoring?",
      "I know where you are coming from",
      "we know where you are: top of the league!",
    ]) {
      expect(rulesAlone.classify(text), text).toEqual({ abusive: false, score: 0, rules: [] });
    }
    for (const text of ["watch your back", "sod you", "how much for an hour babe", "i know where you are"])
      expect(rulesAlone.classify(text).abusive, text).toBe(true);
  });

  it("leaves a jump start, a stretch and a clean kitchen alone", () => {
    for (const text of [
      "I'll jump your car if the battery's flat",
      "bend over, touch your toes, hold for ten",
      "a spic and span kitchen is my dream",
    ]) {
      expect(rulesAlone.classify(text), text).toEqual({ abusive: false, score: 0, rules: [] });
    }
  });
});
