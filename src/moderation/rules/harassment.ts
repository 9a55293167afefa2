/**
 * Harassment without a swear word or a threat: exclusion ("nobody would miss you", "go
 * back where you came from"), dehumanisation ("people like you are a cancer"), hate against
 * groups, and contempt for the reader's life ("your life is a joke").
 */
import { DEHUMANISING_NOUNS } from "../lexicon.ts";
import { oneOf } from "../pattern.ts";
import {
  family,
  groups,
  insultPredicate,
  mods,
  nouns,
  possessive,
  words,
  you,
  youAre,
  youAreStatement,
  yourself,
} from "./fragments.ts";
import type { PhraseRuleEntry } from "./phrase-rule.ts";

export const HARASSMENT: readonly PhraseRuleEntry[] = [
  {
    id: "harassment:nobody-would-miss-you/nobody-would-miss-you",
    pattern: () =>
      `(?:nobody|no one|noone|no1) (?:would |will |d |is going to |is gonna |gonna )?(?:ever |even )?` +
      `(?:miss|care about|care if|notice if|mourn|cry for|cry over|remember|love|like|want) ${you()}`,
    hit: "nobody would miss you",
    miss: "nobody would miss the old UI",
  },
  {
    id: "harassment:no-friends/no-friends",
    pattern: () => `${you()} (?:have|got|ve|has) (?:no|zero) (?:friends|life|one who cares)`,
    hit: "you have no friends and never will",
    miss: "you have no idea how much this helped",
  },
  {
    id: "harassment:sexism/kitchen",
    pattern: () =>
      `(?:belong|belongs) in the kitchen|(?:get|go) back (?:in|to) the kitchen|make me a sandwich|` +
      `women (?:like you )?(?:should|need to) (?:shut up|stay home|be silent)`,
    hit: "go make me a sandwich",
    miss: "make me a playlist",
  },
  {
    id: "harassment:nobody-likes-you/nobody-likes-you",
    pattern: () => `(?:nobody|no one|noone|no1) (?:likes|loves|wants|needs|cares about|respects) ${you()}`,
    hit: "nobody loves you",
    miss: "nobody does it like you",
  },
  {
    id: "harassment:everyone-hates-you/everyone-hates-you",
    pattern: () =>
      `(?:everyone|everybody|every one|we all|the whole world|all of us|everyone here) (?:hates|despises|laughs at|` +
      `is laughing at|laugh at|hate) ${you()}`,
    hit: "everyone hates you",
    miss: "Everyone hates Mondays",
  },
  {
    id: "harassment:better-without-you/better-without-you",
    pattern: () =>
      `(?:world|internet|everyone|everybody|we|earth|planet|site|society|humanity|family) (?:would be|d be|is|will be|would all be) ` +
      `(?:a )?better (?:off |place )?without (?:${you()}|people like you)`,
    hit: "the world would be better off without you",
    miss: "the world would be boring without you",
  },
  {
    id: "harassment:dont-deserve-to-live/dont-deserve-to-live",
    pattern: () =>
      `(?:${you()}|people like you) (?:dont|do not|dnt) deserve (?:to live|to exist|to breathe|to be alive|life|oxygen)`,
    hit: "you don't deserve to live",
    miss: "you deserve to be happy",
  },
  {
    id: "harassment:go-back/go-back",
    pattern: () =>
      `go back (?:to )?where (?:${you()}|they) belong|go back (?:to )?where (?:${you()}|they) (?:came|come) from|` +
      `go back to (?:where (?:${you()}|they) (?:came|come) from|` +
      `${possessive} (?:own )?(?:country|cave|village|jungle|kind|island|desert|land)|` +
      `(?:their|your) (?:own )?country|africa|mexico|china|india|pakistan|the jungle)|(?:send|ship|deport) (?:them|${you()}|em) (?:all )?back`,
    hit: "go back to where you came from",
    miss: "go back to the previous page",
  },
  {
    id: "harassment:you-people/you-people",
    pattern: () =>
      `${you()} people (?:dont|do not|should|never|cant|always|need to|ruin|are all|are the same|are animals|` +
      `are disgusting|are vermin|are a plague|are subhuman)`,
    hit: "you people are vermin",
    miss: "you people are awesome",
  },
  {
    id: "harassment:dont-belong/dont-belong",
    pattern: () =>
      `(?:${you()}|${possessive} kind|people like you|${you()} people) (?:dont|do not|dnt) belong (?:here|in this)`,
    hit: "you people don't belong here",
    miss: "i don't belong here, I'm just lurking",
  },
  {
    id: "harassment:your-family/ashamed-of-you",
    pattern: () =>
      `${possessive} ${family} (?:must|should) be (?:so |really )?(?:ashamed|embarrassed|disappointed)|` +
      `${possessive} (?:mom|mum|mother|parents) should (?:have|of|ve) (?:aborted|swallowed)`,
    hit: "your mum must be so ashamed of you",
    miss: "your mum must be so proud of you",
  },
  {
    id: "harassment:your-mom/your-mom-is",
    pattern: () =>
      `${possessive} (?:mom|mum|mother|momma|mama|sister|wife|girlfriend|gf) (?:is|s|was) ${mods()}(?:whore|slut|` +
      `slag|skank|bitch|cunt|hoe|ho|prostitute|hooker|${nouns()})`,
    hit: "ur mum's a slag",
    miss: "your mum is a legend",
  },
  {
    id: "harassment:disappear/do-us-a-favour",
    pattern: () =>
      `do (?:us|everyone|the world|everybody|all of us|the internet) a (?:favour|favor) (?:and )?` +
      `(?:disappear|leave|die|quit|go away|log off|delete|kill|jump|shut up|leave the internet|stop breathing)|` +
      `(?:disappear|go away|vanish|log off|leave) (?:forever|for good|permanently)`,
    hit: "do the world a favour and disappear",
    miss: "do me a favour and share this",
  },
  {
    id: "harassment:dehumanising/people-like-you-are",
    pattern: () =>
      `(?:people|${groups()}) like (?:${you()}|them|that) (?:` +
      `(?:are|r|re) ${insultPredicate()}|(?:are|r|re) ${oneOf(DEHUMANISING_NOUNS)}(?![a-z0-9])|` +
      `(?:should|need to|deserve to|must|ought to) (?:all )?(?:be )?(?:shot|killed|locked up|banned|deported|` +
      `gassed|jailed|put down|sterilised|sterilized|removed|` +
      `exterminated|hanged|hung|ashamed|euthanised|euthanized|in jail|in prison|caged|die|rot|burn|suffer|` +
      `disappear|not exist|never (?:be|have) (?:born|been born))|` +
      `(?:shouldnt|should not|dont deserve to|do not deserve to|shouldnt be allowed to|` +
      `should not be allowed to) (?:be allowed|exist|breathe|live|vote|have (?:kids|children|rights))|dont deserve)`,
    hit: "people like you are a cancer",
    miss: "people like you are the reason I love this place",
  },
  {
    id: "harassment:dehumanising/scum-like-you",
    pattern: () =>
      `(?:vermin|scum|filth|animals|trash|rats|parasites|cockroaches|subhumans|degenerates|creatures|monsters|things) like ${you()}`,
    hit: "scum like you shouldn't be allowed online",
    miss: "animals like dogs need walks",
  },
  {
    id: "harassment:dehumanising/walking-disease",
    pattern: () =>
      `${youAreStatement()} (?:a |an )?(?:walking|human|literal|living) (?:plague|cancer|disease|virus|tumou?r|infection|std|stain|biohazard)`,
    hit: "you're a walking disease",
    miss: "you're a walking encyclopedia",
  },
  {
    id: "harassment:dehumanising/waste-of-space",
    pattern: () =>
      `${youAreStatement()} (?:a |an )?(?:${mods()})?(?:plague|cancer|disease|stain|blight|virus|tumou?r|infection|` +
      `pest|leech|waste) (?:on|to|of|in|upon)`,
    hit: "you're a waste of skin",
    miss: "don't waste your time on haters",
  },
  {
    id: "harassment:dehumanising/not-even-human",
    pattern: () =>
      `${youAreStatement()} (?:not even|less than|barely|hardly|not) (?:a )?(?:human|person|human being)(?![a-z0-9])|` +
      `imagine being ${you()}(?![a-z0-9])|` +
      `${you()} belong in (?:a |the )?(?:zoo|cage|asylum|mental (?:hospital|asylum|ward)|` +
      `psych ward|sewer|dumpster|landfill)`,
    hit: "you're not even human",
    miss: "you're only human, rest up",
  },
  {
    id: "harassment:hate/hate",
    pattern: () =>
      `(?:dirty|filthy|disgusting|stinking|stinky|subhuman|inbred) ${groups()}(?![a-z0-9])|` +
      `${groups()} (?:are|r|is) (?:all |just |nothing but |literally )?${oneOf(DEHUMANISING_NOUNS)}(?![a-z0-9])|` +
      `${groups()} (?:ruin|ruins|destroy|destroys|ruined) (?:everything|this country|the country|our country)|` +
      `${groups()} (?:are|r) (?:all )?(?:too )?(?:stupid|dumb|inferior|weak|emotional|hysterical) to|` +
      `(?:the )?(?:jews|zionists|globalists) (?:control|run|own) (?:the|this|everything|our|all)|` +
      `(?:deport|gas|exterminate|get rid of|kick out) (?:all )?(?:the |these |those )?${groups()}|` +
      `(?:women|woman|females|girls) (?:shouldnt|should not|dont|cant|should never) (?:be allowed|have (?:rights|opinions|the vote)|vote|speak|talk)`,
    hit: "dirty immigrants",
    miss: "the hotel was filthy and the staff didn't care",
  },
  {
    id: "harassment:no-wonder/no-wonder",
    pattern: () =>
      `no wonder (?:(?:nobody|no one|noone) (?:likes|loves|wants|cares about|dates|follows) ${you()}|` +
      `${possessive} (?:wife|husband|gf|bf|girlfriend|boyfriend|partner|parents|dad|mom|mum|family|kids|` +
      `friends) (?:left|hates?|dont|abandoned|ignores?)|` +
      `${you()}(?:re| are| r)? (?:single|alone|lonely|a virgin|unemployed|jobless|ugly|fat|still single)|` +
      `${you()} (?:have|got) no (?:friends|life|girlfriend|boyfriend))|` +
      `no (?:friends|life|bitches|gf|girlfriend|job|maidens) behaviou?r|` +
      `${possessive} (?:${family}|friends) (?:must|probably|definitely|clearly|all) (?:hate|be ashamed of|` +
      `regret having|wish they never had|be embarrassed by) ${you()}`,
    hit: "no wonder your wife left",
    miss: "no wonder you're tired, what a week",
  },
  {
    id: "harassment:cry-about-it/cry-about-it",
    pattern: () =>
      `cope (?:and seethe|harder|more)|(?:cry|seethe|mald) (?:about it|harder|more)|` +
      `(?:go )?cry to ${possessive} (?:mom|mommy|mum|mummy|mama|momma|dad|daddy)`,
    hit: "cope and seethe",
    miss: "I cried about it for days, what an ending",
  },
  {
    id: "harassment:nobody-likes-you/nobody-will-ever-love-you",
    pattern: () => `(?:nobody|no one|noone|no1) (?:could|can|will|would) (?:ever )?(?:love|like|want|stand) ${you()}`,
    hit: "nobody will ever love you",
    miss: "nobody will ever beat this record",
  },
  {
    id: "harassment:go-away/delete-your-account",
    pattern: () =>
      `^(?:pls |please |just |go |plz |now )?(?:delete ${possessive} (?:account|acc|profile|page)|log off forever|uninstall ${yourself()})` +
      `(?=[^a-z0-9]*$|[^a-z0-9]*[.!,]| (?:loser|idiot|nobody|already|now|lol|lmao|forever))|` +
      `(?:nobody|no one|noone|who) (?:asked|asked for|cares about|wants|` +
      `needs) (?:for )?${possessive} ${mods()}(?:opinion|input|take|thoughts|two cents|2 cents|existence)`,
    hit: "delete your account",
    miss: "delete your account from the settings page",
  },
  {
    id: "harassment:go-away/nobody-asked",
    pattern: () =>
      `shut up[^a-z0-9]*(?:nobody|no one|noone) (?:cares|asked|likes ${you()})|` +
      `(?:nobody|no one|noone) (?:wants|needs|asked|cares) to (?:hear|see|read) (?:from )?${you()}|` +
      `(?:log off|leave|go away|get out|get lost|fuck off|piss off|delete ${possessive} account|disappear) and never come back`,
    hit: "shut up nobody cares",
    miss: "nobody cares about my cat as much as I do",
  },
  {
    id: "harassment:not-welcome/not-welcome",
    pattern: () =>
      `${you()}(?:re| are| r) not welcome (?:here|in this (?:thread|group|community|place|town|country)|on this (?:site|app|platform))`,
    hit: "you're not welcome here, leave",
    miss: "if you're new here, welcome!",
  },
  {
    id: "harassment:you-are-nobody/you-are-nobody",
    pattern: () => `${youAreStatement()} (?:a )?(?:nobody|nothing|no one)(?=[^a-z0-9]*$|[^a-z0-9]*[.!,])`,
    hit: "you are a nobody",
    miss: "you are nobody's fool",
  },
  {
    id: "harassment:crawl-back/crawl-back",
    pattern: () =>
      `(?:crawl|go|slither|get) back (?:under|into|to|in) (?:your|ur|the|a|whatever) (?:rock|hole|cave|basement|sewer|swamp|gutter|pit)`,
    hit: "go back under your rock",
    miss: "go back to your home screen",
  },
  {
    id: "harassment:imagine-being/imagine-being",
    pattern: () =>
      `imagine being (?:this|so|that) (?:dumb|stupid|ugly|pathetic|braindead|fat|worthless|useless|retarded)`,
    hit: "imagine being this dumb",
    miss: "imagine being this happy",
  },
  {
    id: "harassment:worthless-life/worthless-life",
    pattern: () =>
      `${possessive} (?:whole |entire |very |pathetic |sad )?(?:existence|life|birth|being alive) (?:is|was|` +
      `s) (?:just )?(?:a |an )?(?:mistake|waste|joke|accident|failure|pointless|` +
      `meaningless|worthless|embarrassment)|` +
      `${you()}(?:ll| will| are going to|re going to|re gonna) never be (?:loved|wanted|liked|respected|missed|` +
      `good enough|anything|anybody|somebody)(?![a-z0-9])|` +
      `(?:nobody|no one|noone|no1) ${words(2)}(?:will|would|could|is going to|` +
      `gonna) (?:ever )?(?:take ${you()} seriously|respect ${you()}|listen to ${you()})|` +
      `(?:^|(?<=[,.!?;][^a-z0-9]*))(?:just |pls |please )?(?:quit|leave|get off|` +
      `log off) the internet(?: (?:forever|for good|already|now|loser|idiot))?(?=[^a-z0-9]*$|` +
      `[^a-z0-9]*[,.!])|${you()} embarrass ${yourself()}`,
    hit: "your life is a joke",
    miss: "your life is a movie, love it",
  },
  {
    id: "harassment:shame/shame",
    pattern: () =>
      `${you()} should be (?:too |so )?(?:embarrassed|ashamed|humiliated) to (?:ever )?(?:post|show|speak|tweet|open|` +
      `talk|exist|leave|be seen|go outside)|` +
      `${youAre()} the reason (?:${possessive} (?:parents|mum|mom|dad|father|mother|family|wife|husband|` +
      `kids) (?:drink|drinks|left|cry|divorced|hate|drank)|` +
      `(?:we|everyone|people) (?:cant have nice things|hate this|left))|(?:nobody|no one|noone|no1) (?:invited|wanted|asked for) ${you()}(?![a-z0-9])`,
    hit: "you're the reason your parents drink",
    miss: "you're the reason I smile",
  },
];
