/**
 * Doxxing: a private detail given about the reader or their people ("your mum's number is
 * 07…", "you live on Elm Road", "your kids go to St Anne's right?"), knowing or finding it
 * ("I know where you live", "found your address"), or a threat to publish it ("everyone
 * will know where you live", "posting your address"). The detail must have the shape of one
 * (digits, an address, a named school), and a question or a detail the account published
 * itself ("found your address on the contact page") is not one.
 */
import { PERSONAL_DETAILS, PRIVATE_DETAILS } from "../lexicon.ts";
import { oneOf } from "../pattern.ts";
import {
  adverbs,
  agents,
  audience,
  email,
  family,
  kin,
  namedSchool,
  notAsked,
  phone,
  possessive,
  publicPlace,
  street,
  toldNotAsked,
  words,
  you,
} from "./fragments.ts";
import type { PhraseRuleEntry } from "./phrase-rule.ts";

export const DOXXING: readonly PhraseRuleEntry[] = [
  {
    id: "threat:know-where-you-live/know-where-you-live",
    pattern: () =>
      `(?:i|1|we) (?:will |l |can |are going to |re going to |gonna |am going to |m going to )?` +
      `(?:know|found|have found|know exactly|find|find out|found out) (?:where|were) (?:${you()}|${possessive} ${family}) ` +
      `(?:live|lives|living|work|works|sleep|sleeps|go to school|goes to school|study|stay|stays|` +
      `are(?![^a-z0-9]*:| coming from| going with| heading with))`,
    hit: "I KNOW WHERE YOU LIVE",
    miss: "I know where you're coming from",
  },
  {
    id: "threat:know-where-you-live/know-where-they-live",
    pattern: () => `(?:i|1|we) (?:know|found|found out) where ${words(7)}(?:lives|live|works|sleeps)(?![a-z0-9])`,
    hit: "we found out where your brother works",
    miss: "we know where the party is",
  },
  {
    id: "threat:know-where-you-live/know-where-your-home-is",
    pattern: () =>
      `(?:i|we) (?:know|found|found out) where ${possessive} (?:office|house|home|work|school|kids|family|car|parents) (?:is|are|live|lives)` +
      `(?=[^a-z0-9]*$|[^a-z0-9]*[.!]| (?:and|btw|now|too))`,
    hit: "we know where your office is",
    miss: "we know where your office is, see you at 10 for the meeting",
  },
  {
    id: "threat:know-where-you-live/know-which-school",
    pattern: () =>
      `(?:know|found|find out|found out) (?:which|what|where) school ${possessive} (?:kids?|children|son|daughter|boy|girl)`,
    hit: "I know which school your kids go to",
    miss: "which school did your kids go to? we're choosing one now",
  },
  {
    id: "threat:know-where-you-live/know-your-address",
    pattern: () =>
      `(?:i|1|we) (?:know|found|have|got|found out|tracked down|traced) ${possessive} ` +
      `(?:home |house |real |work |exact )?(?:address|adress|workplace|ip|ip address|real name|location|kids school|childrens school)${publicPlace}`,
    hit: "i know your real name, sarah",
    miss: "I found your address on the contact page",
  },
  {
    id: "threat:dox/dox-you",
    pattern: () => `(?:dox|doxx|doxing|doxxing|doxed|doxxed) (?:${you()}|him|her|them|this|${possessive})`,
    hit: "time to dox this clown",
    miss: "what does dox mean?",
  },
  {
    id: "threat:dox/found-your-details",
    pattern: () =>
      `(?<!(?:${you()}|do|did) )(?:^|i |we |just |already )?(?:found|got|have|tracked down|traced|posting|leaking|sharing|publishing|dug up) ` +
      `${possessive} (?:${family}s? )?(?:home |house |real |work |exact |` +
      `full )?(?:${oneOf(PRIVATE_DETAILS)})(?! is| are| was| please| pls| here| if)${publicPlace}|` +
      `(?:posting|leaking|sharing|publishing|spreading) ${possessive} (?:${family}s? )?(?:home |house |real |` +
      `work )?${oneOf(PERSONAL_DETAILS)}(?![a-z0-9])|` +
      `(?:found|got|have|tracked down|dug up) ${possessive} ${words(1)}(?:and|&) ${possessive} (?:${family})s? `,
    hit: "found your address",
    miss: "I found your address on the contact page, sending the invoice",
  },
  {
    id: "threat:dox/your-street-address",
    pattern: () =>
      `(?:${possessive} (?:home |house |real )?address|${you()} (?:live|living|stay|work) (?:at|on)|(?:he|she|they) (?:lives|live) (?:at|on))` +
      ` ${words(5)}[0-9]+[a-z]? [a-z]+ (?:street|st|road|rd|lane|ln|avenue|ave|drive|dr|close|way|crescent|terrace|` +
      `place|court|gardens|grove)(?![a-z0-9])`,
    hit: "found your address, 14 Elm Road, nice blue door",
    miss: "your address is on the invoice, 14 days to pay",
  },
  {
    id: "threat:dox/send-to-your-boss",
    pattern: () =>
      `(?:send|sending|forward|forwarding|email|emailing|show|showing) ${words(2)}to ${possessive} (?:boss|` +
      `employer|manager|work|school|hr|wife|husband|parents|family|company)|` +
      `(?:${agents()}|i) (?:send|email|contact|call|tell|message|report ${you()} to|forward this to|show) ${possessive} ` +
      `(?:boss|employer|manager|work|school|hr|wife|husband|parents|family|company)|` +
      `${possessive} (?:boss|employer|manager|wife|husband|parents|company) (?:is going to|will|gonna|is gonna|` +
      `are going to|wil|l) (?:get|hear|know|find out|see|love|enjoy|be interested|be thrilled)`,
    hit: "i'm sending this to your employer",
    miss: "love this, sending to my mum",
  },
  {
    id: "threat:dox/leak-your-details",
    pattern: () =>
      `${agents()} (?:post|leak|publish|spread|expose|drop|release|put out|dig up|` +
      `dox) ${possessive} (?:${family} )?(?:home |house |real |work )?${oneOf(PERSONAL_DETAILS)}`,
    hit: "I'm gonna leak your phone number",
    miss: "I'll post your parcel tomorrow",
  },
  {
    id: "threat:dox/passing-your-number-around",
    pattern: () =>
      `(?:got|have|found|know) ${possessive} (?:${oneOf(PERSONAL_DETAILS)}) ${words(3)}(?:passing|sharing|posting|` +
      `leaking|spreading|giving|handing|sending) (?:it|them) (?:around|out|online|everywhere|to everyone)`,
    hit: "i've got your number and i'm passing it around",
    miss: "I've got your number, I'll call tomorrow about the gig",
  },
  {
    id: "threat:dox/know-what-your-house-looks-like",
    pattern: () =>
      `(?:i|we) know what ${possessive} (?:house|home|car|kids|children|wife|husband|family|street|door|office|` +
      `school) (?:looks|look) like(?=[^a-z0-9]*$|[^a-z0-9]*[,.!;]| (?:now|btw|and|so|too|already))|` +
      `${possessive} ${family}s? (?:school|house|address|work|office|car|nursery) (?:is|are) on my (?:list|radar|map)`,
    hit: "i know what your house looks like",
    miss: "I know what your house looks like from the photos, gorgeous",
  },
  {
    id: "threat:dox/posting-your-address",
    pattern: () =>
      `(?:heres|here is|here are|posting|leaking|sharing|dropping|publishing) (?:${possessive}|her|his|` +
      `their) ${words(1)}(?:${oneOf(PRIVATE_DETAILS)})(?![a-z0-9])|` +
      `${possessive} (?:${oneOf(PRIVATE_DETAILS)}) (?:is|are) (?:going up|going public|going online|getting posted|` +
      `being posted|about to be posted|about to go public)`,
    hit: "here's his home address, you know what to do",
    miss: "here's his new album, you know what to do",
  },
  {
    id: "threat:dox/your-number-is",
    pattern: () =>
      `${possessive} (?:${kin()}s? )?(?:phone |mobile |cell |home |work |personal |private |new )?` +
      `(?:number|phone|mobile|cell|digits|email|e mail|email address|addy|whatsapp)(?: is| s|:|=)? ${words(1)}(?:${phone}|${email})${notAsked}`,
    hit: "your mum's number is 07700 900123",
    miss: "is your number 07700 900123? I'll call",
  },
  {
    id: "threat:dox/you-live-on-street",
    pattern: () =>
      `(?<!(?:do|does|if|where|when|whether) )(?:${you()} (?:live|living|stay|work|park)|${possessive} (?:${kin()}s?|address|house|home|flat|place) ` +
      `(?:lives?|living|stays?|works?|is|are|s)) ${words(3)}(?:at|on|in|off|above|near|behind|opposite) (?:the )?${street}${toldNotAsked}`,
    hit: "your wife works at the pharmacy on high street, right?",
    miss: "do you live on Mill Lane too?",
  },
  {
    id: "threat:dox/your-kids-school",
    pattern: () =>
      `(?<!(?:do|does|if|where|when|whether|which school|` +
      `what school) )${possessive} (?:${kin()})s? (?:still )?(?:goes|go|went|attends?|is|are|s|re) (?:to |` +
      `at )?${namedSchool}${toldNotAsked}`,
    hit: "your kid goes to st mary's primary, doesn't she",
    miss: "do your kids go to St Bede's too?",
  },
  {
    id: "threat:dox/call-them-on",
    pattern: () =>
      `(?:call|text|ring|message|phone|whatsapp|spam|prank call) (?:him|her|them|this (?:guy|idiot|clown|loser|woman|man|bitch|moron|creep|freak)|` +
      `${possessive} (?:${kin()}s?|house|home|office|work)) (?:on|at )?${phone}|` +
      `(?:everyone|everybody|yall|y all|lets all|guys|go) (?:call|text|ring|spam|message|prank call) ${words(3)}${phone}`,
    hit: "everyone text him on 07700 900123",
    miss: "text me on 07700 900123 if the shop's open",
  },
  {
    id: "threat:dox/everyone-will-know",
    pattern: () =>
      `(?:${audience} (?:will|ll|is going to|are going to|s going to|gonna|is gonna|are gonna|is about to|are about to|shall|will soon|ll soon) ` +
      `(?:soon |all |finally )?(?:know|see|find out|learn|hear)|` +
      `(?:make sure|until|once|when|til|till) ${audience} (?:knows|know|sees|finds out|hears)) ` +
      `(?:where ${you()}(?:r| re| are)? (?:live|lives|living|work|sleep|are|go|park|stay|hide)|who ${you()} (?:really|actually) (?:are|is)|` +
      `${possessive} (?:real name|address|home address|face|number|phone number|workplace|secret)|what ${you()} (?:did|look like|really (?:are|did)))`,
    hit: "everyone will know where you live",
    miss: "everyone will know your name when you win",
  },
  {
    id: "threat:dox/your-address-goes-public",
    pattern: () =>
      `${possessive} (?:${kin()}s? )?(?:home |house |real |work |full )?` +
      `(?:address|home address|phone number|mobile number|ip|ip address|real name|location|postcode|personal info|` +
      `personal details|details|number plate|license plate|workplace|nudes|pics|photos|secrets|dms|messages) ` +
      `(?:will |would |might |could |is going to |are going to |are about to |is about to |could easily |` +
      `gonna )?(?:go|goes|going|get|gets|getting|end up|ending up|ends up|find its way|make its way|` +
      `find their way|leak|leaks|be) ` +
      `(?:up|online|public|posted|out there|viral|everywhere|leaked|on here|on every|to everyone|all over|in the wrong hands)(?![a-z0-9])`,
    hit: "one more post and your address goes public",
    miss: "your address goes on the envelope",
  },
  {
    id: "threat:dox/what-if-someone-posted",
    pattern: () =>
      `(?:what if|imagine if|wonder what (?:would|will|d) happen if|be a shame if|` +
      `would be a pity if) ${words(2)}(?:posted|shared|leaked|published|dropped|found|found out|` +
      `spread|sent round|sent around) ` +
      `${possessive} (?:${kin()}s? )?(?:home |house |real |work )?(?:${oneOf(PERSONAL_DETAILS)}|nudes|pics|photos|secrets|dms|messages)`,
    hit: "what if someone posted your address",
    miss: "what if someone posted your cake recipe",
  },
  {
    id: "threat:dox/expose-you",
    pattern: () => `${agents()} ${adverbs}(?:expose|unmask|out|dox) ${you()}(?![a-z0-9])(?! (?:to|for|as a fan))`,
    hit: "I'll expose you",
    miss: "I'll expose you to some great music",
  },
  {
    id: "threat:dox/who-wants-her-address",
    pattern: () =>
      `(?:who wants|anyone want|anybody want|dm me for|dm for|message me for|ask me for) (?:his|her|their|` +
      `${possessive}) (?:${kin()}s? )?(?:home |real |full |work )?` +
      `(?:address|number|phone number|mobile|details|real name|location|workplace|info|postcode)(?![a-z0-9])|` +
      `(?:his|her|their|${possessive}) (?:${kin()}s? )?(?:home |real |full |work )?(?:address|number|phone number|` +
      `mobile|details|real name|workplace|location|info)(?: and [a-z]+(?: [a-z]+)?)? ` +
      `(?:is|are|s) (?:in my bio|in the replies|below|pinned|in the thread|in the comments|in my dms|in the group chat)`,
    hit: "who wants her address",
    miss: "who wants her autograph?",
  },
  {
    id: "threat:dox/posted-your-details",
    pattern: () =>
      `(?<!(?:${you()}|do|did|have|has|was|were) )(?:posted|dropped|shared|leaked|published|gave out|handed out|` +
      `passed on|spread|put) ${possessive} (?:${kin()}s? )?(?:home |house |real |work |full )?` +
      `(?:address|home address|phone number|number|mobile|mobile number|details|personal details|personal info|` +
      `info|real name|location|postcode|workplace|ip|ip address|nudes)` +
      `(?! is| are| was)(?= (?:in|on|to|all over|everywhere|online|around|with)|[^a-z0-9]*$|[^a-z0-9]*[.!,])`,
    hit: "posted your details on the forum, they're looking for you",
    miss: "have you posted your address to the council yet?",
  },
  {
    id: "threat:dox/dug-up-your-details",
    pattern: () =>
      `(?:i|we|ive|weve) (?:know|got|have|found|found out|dug up) ${possessive} (?:${kin()}s? )?(?:date of birth|dob|` +
      `maiden name|mothers maiden name|kids names|childrens names|sons name|daughters name|` +
      `number plate|reg|registration|plate|route home|shift pattern|work schedule|daily routine|school run|` +
      `bank details|national insurance|ssn|social security)(?![a-z0-9])|` +
      `(?:heres|here is|this is) (?:his|her|their) ${words(1)}(?:number|mobile|phone)(?: is|:)? ${phone}|` +
      `(?:this is|heres|here is|thats) (?:his|her|their|${possessive}) (?:street|house|road|flat|front door|` +
      `building|car) on (?:google maps|google|street view|maps|google street view)|` +
      `${agents()} ${adverbs}(?:share|post|tell everyone|tell people|leak|publish|spread|reveal|broadcast|announce|` +
      `put out) (?:everyone |the world |people )?where ${you()} (?:live|work|sleep|park|stay)|` +
      `${possessive} (?:home |house |real |full )?(?:address|phone number|mobile number|real name|details|location|` +
      `workplace|personal info) (?:is|are|s) (?:now )?(?:public|out there|on every|all over|` +
      `in (?:the|every) group)(?![a-z0-9])|` +
      `${you()} drive (?:a|an) (?:silver|black|white|red|blue|grey|gray|green|yellow|orange|purple|brown|gold|beige|` +
      `navy|maroon) [a-z]+|${possessive} (?:reg|registration|number plate|plate|license plate|` +
      `licence plate) (?:ends in|ends with|starts with|begins with|(?:is|s) [a-z]{1,2}[0-9])|` +
      `(?:someone|somebody|everyone|lets|go|anyone|can someone) (?:find|track down|dig up|look up) (?:his|her|their|${possessive}) ` +
      `(?:employer|boss|workplace|address|home address|family|number|home|mum|mom|parents|school|kids|wife|husband)(?![a-z0-9])`,
    hit: "someone find his employer",
    miss: "can someone find out when the shop reopens?",
  },
];
