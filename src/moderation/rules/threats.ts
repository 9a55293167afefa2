/**
 * Threats of violence and harm aimed at the reader: "I'll break your jaw", "I'm coming
 * for you", "you're dead meat", "meet me outside", and their figures of speech left alone
 * ("I'll kill the process", "beat you at chess", "you're dead right").
 */
import { THREAT_VERBS } from "../lexicon.ts";
import { notFollowedBy, oneOf } from "../pattern.ts";
import {
  adverbs,
  agents,
  family,
  notAGame,
  possessive,
  targets,
  words,
  you,
  youAreStatement,
  yourself,
} from "./fragments.ts";
import type { PhraseRuleEntry } from "./phrase-rule.ts";

export const THREATS: readonly PhraseRuleEntry[] = [
  {
    id: "threat:violence/i-will-hurt-you",
    pattern: () => `${agents()} ${adverbs}${oneOf(THREAT_VERBS)} ${targets()}${notAGame()}`,
    hit: "i'll end you",
    miss: "i will beat you at chess",
  },
  // Verbs whose particle follows the victim: "run you over", "beat you up", "smash your face in".
  {
    id: "threat:violence/beat-you-up",
    pattern: () =>
      `${agents()} ${adverbs}(?:run ${targets()} over|beat ${targets()} up|rough ${targets()} up|beat ${targets()} to death|` +
      `(?:smash|kick|bash|cave|punch) ${possessive} (?:face|head|teeth|skull) in)`,
    hit: "i'll kick your head in",
    miss: "i'll kick your ball back over the fence",
  },
  // "I will find you." is the threat; "I'll find you a link" is not.
  {
    id: "threat:violence/i-will-find-you",
    pattern: () => `${agents()} ${adverbs}(?:find|hunt down|track down) ${targets()}(?=[^a-z0-9]*$|[^a-z0-9]*[.!])`,
    hit: "ima find u.",
    miss: "I'll find you a link to the docs",
  },
  {
    id: "threat:violence/break-every-bone",
    pattern: () => `${agents()} ${adverbs}break every bone in ${possessive} body`,
    hit: "i'd break every bone in your body",
    miss: "I'd break every rule in the book for this cake",
  },
  {
    id: "threat:make-you-pay/make-you-pay",
    pattern: () =>
      `${agents()} ${adverbs}(?:make (?:${you()} (?:pay|regret|suffer|bleed)|${possessive} life (?:a living )?(?:hell|miserable|a nightmare))|` +
      `ruin ${possessive} (?:life|career|family))`,
    hit: "i'll make you bleed",
    miss: "I'll make you a playlist",
  },
  {
    id: "threat:rape/rape-you",
    pattern: () => `(?:rape|raping|molest|molesting) (?:${you()}|${possessive})`,
    hit: "i'm going to rape you",
    miss: "the grapes you sent were lovely",
  },
  {
    id: "threat:coming-for-you/coming-for-you",
    pattern: () => `(?:im|i am|were|we are|i m) (?:coming|comming) (?:for|after) (?:${you()}|${possessive} ${family})`,
    hit: "I'm coming for you",
    miss: "I'm coming for your birthday!",
  },
  // Not the back one can hurt: "watch your back on the ice", "when lifting".
  {
    id: "threat:watch-your-back/watch-your-back",
    pattern: () =>
      `watch ${possessive} back(?! (?:on the (?:ice|stairs|path|steps|slope)|when (?:lifting|bending|you lift)|` +
      `lifting|bending))|sleep with one eye open|sleep with (?:the|${possessive}) lights on|` +
      `count ${possessive} days|${possessive} days are numbered`,
    hit: "watch your back",
    miss: "watch your back on the ice",
  },
  {
    id: "threat:youre-dead/youre-dead",
    pattern: () =>
      `${youAreStatement()} (?:so )?(?:dead|a dead man|dead meat|going to die|gonna die)` +
      notFollowedBy([
        "right",
        "on",
        "wrong",
        "serious",
        "tired",
        "set",
        "center",
        "centre",
        "last",
        "even",
        "to me",
        "inside",
        "funny",
        "cute",
        "sexy",
        "weight",
        "ringer",
        "end",
        "simple",
        "easy",
        "certain",
        "sure",
        "asleep",
      ]),
    hit: "you're dead meat",
    miss: "you're dead right about that",
  },
  {
    id: "threat:when-i-find-you/when-i-find-you",
    pattern: () =>
      `(?:when|once|if|wait till|wait until) (?:i|we) (?:find|catch|get my hands on|get ahold of|track down|get hold of) ${you()}`,
    hit: "you're dead when I find you",
    miss: "i hope you find what you're looking for",
  },
  {
    id: "threat:not-safe/not-safe",
    pattern: () =>
      `(?:${you()}|${possessive} ${family}) (?:wont|will not|are not|re not|arent|r not|aint|will never) (?:be )?safe`,
    hit: "your kids aren't safe",
    miss: "your kids are safe with us",
  },
  {
    id: "threat:violence/come-to-your-house",
    pattern: () =>
      `${agents()} (?:come|go|drive|show up|turn up|be|pay ${you()} a visit) (?:to|at|round|` +
      `around) ${possessive} (?:house|home|door|office|work|school|place|workplace|address)`,
    hit: "i'll show up at your house",
    miss: "I'll come to your talk on Friday",
  },
  {
    id: "threat:violence/see-what-happens",
    pattern: () =>
      `keep (?:talking|posting|it up|tweeting|replying|running ${possessive} mouth|` +
      `this up)(?: [a-z0-9]+){0,3}? (?:and|n) (?:see|find out|watch) what happens`,
    hit: "keep talking and see what happens",
    miss: "keep reading to see what happens next",
  },
  {
    id: "threat:violence/you-will-pay-for-this",
    pattern: () =>
      `${you()}(?:ll| will| are going to|re going to|re gonna| are gonna|` +
      ` r gonna) (?:regret (?:this|that|it|saying that|posting this)(?=[^a-z0-9]*$|[^a-z0-9]*[.!,]| when| once| i)|` +
      `regret (?:crossing|messing with|fucking with|talking to|insulting|disrespecting) (?:me|us)|` +
      `pay for (?:this|that|it)(?=[^a-z0-9]*$|[^a-z0-9]*[.!,]| (?:one day|i|when|trust))|pay for what ${you()}|` +
      `get ${possessive}s(?=[^a-z0-9]*$|[^a-z0-9]*[.!,])|` +
      `get (?:whats|what is) coming(?: to ${you()})?|get what ${you()} deserve|get (?:hurt|killed|beaten|stabbed|shot|smacked))`,
    hit: "you'll get yours",
    miss: "you'll regret missing this gig",
  },
  {
    id: "threat:violence/shut-you-up-for-good",
    pattern: () =>
      `(?:shut|silence) ${you()} up (?:for good|permanently|forever)|` +
      `someone (?:will|should|is going to|is gonna|s gonna|gonna) (?:shut|silence) ${you()}`,
    hit: "i'll shut you up for good",
    miss: "shut up, you're too good at this",
  },
  {
    id: "threat:make-you-pay/make-sure-you-suffer",
    pattern: () =>
      `(?:${agents()}|i) (?:make sure|see to it) (?:that )?${you()} (?:suffer|regret|pay|never|die|bleed|get hurt)`,
    hit: "i'll make sure you suffer",
    miss: "I'll make sure you get a copy of the photos",
  },
  {
    id: "threat:violence/lights-out",
    pattern: () =>
      `(?:punch|knock|beat) ${possessive} lights out|knock ${you()} out cold|(?:watch|see) what happens (?:next time|if|when) ${you()}`,
    hit: "i'll punch your lights out",
    miss: "turn your lights out before bed",
  },
  {
    id: "threat:fight/meet-me-outside",
    pattern: () =>
      `meet me outside(?=[^a-z0-9]*$| (?:and|bro|if|then|pussy|coward|tough guy)|[^a-z0-9]*[,.!])|catch these hands|square up`,
    hit: "meet me outside and we'll see who's tough",
    miss: "meet me outside the cinema at 8",
  },
  {
    id: "threat:make-you-pay/make-you-disappear",
    pattern: () =>
      `${agents()} ${adverbs}make ${you()} (?:disappear|vanish|cry|beg)|(?:${agents()}|needs to|need to) teach ${you()} a lesson`,
    hit: "i'll make you disappear",
    miss: "I'll make you a cup of tea",
  },
  {
    id: "threat:violence/wont-see-it-coming",
    pattern: () =>
      `${you()} (?:wont|will not|will never|never) (?:even )?see (?:it|this|me|us) coming|` +
      `(?:if|when|once) (?:i|we) (?:ever )?(?:see|meet|catch|find|run into) ${you()} (?:irl|in real life|in person|` +
      `outside|on the street|in the street)`,
    hit: "you won't see it coming",
    miss: "you won't see this view anywhere else",
  },
  {
    id: "threat:watch-your-back/better-watch-yourself",
    pattern: () => `better watch (?:${yourself()}|${possessive} (?:back|mouth|step))`,
    hit: "u better watch urself",
    miss: "u better watch the match tonight fam, its gonna be mad",
  },
  {
    id: "threat:violence/broken-jaw",
    pattern: () =>
      `${you()} ${words(5)}(?:with|after|once i give ${you()}|when i give ${you()}) (?:a |some )?(?:broken|smashed|` +
      `busted|shattered|cracked) (?:jaw|nose|face|neck|arm|arms|leg|legs|skull|teeth|ribs)`,
    hit: "you won't be so cocky with a broken jaw",
    miss: "you still finished the race with a broken toe",
  },
  {
    id: "threat:violence/break-your-neck",
    pattern: () =>
      `${agents()} ${adverbs}${oneOf(THREAT_VERBS)} ${possessive} [a-z]+_(?:neck|face|head|throat|skull|teeth|jaw|nose|legs|arms|body)(?![a-z0-9])|` +
      `${agents()} ${adverbs}knock ${possessive} (?:teeth|lights|block|head|brains) (?:out|off|in)|` +
      `${you()}(?:re| are| r) (?:getting|gonna get|going to get|about to get|asking for) (?:a |the )?(?:slap|smack|` +
      `beating|kicking|punch|hiding|thrashing|battering|good hiding|knuckle sandwich)(?![a-z0-9])(?! on the wrist)`,
    hit: "i'll wring your scrawny neck",
    miss: "I'll wring your towel out for you",
  },
  {
    id: "threat:violence/send-you-to-hospital",
    pattern: () =>
      `${agents()} ${adverbs}(?:send|put) ${you()} (?:to|in|into) (?:the |a |an )?(?:er|a&e|hospital|morgue|grave|box|` +
      `coffin|wheelchair|ground|body bag|intensive care|icu|traction)(?![a-z0-9])|` +
      `${you()}(?:ll| will| are going to|re going to|re gonna) (?:be|end up) in (?:a |the )?(?:wheelchair|hospital|` +
      `coffin|box|ground|body bag|intensive care|traction|morgue)(?![a-z0-9])|` +
      `${you()}(?:d| had)? (?:better|best) (?:pray|hope) (?:that )?(?:we|i) (?:never|dont|do not) (?:meet|` +
      `cross paths|see ${you()}|run into ${you()}|find ${you()})|` +
      `(?:when|once|if|til|till|until) (?:i|we) (?:turn up|show up|knock|come round|come around|arrive) (?:at|on|` +
      `to|round) ${possessive} (?:door|house|home|work|office|school|place)|` +
      `before (?:i|we) (?:make ${you()}(?: regret it| pay| suffer)?|do it for ${you()}|hurt ${you()}|` +
      `come for ${you()})(?=[^a-z0-9]*$|[^a-z0-9]*[,.!]| (?:regret|pay|suffer))`,
    hit: "gonna send you to the ER",
    miss: "gonna send you the slides",
  },
  {
    id: "threat:violence/end-up-in-hospital",
    pattern: () =>
      `${you()}(?:ll| will| are going to|re going to|re gonna| are gonna) ${words(1)}(?:be |end up |leave |leaving |` +
      `go home |be going home |be leaving |be carried out |come out )?` +
      `(?:in|on) (?:an? |the )?(?:ambulance|body bag|stretcher|coffin|ditch|casket|morgue|a&e|icu|intensive care|` +
      `hospital bed|hearse|wheelchair|neck brace)(?![a-z0-9])|` +
      `${you()}(?:ll| will| are going to|re going to|re gonna|` +
      ` are gonna)(?: be)? found (?:in a (?:ditch|river|canal|skip|bin|dumpster|bag|lake|` +
      `field|suitcase)|dead|face down)|` +
      `${you()}(?:ll| will)(?: be)? ${words(1)}(?:eating|drinking|talking|sipping|breathing) ${words(2)}through a (?:straw|tube)|` +
      `(?:picking up|pick up|spitting out|swallowing|looking for) ${possessive} (?:own )?teeth|` +
      `(?:knock|punch|kick|slap|smack|send|boot) ${you()} (?:into next week|to kingdom come|` +
      `into the middle of next week|across the room|through a wall|through the wall|into the ground)|` +
      `(?:set|put|setting|light|lighting) (?:fire to ${possessive} (?:house|car|home|flat|shop|door|kids|family)|` +
      `${possessive} (?:house|car|home|flat|shop|door) on fire)|` +
      `(?:torch|torching|burn down|burning down|firebomb|petrol bomb) ${possessive} (?:house|car|home|flat|shop|door|place)|` +
      `(?:petrol|gasoline|lighter fluid|a firework|fireworks|a lit rag|something burning|` +
      `a brick) through ${possessive} (?:letterbox|letter box|door|window|mailbox)|` +
      `(?:make|leave) ${possessive} (?:wife|husband|kids|children|mum|mom|mother|family) (?:a widow|a widower|` +
      `widows|orphans|fatherless|motherless)|` +
      `(?:make sure|see to it|ensure) (?:that )?${possessive} (?:kids|children) (?:grow|will grow) up without|` +
      `(?:shut|silence) (?:that mouth|${possessive} (?:mouth|gob|trap)) (?:for good|permanently|forever)|` +
      `${agents()} ${adverbs}shut it (?:for good|permanently|forever)|` +
      `(?:bullet|knife|blade|something sharp|a round|shell|bat) with ${possessive} name (?:on|carved on|written on) it|` +
      `(?:bat|baseball bat|knife|gun|crowbar|machete|hammer|blade|shotgun|petrol|` +
      `rope) and ${possessive} (?:address|postcode|name|number|details|location)|` +
      `(?:im|i am|were|we are) ${adverbs}(?:breaking|smashing|kicking|punching|stabbing|killing|shooting|hurting|` +
      `burning|slapping|battering|decking|knifing|bashing|strangling|choking|drowning) ${targets()}${notAGame()}|` +
      `${you()}(?:re| are| r) (?:getting|gonna get|going to get|about to get) (?:jumped|smacked|slapped|battered|` +
      `stabbed|hurt|beaten|bodied|knocked out|merked|shanked|glassed|done in|kicked in|run over|beat up|beaten up|` +
      `hospitalised|hospitalized)(?![a-z0-9])`,
    hit: "i'll torch your car",
    miss: "your car is gorgeous, what year is it?",
  },
];
