/**
 * Sexual harassment, with or without sexual words: remarks on the reader's body, requests
 * for pictures of them, "what are you wearing" and its kin, and "how old are you, sweetie".
 * A picture of "your setup", a "body of work" or "send me a pic of the error" is not one.
 */
import { adverbs, agents, bodyParts, possessive, words, you, youAre, yourself } from "./fragments.ts";
import type { PhraseRuleEntry } from "./phrase-rule.ts";

export const SEXUAL_REMARKS: readonly PhraseRuleEntry[] = [
  {
    id: "harassment:sexual/send-nudes",
    pattern: () =>
      `(?:send|dm|snap|message) (?:me )?(?:${possessive} )?(?:nudes|noods)|send (?:me )?pics of ${possessive} (?:body|tits|boobs|ass)|` +
      `${you()}(?:d| would| re| are| look like ${you()}d| look like ${you()} would)? ${words(2)}(?:be )?(?:good|great|fun|wild|a freak|tight) in bed|` +
      `show (?:me |us )?(?:${possessive}|those|them|ur) (?:tits|boobs|body|pussy|dick|ass|titties|feet)(?! of)|` +
      `(?:^|(?<=[?.!,][^a-z0-9]*))send (?:me )?(?:pics|pictures|photos)(?=[^a-z0-9]*$|` +
      ` (?:babe|baby|sweetheart|sexy|hun|honey|girl|darling|sweetie|or))|` +
      `(?:post|send|show) (?:me )?(?:${possessive} )?(?:feet|feet pics|foot pics|bikini pics)|` +
      `(?:look|be|be even|look even) (?:better|hotter|prettier|sexier|nicer) (?:naked|nude|without (?:any )?(?:clothes|${possessive} clothes))|` +
      `bend ${you()} over|sit on my (?:face|lap|dick|cock|knee)|(?:wanna|want to|do you want to|want 2) see my (?:dick|cock|penis|junk|d)|dick pics?|` +
      `what (?:are|r) ${you()} wearing(?! (?:to|for|at|on|tonight|tomorrow|today|this))|` +
      `nice (?:tits|boobs|rack|titties|ass)|smile more|shut up and smile|` +
      `nice (?:legs|body|butt|curves|thighs|figure)[^a-z0-9]+(?:wanna|want to|dm|come over|babe|baby|sexy|sweetheart)|` +
      `(?:be|look) (?:hot|hotter|sexy|sexier|pretty|prettier|cute|cuter) if ${you()} (?:lost weight|lost some weight|smiled|shut up|wore|took)|` +
      `see ${you()} (?:naked|nude|undressed|without (?:any )?clothes|in (?:lingerie|a bikini|${possessive} underwear|underwear|nothing))|` +
      `show (?:me |us )?(?:${possessive}|those|them|ur) (?:bum|butt|arse|booty|bra|underwear|knickers|panties)|give (?:me |us )a (?:flash|peek)|` +
      `(?:look|be|looks) (?:good|better|great|best|nice) on ${possessive} knees|` +
      `spread ${possessive} (?:legs|cheeks)|open ${possessive} legs|suck (?:me|my) off|blow me(?![a-z0-9])|give me head|` +
      `${youAre()} (?:just |only |nothing but )?(?:a )?(?:pair of tits|piece of ass|set of tits|walking vagina)|` +
      `(?:prettier|hotter|cuter|nicer) (?:if|when) ${you()} (?:smiled?|shut up|kept quiet|stayed quiet)|` +
      `how much for (?:a night|an hour(?! of)|a (?:blowjob|bj|date))|` +
      `(?:id|i would|i wanna|i want to|i could) (?:smash|tap that|hit that|rail ${you()}|fuck ${you()}|bang ${you()}|` +
      `bend ${you()})(?=[^a-z0-9]*$| (?:her|him|${you()}|that|so|ngl|tbh))`,
    hit: "send nudes",
    miss: "send me the notes",
  },
  {
    id: "harassment:sexual/look-good-naked",
    pattern: () =>
      `(?:bet|imagine|picture) ${you()} ${words(1)}(?:look|looks|d look|would look) (?:good|great|hot|sexy|better|` +
      `amazing|fine) (?:in nothing|naked|nude|without (?:any |${possessive} )?clothes)|` +
      `(?:pic|pics|photo|photos|picture|pictures|selfie|selfies|video) (?:of ${you()} )?in ${possessive} (?:bra|` +
      `underwear|lingerie|bikini|knickers|panties|bed|shower|bath)|` +
      `(?:ruin|destroy|wreck|rail|pound) ${you()} in bed`,
    hit: "i'd ruin you in bed",
    miss: "sweetie, you look exhausted, go to bed",
  },
  {
    id: "harassment:sexual/take-your-top-off",
    pattern: () =>
      `(?:lips|mouth|tongue|hands) (?:would |will |d )?(?:look|looks|be|feel|feels) (?:better|good|great|nice|` +
      `perfect) (?:around|on|wrapped around) my|` +
      `take ${possessive} (?:top|shirt|bra|clothes|knickers|pants|panties|kit|dress) off|strip (?:for|4) (?:me|us|the camera)`,
    hit: "take your top off for the camera",
    miss: "take your coat off and stay a while",
  },
  {
    id: "harassment:sexual/what-colour-underwear",
    pattern: () =>
      `what (?:colou?r|kind of|type of|size) (?:is |are )?(?:${possessive} )?(?:bra|underwear|knickers|panties|` +
      `lingerie|thong|pants|bras)(?![a-z0-9])|` +
      `bet ${you()}(?:re| are) (?:a )?(?:screamer|freak in bed|wild in bed|kinky|tight|easy|loud in bed|good in bed)|` +
      `(?:do|doing|did) (?:things|stuff|filthy things|dirty things|naughty things|unspeakable things|nasty things) to ${you()}|` +
      `(?:pic|pics|photo|photos|picture|pictures|selfie|selfies|video|videos|vid|vids) of ${you()} in (?:the |` +
      `${possessive} )?(?:bath|shower|bed|underwear|bra|bikini|lingerie|nothing)`,
    hit: "what colour is your bra",
    miss: "what colour is your car",
  },
  {
    id: "harassment:sexual/your-body-looks",
    pattern: () =>
      `${possessive} ${bodyParts}(?! of) ${words(2)}(?:look|looks|looked|are|is|were|was|s|re) ${words(1)}` +
      `(?:amazing|incredible|so good|great|hot|sexy|perfect|delicious|tasty|fit|tight|juicy|edible|unreal|fire|` +
      `banging|bangin|stunning|gorgeous|lush|peng|thicc|firm|soft|perky|round|biteable|suckable|` +
      `kissable|fuckable)(?![a-z0-9])|` +
      `(?:that|this|the|those) (?:dress|top|skirt|outfit|shirt|jeans|leggings|shorts|swimsuit|` +
      `bikini) ${words(2)}(?:shows off|show off|hugs|hug|shows|show|shows|does wonders for) (?:${possessive}|those|` +
      `them) (?:curves|figure|legs|body|assets|chest|bum|butt|ass|thighs|cleavage|boobs|tits|hips)`,
    hit: "your legs look amazing",
    miss: "your garden looks amazing",
  },
  {
    id: "harassment:sexual/send-pics-of-you",
    pattern: () =>
      `(?:send|dm|snap|message|email|text) (?:me |us )?(?:a |some |more |any )?(?:pic|pics|picture|pictures|photo|` +
      `photos|selfie|selfies|snap|snaps|video|vid|vids) ` +
      `(?:of ${yourself()}|of ${you()}(?![a-z0-9])(?! (?:and|with|at|on|holding|doing|using|for|from))|` +
      `of ${possessive} ${bodyParts}|` +
      `in (?:a |${possessive} |that |those )?(?:bikini|underwear|lingerie|bra|knickers|panties|bed|shower|towel|` +
      `swimsuit|nothing|pjs|pyjamas|pajamas))|` +
      `(?:post|show) (?:me |us )?(?:a |some |more |any )?(?:pic|pics|picture|pictures|photo|photos|selfie|selfies|` +
      `video|vid|vids) (?:of ${possessive} (?:legs|thighs|bum|butt|booty|arse|ass|chest|boobs|tits|feet|cleavage)|` +
      `in (?:a |${possessive} |that )?(?:bikini|underwear|lingerie|bra|knickers|panties|towel|nothing))|` +
      `(?:more|some|any|send|post) (?:pics|photos|selfies|pictures|nudes) (?:babe|baby|sexy|sweetheart|sweetie|hun|` +
      `honey|darling|cutie|princess)(?![a-z0-9])`,
    hit: "dm me a pic in your bra",
    miss: "send me a pic of the error message",
  },
  {
    id: "harassment:sexual/wear-less",
    pattern: () =>
      `(?:are|r) ${you()} wearing (?:anything|underwear|a bra|knickers|panties|pants|a thong) (?:under|right now|rn|now|today|tonight)|` +
      `(?:should|could|need to|gotta|must|ought to) wear (?:less|nothing|fewer clothes|a shorter|shorter|tighter|` +
      `something (?:tighter|shorter|smaller|more revealing|sexier|skimpier|lower))|` +
      `wear (?:that|it|those|the) (?:dress|skirt|top|outfit|bikini|lingerie|heels) (?:again )?(?:for me|for us)|` +
      `show (?:us |me )?(?:some|a bit of|a bit more|more|a little) skin|bend over (?:for me|for us|babe|baby|and)|` +
      `(?:take|took|taking) (?:it|that|those|them|everything|it all) off (?:for me|for us|slowly|babe|baby)`,
    hit: "shut up and show some skin",
    miss: "shut up and take my money",
  },
  {
    id: "harassment:sexual/touch-your-body",
    pattern: () =>
      `(?:id|i would|i wanna|i want to|i wana|i could|let me|lemme|cant wait to|love to|like to) (?:love to |like to )?` +
      `(?:see|touch|feel|taste|lick|kiss|hold|squeeze|grab|spank|smell|sniff|bite|suck|rub|massage|worship) ` +
      `(?:${possessive}|those|them) (?:legs|thighs|curves|bum|butt|booty|arse|ass|chest|boobs|tits|feet|toes|lips|hips|neck|body)(?! of| work)|` +
      `${agents()} ${adverbs}(?:lick|spank|grope|fondle|sniff|taste|feel up|undress|strip) ${you()}(?![a-z0-9])|` +
      `${you()}(?:re| are| r| look| looking| lookin) (?:so |such )?(?:like )?(?:a )?(?:snack|whole snack|whole meal|` +
      `fuckable|doable|edible|thicc|juicy|tasty|delicious|` +
      `ripe)(?![a-z0-9])(?! (?:recipe|dish|cake|sandwich|food|pie|burger))|` +
      `${you()}(?:d| would| should| belong| look| ll look|d look) ${words(2)}(?:in|on) my (?:bed|lap|face|sheets)(?![a-z0-9])|` +
      `how old (?:are|r) ${you()} (?:sweetie|babe|baby|cutie|princess|honey|sweetheart|darling|little one|gorgeous|beautiful|sexy)|` +
      `(?:sweetie|babe|baby|cutie|princess|sweetheart|gorgeous|beautiful|sexy)[^a-z0-9]+how old (?:are|r) ${you()}`,
    hit: "i want to taste you",
    miss: "you have the best taste in music",
  },
  {
    id: "harassment:sexual/bend-over",
    pattern: () =>
      `(?:^|(?<=[.!?,;][^a-z0-9]*))(?:now |just |go )?(?:bend over|` +
      `spread (?:em|them|those)(?: legs| cheeks)?)(?=[^a-z0-9]*$| (?:for me|babe|baby))|` +
      `take it (?:all )?off(?=[^a-z0-9]*(?:all|babe|baby|for me|for us|slowly|sexy)(?![a-z0-9]))|` +
      `turn (?:around|round)[^a-z0-9]+(?:lets|let me|let us) see|` +
      `(?:id|i would|i could|i wanna|i want to|il|i wil) (?:ruin|wreck|rail|pound|eat|devour|` +
      `breed) ${you()}(?=[^a-z0-9]*$|[^a-z0-9]*[.!,]| alive| so| til| until| all night| properly| in bed)|` +
      `(?:give|giving) ${you()} a (?:good )?(?:seeing to|rogering|pounding|railing)|` +
      `(?:have|had) ${you()} (?:screaming|moaning|begging) (?:my name|for more|for it)|` +
      `make ${you()} (?:my|a) (?:little )?(?:toy|bitch|slut|pet|plaything|fucktoy|sex toy)|` +
      `forget ${possessive} (?:boyfriends|husbands|girlfriends|wifes|partners) name|` +
      `(?:want|need|get) ${you()} (?:in|into) my (?:bed|room|lap|arms)(?![a-z0-9])|breed (?:me|${you()})(?![a-z0-9])|` +
      `(?:pic|pics|photo|photos|picture|selfie) of what ${you()}(?:re| are| r)? wearing|(?:or|and) not wearing|` +
      `(?:dm|send|snap|show) (?:me |us )?${possessive} (?:body|legs|feet|tits|boobs|bum|butt|ass|chest|thighs|cleavage)(?! of)(?![a-z0-9])|` +
      `(?:show|see) (?:me |us )?what(?:s| is) under (?:that|the|${possessive}) (?:jumper|top|shirt|dress|skirt|towel|hoodie|jeans|clothes)|` +
      `bet ${you()}(?:re| are| r) (?:wearing nothing|naked|not wearing (?:anything|much))|` +
      `(?:see|picture|imagine) ${you()} in ${words(4)}(?:and nothing else|nothing but)|` +
      `(?:jerk|jerked|jerking|wank|wanked|wanking|touch|touching|touched|rub|rubbing|fap|fapping|fapped) (?:off |` +
      `myself )?(?:to|over|thinking about|thinking of) ` +
      `(?:${you()}(?![a-z0-9])|${possessive} (?:pic|pics|photo|photos|picture|profile|selfie|selfies|videos?|body))|` +
      `keep ${possessive} (?:picture|pic|photo|selfie|pics|photos) for later|` +
      `${possessive} (?:boyfriend|husband|bf|man|girlfriend|wife|partner) ${words(2)}(?:doesnt|does not|cant|` +
      `can not|never|couldnt) (?:satisfy|please) ${you()}|` +
      `(?:begging|asking) (?:to be|for it|to get) (?:grabbed|touched|groped|fucked|used)|` +
      `what(?:s| is) ${possessive} (?:bra|cup|bust) size|` +
      `nice (?:legs|body|butt|curves|thighs|figure|rack|bum|ass|tits|boobs|cleavage) (?:babe|baby|sexy|sweetheart|` +
      `darling|hun)(?![a-z0-9])|(?:dressed|dress|dressing) like that (?:and|then) (?:expect|want|complain)`,
    hit: "spread em",
    miss: "spread the word!",
  },
];
