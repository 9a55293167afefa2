/**
 * Harassment: exclusion and dehumanisation (rules/harassment.ts), pile-ons, persistence and
 * exposure (rules/pile-ons.ts), and sexual remarks (rules/sexual-remarks.ts).
 */
import { describe, expect, it } from "vitest";
import { WEIGHTS } from "../../src/moderation/index.ts";
import { classifier, rules, check, checkRule } from "./verdicts.ts";

describe("harassment (rules/harassment.ts)", () => {
  it("finds harassment without a swear word", () => {
    expect(rules(classifier.classify("nobody would miss you"))).toEqual(["harassment:nobody-would-miss-you"]);
    expect(rules(classifier.classify("go back to where you came from"))).toEqual(["harassment:go-back"]);
    expect(classifier.classify("nobody would miss you").score).toBe(WEIGHTS.harassment);
    expect(classifier.classify("nobody would miss the old UI").abusive).toBe(false);
  });

  it("finds exclusion and questions about someone's underwear, not their look-alikes", () => {
    checkRule("harassment:not-welcome", { yes: ["you're not welcome here"], no: ["you're welcome here any time"] });
    checkRule("harassment:sexual", {
      yes: ["what's your bra size", "nice legs babe"],
      no: ["what's your shoe size? ordering gifts", "nice legs on that table"],
    });
  });
});

describe("pile-ons, persistence and exposure (rules/pile-ons.ts)", () => {
  it("finds persistence the reader cannot escape, and not its friendly look-alikes", () => {
    check({
      yes: [
        "blocking me won't help, i have twenty more accounts",
        "i'm going to keep tagging you until you answer me",
        "i'll follow you to every thread you post in",
      ],
      no: [
        "I'll keep tagging you in the good ones",
        "blocking me won't help you win the argument lol",
        "I'll be in your DMs every morning with the report",
      ],
    });
  });

  it("finds calls to pile on or mass-report the account, and not calls to send it love", () => {
    checkRule("harassment:mass-report", {
      yes: ["everyone mass report this account", "report this page until it's gone", "let's get her account suspended"],
      no: [
        "our account got mass reported last week, sorry for the downtime",
        "please report the bug on the tracker",
        "let's get this thread to 1k likes",
      ],
    });
    checkRule("harassment:pile-on", {
      yes: ["everyone go flood her replies", "let's all spam his mentions"],
      no: ["let's flood her replies with love", "everyone go check out the new replies feature"],
    });
    checkRule("harassment:persistent", {
      yes: ["i'll be in every one of your replies", "wherever you post, i'll be there"],
      no: ["I'll be at every one of your gigs!", "I'll be in the front row"],
    });
  });

  it("does not take a reported call to pile on, or a screenshot for someone's mum, as harassment", () => {
    checkRule("harassment:pile-on", {
      yes: ["people go flood her inbox"],
      no: [
        "someone told people to flood her inbox last night, that's not okay",
        "screenshot n send to ur mum, she'll love it",
      ],
    });
    checkRule("harassment:exposure", {
      yes: ["keep posting, i'm screenshotting it all for your boss"],
      no: ["screenshot this for your mum, she'll be so proud"],
    });
  });
});

describe("sexual remarks (rules/sexual-remarks.ts)", () => {
  it("finds sexual remarks without sexual words, and not the compliments and requests they resemble", () => {
    checkRule("harassment:sexual", {
      yes: [
        "your legs look amazing in that",
        "send me a pic of yourself",
        "more pics babe",
        "are you wearing anything under that",
        "you should wear something tighter",
        "i'd love to touch those thighs",
        "how old are you sweetie",
      ],
      no: [
        "send me a pic of the error message",
        "your body of work is amazing",
        "your legs must be tired after that marathon",
        "what are you wearing to the wedding?",
        "how old are you now? the bot I mean",
        "post more pics of the garden please",
      ],
    });
  });
});
