/**
 * Wishes of death or harm, with or without "die": "I hope you die", "may you rot", "go
 * play in traffic", "I'd dance on your grave", "nobody would care if you died"; not "I'm
 * dying of laughter", "drop dead gorgeous" or "a view to die for".
 */
import { notFollowedBy } from "../pattern.ts";
import { family, possessive, words, you, yourself } from "./fragments.ts";
import type { PhraseRuleEntry } from "./phrase-rule.ts";

export const DEATH_WISHES: readonly PhraseRuleEntry[] = [
  {
    id: "threat:wish-death/you-should-die",
    pattern: () =>
      `${you()} (?:should|shud|shld|ought to|need to|deserve to|must|will|gonna|are going to|re going to|are gonna|re gonna|better) ` +
      `(?:just |go |all )?(?:die|be killed|get killed|be shot|get shot|be hanged|hang|rot|burn|suffer|be raped|get raped|be put down|` +
      `(?:be|get) hit by a (?:car|bus|truck|train))` +
      notFollowedBy([
        "on",
        "laughing",
        "of",
        "your",
        "ur",
        "ya",
        "for",
        "in your sleep",
        "happy",
        "trying",
        "a hero",
        "hard",
        "out",
        "down",
      ]),
    hit: "you should die",
    miss: "you will die laughing at this one",
  },
  {
    id: "threat:wish-death/hope-you-die",
    pattern: () =>
      `(?:hope|wish|pray)s? (?:that )?(?:[a-z0-9]+_){0,8}?(?:and |that |so )?(?:${you()}|${possessive} (?:whole |entire )?${family}) ` +
      `(?:will |would |all |just |eventually |slowly |gets? |ends? up )?` +
      `(?:die|dies|died|dying|cancer|raped|killed|shot|burn|burns|suffer|suffers|rot|rots|choke|chokes|drown|` +
      `drowns|starve|starves|hit by a (?:car|bus|truck|train)|never wake up)` +
      notFollowedBy(["laughing", "of laughter", "with laughter", "happy"]),
    hit: "h0pe u d1e",
    miss: "I hope you die of laughter at this",
  },
  {
    id: "threat:last-days/last-days",
    pattern: () =>
      `enjoy ${possessive} last (?:days|day|breath|moments|week)|` +
      `${you()} (?:wont|will not) (?:see|live to see) (?:tomorrow|next week|the weekend|another day)|` +
      `(?:a )?special place in hell for (?:${you()}|people like you)`,
    hit: "enjoy your last days",
    miss: "enjoy your last few days of holiday!",
  },
  {
    id: "threat:die-in-a-fire/die-in-a-fire",
    pattern: () => `(?:die|burn|rot) in (?:a fire|hell|a ditch|a hole|your sleep|agony)`,
    hit: "rot in hell",
    miss: "this chilli will burn in a good way",
  },
  {
    id: "threat:go-die/go-die",
    pattern: () =>
      `(?:go|just|pls|please|plz) (?:die|kys|jump off a (?:bridge|building|cliff|roof)|play in traffic|` +
      `hang ${yourself()}|choke on it|choke and die|choke|` +
      `get hit by (?:a |an )?[a-z]+|get run over|get cancer)` +
      notFollowedBy(["hard", "laughing", "happy", "of", "on", "for"]),
    hit: "go d!e",
    miss: "just die laughing at this",
  },
  {
    id: "threat:wish-death/your-family-should-die",
    pattern: () =>
      `(?:${you()} and |${you()}_)?${possessive} (?:whole |entire )?${family} (?:should|shud|deserve to|need to|will|must|ought to) ` +
      `(?:all )?(?:die|burn|rot|suffer|be killed|be shot|be raped|hang)(?![a-z0-9])`,
    hit: "your whole family should die",
    miss: "your whole family should come to the show",
  },
  {
    id: "threat:wish-death/hope-you-get-hurt",
    pattern: () =>
      `(?:hope|wish)(?:s|ing)? (?:that )?${you()}(?:d| would| will| ll| get| gets| got)? (?:get |be |were |was |are )?` +
      `(?:run over|hit by (?:a |an |the )?[a-z]+|dead|gone for good|never born|in a coffin|six feet under|` +
      `catch (?:cancer|aids|covid|ebola|the plague)|never been born|had never been born|(?:whats|what is) coming|` +
      `fall (?:down|off) (?:the stairs|a cliff|a building|a bridge)|` +
      `choke on|cancer|aids|a painful death|hit by lightning|eaten by|step on a (?:landmine|mine)|shot|stabbed|murdered|` +
      `never recover|never get better|suffer forever)`,
    hit: "wish you were dead",
    miss: "hope you get better soon",
  },
  {
    id: "threat:wish-death/nobody-would-care-if-you-died",
    pattern: () =>
      `(?:nobody|no one|noone|no1) (?:would|will|d|is going to|gonna) (?:care|notice|miss ${you()}|cry|mourn)(?: at all)? ` +
      `(?:if|when) ${you()} (?:died|die|were dead|was dead|dropped dead|disappeared|vanished|were gone|killed ${yourself()}|jumped)`,
    hit: "no one would cry if you died",
    miss: "nobody would care if you were late",
  },
  {
    id: "threat:wish-death/better-if-you-were-dead",
    pattern: () =>
      `better (?:off |place )?(?:if|when|once) ${you()} (?:were |was |are |re )?(?:dead|died|gone|never (?:born|existed|woke up|wake up)|` +
      `didnt exist|did not exist|disappeared|vanished|werent (?:here|around|born)|dropped dead|stopped breathing)`,
    hit: "we'd all be better off if you weren't here",
    miss: "we'd all be better off if you ran the club",
  },
  {
    id: "threat:wish-death/drop-dead",
    pattern: () =>
      `(?:drop dead|stop existing|stop breathing|cease to exist|cease existing|die already|just die|pls die|please die)` +
      notFollowedBy([
        "gorgeous",
        "sexy",
        "beautiful",
        "stunning",
        "handsome",
        "cute",
        "hot",
        "brilliant",
        "funny",
        "good",
        "of",
        "laughing",
      ]),
    hit: "drop dead",
    miss: "drop dead gorgeous",
  },
  {
    id: "threat:wish-death/should-have-been-aborted",
    pattern: () =>
      `(?:should|shouldve|should of|should have|shoulda|deserved to be|should been) (?:been |ben )?aborted`,
    hit: "you should have been aborted",
    miss: "the mission was aborted",
  },
  {
    id: "threat:wish-death/should-have-drowned-you",
    pattern: () => `(?:should have|shouldve|should of|shoulda) (?:drowned|strangled|killed|smothered|aborted) ${you()}`,
    hit: "should've drowned you at birth",
    miss: "should have drowned the salad in dressing",
  },
  {
    id: "threat:wish-death/slow-painful-death",
    pattern: () =>
      `(?:wish|wishing|wishes) ${you()} (?:a )?(?:(?:slow|painful|horrible|agonising|agonizing|lonely|quick) (?:and )?)*(?:death|cancer)|` +
      `(?:hope|wish|pray) (?:someone|somebody|a car|a bus|a truck|a train) (?:runs ${you()} over|kills ${you()}|` +
      `shoots ${you()}|stabs ${you()}|hits ${you()}|beats ${you()}|ends ${you()})|` +
      `(?:the )?day ${you()} (?:die|dies|finally die|drop dead|croak)(?: ${words(2)})?(?:will be|is|wil be|` +
      `ll be) (?:a |an |the )?(?:[a-z]+_)?(?:holiday|celebration|party|good day|best day)|` +
      `(?:cant|can not|cannot) wait (?:for|until|till|til) ${you()} (?:die|are dead|re dead|drop dead|croak)|` +
      `(?:pay|love|like|want|laugh|cheer|celebrate) to (?:watch|see) ${you()} (?:die|burn|suffer|drown|bleed|get hit|rot)|` +
      `put (?:${you()}|this guy|this clown|him|her|them) out of (?:${possessive}|his|her|their) misery|` +
      `hope ${possessive} (?:plane|flight|car|house|boat|bus) (?:crashes|crash|burns|burns down|explodes|sinks|blows up)|` +
      `(?:^|hope ${you()} )(?:dont|do not|never) wake up|(?:eat|swallow|suck on) (?:a |the )?(?:bullet|shotgun|gun|barrel)|` +
      `(?<!(?:i|id|im|i would|i am|i d|we|wed|i feel|i think) )(?:${you()}(?:re| are| r| d be| would be) )?better off dead|` +
      `(?:nobody|no one|noone) (?:will|would|is going to|gonna) (?:cry|come|show up|go|turn up) (?:at|to) ${possessive} funeral|` +
      `why (?:are|r) ${you()} (?:still )?(?:alive|breathing)|just end it|end it all|go end it|end it already|and end it(?![a-z0-9])|` +
      `(?:hope|wish|may) ${you()} (?:have|live|get) a (?:short|miserable|painful|horrible|lonely|terrible|slow) (?:life|death|existence)|` +
      `may ${possessive} days be (?:few|numbered|short)|` +
      `(?:hope|wish) ${you()} (?:fall|trip|walk|jump|get thrown|run|slip) (?:into|off|in front of|under) (?:a |the )?` +
      `(?:woodchipper|wood chipper|volcano|meat grinder|train|bus|cliff|bridge|lake|river|sea|truck|car)|` +
      `${you()} should (?:just )?(?:disappear|vanish|go away|cease to exist|not exist) (?:permanently|forever|for good)`,
    hit: "wish you a slow painful death",
    miss: "end it here, the thread is too long",
  },
  {
    id: "threat:wish-death/dance-on-your-grave",
    pattern: () =>
      `(?:considered|consider|try|tried|thought about) (?:not existing|not being alive|not living|ending it all|dying)|` +
      `(?:burn|burns|burned) down with ${you()} (?:in it|inside)|(?:dance|piss|spit|shit) on ${possessive} grave`,
    hit: "i'd dance on your grave",
    miss: "we'll dance at your wedding",
  },
  {
    id: "threat:wish-death/six-feet-under",
    pattern: () =>
      `${you()}(?:re| are| r| will be| ll be| belong) six feet under|day ${you()}(?:re| are) (?:six feet under|dead|in a coffin)`,
    hit: "you'll be six feet under",
    miss: "the roots go six feet under the lawn",
  },
  {
    id: "threat:go-die/play-in-traffic",
    pattern: () =>
      `(?:go|just|pls|please|plz|should|` +
      `^) ?(?:play (?:in|on) (?:the )?(?:traffic|motorway|highway|freeway|interstate|train tracks|railway|tracks)|` +
      `jump off (?:a|the) (?:bridge|building|cliff|roof|tower)|` +
      `walk into (?:the sea|the ocean|traffic|a river|the river|a lake|a wall of fire))`,
    hit: "jump off a cliff",
    miss: "the kids jump off the pier all summer",
  },
  // A reply that is only "die" (or "just die.").
  {
    id: "threat:go-die/die",
    pattern: () => `^(?:just |now |pls |please )?(?:die|diee|dies)(?=[^a-z0-9]*$)`,
    hit: "Die.",
    miss: "die another day",
  },
  {
    id: "threat:go-die/jump",
    pattern: () => `^(?:just |now |pls |please |plz |go )jump(?=[^a-z0-9]*$)`,
    hit: "pls jump",
    miss: "just jump in, the water's lovely",
  },
  // Death wishes without "kill" or "die you": "may you rot", "hope a piano falls on you".
  {
    id: "threat:wish-death/may-you-rot",
    pattern: () =>
      `may ${you()} (?:die|rot|suffer|burn|choke|drown|perish|never wake up|rest in pieces)|` +
      `(?:hope|wish|pray)s? ${words(4)}(?:falls on|lands on|crushes|runs over|runs ${you()} over|kills|eats|mauls|` +
      `murders|stabs|shoots) ${you()}(?![a-z0-9])|` +
      `(?:hope|wish|pray)s? ${you()} (?:catch|get|develop|contract) ${words(2)}(?:fatal|terminal|incurable|deadly|cancer|aids|ebola|a disease)|` +
      `wish(?:ing|es)? ${you()} (?:a |an )?(?:(?:slow|painful|horrible|agonising|agonizing|lonely|quick|nasty|` +
      `miserable) (?:and )?)*(?:end|demise|accident|death)(?![a-z0-9])|` +
      `(?:world|internet|everyone|everybody|earth|planet|site|place) (?:would be|d be|` +
      `will be) ${words(3)}(?:better|nicer|happier|brighter|cleaner|safer) ${words(3)}(?:if|when|once) ${you()} ` +
      `${words(2)}(?:stopped existing|stop existing|died|disappeared|were gone|was gone|were dead|was dead|` +
      `did not exist|didnt exist|never existed|vanished|got hit by)|` +
      `(?:hope|pray|wish|and) ${you()} (?:dont|do not|never|wont) wake up|` +
      `(?:dont|do not|never) wake up (?:again|tomorrow|ever)(?=[^a-z0-9]*$|[^a-z0-9]*[,.!])`,
    hit: "may you rot in hell",
    miss: "may you always be happy",
  },
  {
    id: "threat:go-die/in-front-of-a-train",
    pattern: () =>
      `(?:step|walk|jump|lie down|lay down|throw ${yourself()}) in front of (?:a|the) (?:train|bus|car|truck|lorry|tram)`,
    hit: "go step in front of a train",
    miss: "don't stand in front of the train doors",
  },
  {
    id: "threat:wish-death/hope-you-never-wake-up",
    pattern: () =>
      `(?:hope|wish|pray)s? ${you()} ${words(5)}(?:and )?(?:never (?:get up|wake up|come back|recover|walk again|` +
      `make it)|break ${possessive} neck|bleed out)|` +
      `(?:cant wait|cannot wait|looking forward|waiting|wait) (?:to|for) ${words(2)}${possessive} (?:obituary|funeral|death|wake|eulogy|autopsy)|` +
      `(?:dance|party|celebrate|laugh) at ${possessive} funeral|` +
      `(?:hope|wish|pray)s? ${possessive} (?:plane|car|flight|house|boat|bus|train|heart|brakes) (?:goes down|` +
      `go down|crashes|crash|burns|burns down|explodes|sinks|gives out|stops|fail|fails)|` +
      `may ${possessive} (?:bloodline|family|line|kids|children|family tree|name) (?:end|die|rot|suffer|burn|perish)`,
    hit: "hope your plane goes down",
    miss: "hope your plane lands safely",
  },
  {
    id: "threat:wish-death/go-rot",
    pattern: () =>
      `(?:when|once|the day|the minute|the second) ${you()} ${words(1)}(?:die|dies|croak|kick the bucket|snuff it|` +
      `drop dead|pop ${possessive} clogs|stop breathing) ` +
      `${words(3)}(?:celebrate|party|dance|cheer|throw a party|throwing a party|open (?:the )?champagne|be happy|laugh|rejoice)|` +
      `(?:^|(?<=[,.!?;][^a-z0-9]*))(?:just |pls |please )?go (?:drown|rot|choke|hang ${yourself()}|starve|suffocate)(?![a-z0-9])`,
    hit: "go rot",
    miss: "go rotate the tyres",
  },
];
