/**
 * Doxxing (rules/doxxing.ts): a private detail given about the reader or offered to the
 * crowd, not the same words without one.
 */
import { describe, expect, it } from "vitest";
import { checkRule } from "./verdicts.ts";

describe("doxxing (rules/doxxing.ts)", () => {
  it("finds a private detail given about the reader or their people, not the same words without one", () => {
    checkRule("threat:dox", {
      yes: [
        "your mum's number is 07700 900123",
        "your email: jane.doe@example.com, enjoy the spam",
        "you live on Mill Lane",
        "your kids go to Hillside Primary",
        "your son goes to St Bede's",
        "everyone's going to know where you live",
        "soon everyone will know who you really are",
        "your home address is going online tonight",
        "what if someone posted your address",
        "everyone ring her on 0161 496 0000",
      ],
      no: [
        "your number is up, old printer",
        "is your email support@example.com? I wrote twice",
        "do you live on Mill Lane too? we're neighbours",
        "your kids go to school on Monday right?",
        "does your daughter go to Hillside Primary? mine starts there",
        "everyone will know your name one day, keep going",
        "your details are on the invoice",
      ],
    });
  });

  it("finds offers of someone's details to the crowd, and not a shop's own contact details", () => {
    checkRule("threat:dox", {
      yes: ["who wants her home address?", "his address is in my bio", "posted your address in the group chat"],
      no: ["our address is on the contact page", "who wants the recipe? it's in my bio"],
    });
  });
});
