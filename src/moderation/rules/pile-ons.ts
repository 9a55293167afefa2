/**
 * Harassment by persistence or by a crowd: calls to pile on, flood or mass-report the
 * account or its owner ("everyone go flood her replies", "report this page until it's
 * gone"), promises to follow someone everywhere ("blocking me won't help"), and threats to
 * show their words to their boss or family. A call to flood replies "with love" or to report
 * a scam account is not one.
 */
import { adverbs, agents, possessive, words, you } from "./fragments.ts";
import type { PhraseRuleEntry } from "./phrase-rule.ts";

export const PILE_ONS: readonly PhraseRuleEntry[] = [
  // Persistence the reader cannot escape: "blocking me won't help", "I'll keep tagging you".
  // "I'll keep tagging you until you answer" is the threat; "I'll keep tagging you in the good ones" is not.
  {
    id: "harassment:persistent/cant-escape-me",
    pattern: () =>
      `(?:block|blocking|blocked|mute|muting|report|reporting) me (?:wont|will not|doesnt|does not|isnt going to|` +
      `aint gonna|is not going to) (?:help|stop me|save ${you()}|work|change anything)(?=[^a-z0-9]*$|` +
      `[^a-z0-9]*[,.!;]| (?:i|il|im|cause|because|coz|cos|ive|we))|` +
      `(?:cant|cannot|can not|will never|wont|never) (?:get rid of|escape|hide from|run from|block) me|` +
      // "I'll keep tagging you until you answer" is the threat; "I'll keep tagging you in the good ones" is not.
      `(?:keep|keeps|keep on|not stop|never stop|wont stop|will not stop|not going to stop|never going to stop|not gonna stop) ` +
      `(?:tagging|messaging|dming|replying to|mentioning|following|texting|calling|emailing|stalking|posting about|commenting on) ${you()}` +
      `(?: (?:until|till|forever|every (?:day|night|hour|minute|single day)|all day|day and night|no matter|whether)|[^a-z0-9]*$|[^a-z0-9]*[.!])|` +
      `${agents()} ${adverbs}(?:follow|find|hunt|track) ${you()} (?:to|into|in|across|on|through) (?:every|each|all|any)(?![a-z0-9])|` +
      `(?:made|make|have|got|created|open) ${words(2)}(?:another|new|more|other|alt|alts|second|` +
      `fresh) accounts? (?:since|because|after|cause|cos|so|now that) ${you()} blocked`,
    hit: "you'll never escape me",
    miss: "blocking me won't help the spam problem, report it",
  },
  // Calling others to pile on: "let's all pile on this clown".
  {
    id: "harassment:pile-on/lets-pile-on",
    pattern: () =>
      `(?:lets|let us|everyone|everybody|guys|yall|y all|all of you|come on) ${words(2)}(?:pile on|dogpile|` +
      `dog pile|brigade|raid|swarm|mass report|gang up on|ratio) ` +
      `(?:him|her|them|${you()}|(?:this|that) (?:clown|idiot|guy|girl|account|bot|user|loser|moron|person|woman|man|` +
      `one|fool)|the (?:op|poster|bot|account|author|dev|admin)|` +
      `${possessive} (?:account|replies|mentions|posts))(?![a-z0-9])`,
    hit: "guys let's all pile on this clown",
    miss: "let's get this account to 10k followers",
  },
  {
    id: "harassment:exposure/screenshots-to-everyone",
    pattern: () =>
      `(?:screenshot[a-z]*|saved|saving|recorded|recording|archived|archiving) ${words(6)}(?:sending|send|posting|` +
      `forwarding|showing|emailing|leaking|sharing|spreading) ` +
      `(?:it|them|everything|all of it|these|those) (?:to|with|around) (?:everyone|everybody|${possessive}|all|the whole)`,
    hit: "saved all your posts, sending them to everyone",
    miss: "screenshotting your recipe and sending it to my wife",
  },
  {
    id: "harassment:persistent/in-your-dms",
    pattern: () =>
      `${agents()} ${adverbs}(?:be )?in ${possessive} (?:dms|dm|inbox|mentions|replies|notifications) (?:until|` +
      `forever|day and night|24 7|every ${words(2)}until)`,
    hit: "i'll be in your dms every night until you reply",
    miss: "I'll be in your DMs with the details",
  },
  {
    id: "harassment:mass-report/mass-report",
    pattern: () =>
      `(?:lets|let us|everyone|everybody|yall|y all|guys|go|time to|we need to|we should|pls|please|all|just|` +
      `keep) ${words(2)}mass (?:report|flag|block|reporting|flagging)|` +
      `mass (?:report|flag)(?:ing)? (?:this|that|him|her|them|his|their|` +
      `${possessive})(?![a-z0-9])(?![^.!?]*(?:scam|spam|fake|impersonat|phishing|fraud|bot farm))|` +
      `(?:report|flag)(?:ing)? ${words(4)}(?:until|till|til|so|and get) ${words(3)}` +
      `(?:gone|banned|suspended|deleted|taken down|removed|nuked|shut down|deactivated|off (?:the|this) (?:site|app|platform))(?![a-z0-9])`,
    hit: "let's all mass report this account",
    miss: "mass report this account, it's a scam",
  },
  {
    id: "harassment:mass-report/get-them-banned",
    pattern: () =>
      `(?:lets|let us|everyone|everybody|we need to|we should|we gotta|we have to|help me|time to|yall|y all|guys) ${words(1)}get ` +
      `(?:him|her|them|(?:this|that) ${words(1)}(?:account|page|bot|guy|girl|woman|man|clown|idiot|person|creep|` +
      `user|loser)|(?:his|her|their|${possessive}) (?:account|page|channel|profile|ass)) ` +
      `(?:banned|suspended|deleted|taken down|cancelled|canceled|fired|sacked|removed|kicked off|deplatformed|nuked)(?![a-z0-9])`,
    hit: "let's get him sacked",
    miss: "let's get this account to 10k followers",
  },
  // Not a call reported ("someone told people to flood her inbox").
  {
    id: "harassment:pile-on/flood-her-replies",
    pattern: () =>
      // Not a call reported ("someone told people to flood her inbox").
      `(?<!(?:told|telling|tells|asked|asking|asks|urged|urging|encouraged|encouraging) )(?:everyone|everybody|` +
      `guys|yall|y all|all of you|lets|let us|go|come on|lads|people) ${words(2)}` +
      `(?:flood|spam|bombard|swamp|blow up|storm|invade|descend on|go after|come after|harass|troll|bully|drag|hound) ` +
      `(?:(?:his|her|their|${possessive}|the|this|that) ${words(1)}(?:replies|mentions|dms|dm|inbox|comments|` +
      `notifications|page|account|profile|timeline|feed|channel|posts|email|phone)|him|them|her)(?![a-z0-9])` +
      `(?![^.!?]*with (?:love|support|kindness|positivity|hearts|praise|compliments|good|kind|nice|positive|happy|` +
      `birthday|wishes|congratulations|congrats|thanks|gratitude))`,
    hit: "everyone spam his dms",
    miss: "everyone flood her replies with love",
  },
  {
    id: "harassment:persistent/in-every-reply",
    pattern: () =>
      `${agents()} ${adverbs}(?:be|show up|turn up|pop up|appear) (?:in|under) (?:every|all|each) (?:single )?(?:one of )?(?:${possessive} )?` +
      `(?:replies|reply|mentions|comments|comment section|comment sections|notifications|dms|thread|threads)(?![a-z0-9])|` +
      `${agents()} ${adverbs}(?:hound|haunt|stalk|chase) ${you()} (?:everywhere|wherever|to every|onto every|` +
      `across every|to the ends|until|till|no matter)|` +
      `${agents()} ${adverbs}follow ${you()} (?:to the ends|until|till|no matter)|` +
      `(?:everywhere|wherever|anywhere) ${you()} (?:go|post|tweet|comment|turn|show up|hide|move)[^a-z0-9]+(?:il|` +
      `i wil|im|i am|we|wel) (?:be there|be waiting|follow|find ${you()}|show up|turn up)`,
    hit: "i'll be in every one of your replies",
    miss: "I'll be in every one of your shows this tour",
  },
  {
    id: "harassment:mass-report/report-this-freak",
    pattern: () =>
      `(?:everyone|everybody|yall|y all|guys|all of you|lets all|lets|go|pls|please) ${words(1)}(?:report|flag|` +
      `block and report|report and block) (?:this|that|his|her|their) ${words(1)}` +
      `(?:loser|clown|idiot|moron|creep|freak|bitch|prick|twat|cunt|muppet|weirdo|nutter|troll|psycho|lunatic|bigot|scumbag)(?![a-z0-9])`,
    hit: "EVERYONE REPORT THIS FREAK",
    miss: "everyone report this scam account",
  },
  {
    id: "harassment:pile-on/make-her-life-miserable",
    pattern: () =>
      `(?:^|(?<=[.!?,;][^a-z0-9]*))(?:go |now |just |lets )?(?:flood|spam|bombard|swamp|blow up|storm|invade|` +
      `harass|troll|bully|hound|ratio|dogpile|brigade|raid) (?:his|her|their) ${words(1)}` +
      `(?:replies|mentions|dms|inbox|comments|notifications|page|account|profile|timeline|feed|channel|posts|email|` +
      `phone)(?![a-z0-9])(?![^.!?]*with (?:love|support|kindness|positivity|hearts|praise|compliments|good|kind|` +
      `nice|positive|happy|birthday|wishes|congratulations|congrats|thanks|gratitude))|` +
      `(?:^|(?<=[.!?,;][^a-z0-9]*))(?:go |now |just |lets )?(?:ratio|dogpile|brigade|raid|swarm|mass report|` +
      `gang up on|quote tweet|qt) (?:this|that) (?:clown|idiot|guy|girl|loser|moron|person|woman|man|fool|creep|` +
      `freak|bitch|prick)(?![a-z0-9])|` +
      `make (?:his|her|their) (?:life|lives|day|week) (?:miserable|hell|a living hell|a nightmare)|(?:@|tag|mention) (?:him|her|them) everywhere|` +
      `(?:dont|do not|never) let (?:him|her|them) (?:post|speak|tweet|live|sleep) in peace|` +
      `${you()}(?:ll| will) never (?:post|tweet|speak|live|sleep|rest) in peace (?:again|ever)`,
    hit: "spam her DMs till she quits",
    miss: "everyone DM her a congrats, she passed her exam!",
  },
  {
    id: "harassment:persistent/always-watching",
    pattern: () =>
      `(?:${agents()}|i (?:can|just|can just)|ill just|il keep|i wil keep) ${adverbs}(?:keep )?(?:make|making|create|` +
      `creating|open|opening) ${words(1)}` +
      `(?:another|new|more|alt|fresh|a hundred|hundreds of|[0-9]+) (?:accounts?|` +
      `alts?)(?=[^]*?(?:block|stop me|until ${you()}|til ${you()}|till ${you()}))|` +
      `(?:block|blocked) me ${words(4)}(?:i|il|ill|i wil) ${words(1)}(?:make|made|open|opened|create|created|` +
      `got) (?:another|a new|this|new|more) (?:account|acc|one|accounts)|` +
      `(?:never|not) (?:leaving|going to leave|gonna leave|getting out of|` +
      `going away from) ${possessive} (?:replies|mentions|dms|inbox|comments|notifications|life|head)|` +
      `${agents()} ${adverbs}(?:ratio|quote tweet|qt|dunk on|clown on|humiliate|embarrass|bully|` +
      `troll) ${you()} (?:into oblivion|every day|every time|forever|until|on every|` +
      `everywhere|daily|again and again)|` +
      `(?:im|i am|ive been|i have been|were|we are) (?:always |still |constantly )?watching (?:everything ${you()}|` +
      `every (?:move|post|thing|word) ${you()}|${possessive} every move)|(?:im|i am) always watching`,
    hit: "i'm always watching 👀",
    miss: "I always watch your streams",
  },
  {
    id: "harassment:exposure/tell-your-boss",
    pattern: () =>
      `(?:tell|show|inform|let) (?:everyone|everybody|all|people|them all) (?:at|in) ${possessive} (?:work|job|` +
      `office|school|church|gym|family|street|uni|college) ${words(1)}(?:what ${you()}|about ${you()}|who ${you()})|` +
      `(?:screenshot|screenshotting|screenshots|sending|forwarding|saving|saved|keeping) ${words(3)}(?:for|` +
      `to) ${possessive} (?:employer|boss|work|manager|hr|school|ex)(?![a-z0-9])|` +
      `(?:sent|send|sending|forwarded|showed|showing|shown) ${possessive} (?:ex|boss|employer|mum|mom|wife|husband|` +
      `parents|family|manager|kids|girlfriend|boyfriend|partner) ` +
      `(?:the |these |those |${possessive} |all |every )?(?:screenshots|screenshot|messages|posts|dms|pics|photos|` +
      `receipts|tweets|replies|comments)|` +
      `(?:messaged|dmed|dm d|contacted|texted) ${possessive} (?:kids|children|daughter|son|boss|` +
      `employer)(?: on [a-z]+)?(?=[^a-z0-9]*$|[^a-z0-9]*[.!,])`,
    hit: "i've messaged your kids on instagram",
    miss: "love this, sending to my mum",
  },
];
