/**
 * Threats with no violent word: what a careful moderator reads as menace from its shape
 * rather than its verbs. A remark on the reader's car, route or kids is harmless alone
 * ("nice car!") and a threat beside a menacing close ("nice car. would be a shame. see you
 * soon"); watching or following the reader home, "accidents happen to people like you",
 * "be a shame if something happened to your ..." and "you'll be sorry" are threats alone.
 */
import { notFollowedBy } from "../pattern.ts";
import { admired, agents, kin, knowsLife, menace, possessive, strongMenace, watched, words, you } from "./fragments.ts";
import type { PhraseRuleEntry } from "./phrase-rule.ts";

export const VEILED_THREATS: readonly PhraseRuleEntry[] = [
  {
    id: "threat:stalking/waiting-outside-your-house",
    pattern: () =>
      `(?:${agents()}|im|i am) (?:be )?(?:waiting|standing|parked|watching|lurking) (?:outside|near|at|` +
      `by) ${possessive} (?:house|home|door|work|school|office|place)`,
    hit: "i'll be waiting outside your house",
    miss: "I'm waiting outside the venue",
  },
  {
    id: "threat:veiled/menacing-close",
    pattern: () =>
      `${knowsLife()}(?=[^]*?${menace()})|${menace()}(?=[^]*?${knowsLife()})|${admired}(?=[^]*?${strongMenace()})|${strongMenace()}(?=[^]*?${admired})`,
    hit: "nice house. shame if it caught fire",
    miss: "nice house! the garden is lovely",
  },
  {
    id: "threat:veiled/shame-if-something-happened",
    pattern: () =>
      `(?:shame|pity) if (?:something|anything|someone|somebody|an accident|harm|something bad|something nasty|anything bad) ${words(2)}` +
      `(?:happened|happen|happens|were to happen|was to happen|befell|came|was to come|` +
      `were to come) (?:to )?(?:${you()}|${possessive}|that|those|this)(?![a-z0-9])|` +
      `(?:shame|pity) if ${possessive} ${words(3)}(?:got|were|was|went|caught|ended up|had|accidentally) ${words(1)}` +
      `(?:hurt|damaged|burnt|burned|broken|smashed|scratched|keyed|missing|fire|torched|vandalised|vandalized|` +
      `trashed|an accident|up in smoke)(?![a-z0-9])`,
    hit: "it'd be a shame if something happened to your dog",
    miss: "what a shame the rain ruined your barbecue",
  },
  {
    id: "threat:veiled/accidents-happen",
    pattern: () =>
      `accidents (?:happen|can happen|do happen|have a way of happening) (?:to|` +
      `around) ${words(2)}(?:${you()}(?![a-z0-9])|people (?:like ${you()}|who)|nosy|mouthy|${possessive} )|` +
      `people like ${you()} ${words(1)}(?:go|going|end up|turn up|get|wind up) (?:missing|hurt|dead|in a ditch|in hospital|in the river|found)|` +
      `(?:what happens|what happened) to (?:people|girls|guys|boys|snitches|grasses|women|men) like ${you()}|` +
      `(?:people|girls|guys|boys|women|men|folk|folks|lads) like ${you()} ${words(2)}(?:tend to|often|always|usually|` +
      `seem to|have a habit of|have a way of) ` +
      `(?:have (?:an )?accidents?|having accidents|go missing|going missing|disappear|get hurt|end up (?:hurt|dead|missing|in hospital))|` +
      `(?:wouldnt|would not|dont|do not) want ${words(1)}(?:${you()}|${possessive} ${kin()}s?|` +
      `${possessive} ${watched}) (?:to )?(?:have|having|get|getting|meet with|` +
      `suffer) (?:an? )?(?:[a-z]+_)?(?:accident|hurt|harmed|damaged)`,
    hit: "people like you go missing all the time",
    miss: "accidents happen, don't worry about the spill",
  },
  // "you've been warned" alone is as often a joke ("consider yourself warned: the spin instructor takes no
  // prisoners"); it is a menacing close beside a remark on the reader's life (strongMenace).
  {
    id: "threat:veiled/you-will-be-sorry",
    pattern: () =>
      `${you()}(?:ll| will| are going to|re going to|re gonna| are gonna) (?:be sorry(?=[^a-z0-9]*$|[^a-z0-9]*[.!,]| (?:when|for|trust|mate|pal))|` +
      `(?:live to )?regret (?:the day|ever|crossing|messing|posting|opening|saying|speaking|writing|this|it|that)|` +
      `wish ${you()}(?:d| had)? never (?:been born|said|posted|opened|crossed|met|started|written|spoken))|` +
      // "you've been warned" alone is as often a joke ("consider yourself warned: the spin instructor takes no
      // prisoners"); it is a menacing close beside a remark on the reader's life (strongMenace).
      `this is ${possessive} (?:first|last|final|only) warning|` +
      `(?:^|(?<=[.!?,;][^a-z0-9]*))(?:last|final) warning(?=[^a-z0-9]*$|[^a-z0-9]*[.!])`,
    hit: "you'll regret this",
    miss: "you'll regret missing this gig, it was unreal",
  },
  {
    id: "threat:stalking/i-know-your-routine",
    pattern: () =>
      `(?:i|we|ive|weve|i have|we have|been) (?:been )?(?:watching|following|tracking|clocking|stalking) ${possessive} ` +
      `(?:house|home|kids|children|family|wife|husband|daughter|son|car|door|place|movements|every move|routine|` +
      `schedule|street|window|windows|flat)` +
      notFollowedBy([
        "grow",
        "growing",
        "play",
        "videos",
        "streams",
        "channel",
        "content",
        "renovation",
        "build",
        "progress",
        "tour",
        "journey",
        "story",
        "posts",
      ]) +
      `|` +
      `(?:followed|following|follow|tailed|trailed) ${you()} (?:home|back home|` +
      `to (?:work|school|${possessive} (?:car|house|door|flat|work|office|school)))(?![a-z0-9])|` +
      `(?:i|we) know (?:what|which|the) ${words(1)}(?:car|bus|train|route|way home|gym|door|house|window|flat|street|school|nursery|shift) ${you()} ` +
      `(?:drive|drives|take|takes|walk|walks|go to|leave|leaves|park|parks|live in|come home|catch|use|sleep in|work)(?![a-z0-9])|` +
      `(?:i|we) know (?:what time|when|how late|how early|which days) ${you()} (?:leave|get home|go to bed|walk home|` +
      `are home|are alone|re home|re alone)(?![a-z0-9])|` +
      `(?:i|we) know (?:the|what|which|where|` +
      `when) ${words(3)}${you()} ${words(3)}(?:every (?:morning|day|night|evening|week|weekday|monday|tuesday|` +
      `wednesday|thursday|friday|saturday|sunday)|at [0-9])`,
    hit: "i know which bus you take",
    miss: "I've been watching your videos all week, so good",
  },
  {
    id: "threat:stalking/outside-your-house",
    pattern: () =>
      `(?:im|i am|were|we are|ive been|i have been) (?:right |just |sat |sitting |standing |parked )?` +
      `(?:outside|across from|across the road from|round the corner from|around the corner from|behind|by|near) ${possessive} ` +
      `(?:house|home|door|front door|car|work|office|school|place|flat|window|gate|building)(?![a-z0-9])|` +
      `(?:hello|hi|hey|greetings|waving|love) from (?:outside|across the road from|across from|the end of|behind) ${possessive} ` +
      `(?:street|road|house|home|door|front door|window|flat|place|work|office)(?![a-z0-9])|` +
      `(?:waiting|standing|parked|watching|lurking|sat|sitting) (?:outside|near|by|behind|` +
      `next to) ${possessive} (?:car|gate|window|windows|front door|flat|building|kids school|gym)` +
      `(?=[^a-z0-9]*$|[^a-z0-9]*[.!,]| (?:tonight|tomorrow|later|every|again|mate|pal|now|right now))|` +
      `${possessive} (?:little )?(?:kids|daughter|son|girl|boy|little one|wife|husband|kid) ${words(3)}(?:at|outside|leaving|in|by) (?:the )?` +
      `(?:school gates?|gates|playground|bus stop|nursery|school run) (?:today|this morning|yesterday|earlier|again)`,
    hit: "i'm outside your house right now",
    miss: "I'll be waiting by your car after the match, lift home?",
  },
  {
    id: "threat:veiled/you-are-next",
    pattern: () =>
      `${you()}(?:re| are) lucky (?:i|we) (?:dont|do not|cant|can not|cannot|havent|have not|didnt|did not) (?:know|` +
      `find|found|reach|get (?:my|our) hands on|live (?:near|closer)|see ${you()}|know where)|` +
      `(?:me and my|my) (?:boys|lads|mates|crew|brothers|cousins|friends|guys) ${words(2)}(?:will|ll|are|re|gonna|going to|wil) (?:be )?` +
      `(?:waiting|coming for ${you()}|looking for ${you()}|outside)(?=[^a-z0-9]*$|[^a-z0-9]*[.!,]| for ${you()}| outside)|` +
      `(?:^|(?<=[a-z0-9][^a-z0-9]*))or else(?=[^a-z0-9]*$|[^a-z0-9]*[.!])|` +
      `${you()} (?:dont|do not|have no idea|got no idea|have no clue) (?:know )?who ${you()}(?:re| are|` +
      ` r) (?:talking to|dealing with|messing with|fucking with|speaking to|messing about with)|` +
      `pray (?:that )?(?:we|i) never (?:meet|see ${you()}|run into ${you()}|cross paths|find ${you()})|` +
      `(?:wont|will not|wouldnt|would not) be (?:so |as |this )?(?:brave|tough|loud|mouthy|cocky|confident|hard|` +
      `big|gobby|smart) (?:when|once|if|face to face) ${words(3)}` +
      `(?:meet|see ${you()}|find ${you()}|face to face|come|turn up|show up|catch ${you()}|in person|irl)(?![a-z0-9])|` +
      `(?:${you()}(?:re| are)|${possessive} ${kin()}s? (?:is|are|re|s)|` +
      `${you()} and ${possessive} ${kin()}s? (?:are|re)) (?:first |next |top )?on my (?:hit ?list)|` +
      `(?:${possessive} ${kin()}s? (?:is|are|re|s)|${you()} and ${possessive} ${kin()}s? (?:are|re)) next(?=[^a-z0-9]*$|[^a-z0-9]*[.!,])|` +
      `hope ${possessive} (?:brakes|brake lines|tyres|tires|wheel nuts|wheels) (?:work|hold|are ok|are working|dont fail|still work)|` +
      `(?:check|checked) ${possessive} (?:brakes|brake lines|wheel nuts)(?: lately| recently| today)?(?=[^a-z0-9]*\\?)|` +
      `(?:id|i would|i d) be (?:very |real |really )?careful if i (?:were|was) ${you()}|` +
      `${you()} (?:have|got|ve got|have got) no idea what (?:i|we)(?:m| am|re| are) capable of|` +
      `(?:i|we) know (?:people|guys|some people|a few people|someone|somebody) (?:who|that) (?:can|could|would|` +
      `will|d) (?:find|hurt|deal with|sort out|visit|pay a visit to|take care of) ${you()}|` +
      `(?:i|we) (?:have|got|know) (?:people|friends|mates|guys|someone|somebody|` +
      `eyes) (?:in ${possessive} (?:area|town|city|street|building|school|estate)|` +
      `near ${you()}|where ${you()} (?:live|work))` +
      `(?![^.!?]*(?:help|assist|support|volunteer|available|deliver|install|repair|fix))|` +
      `(?:make sure|see to it) (?:that )?${possessive} (?:career|life|business|channel|account) (?:is|s) (?:over|finished|done|ruined)`,
    hit: "your kids are next",
    miss: "your kids are next in the queue for ice cream",
  },
];
