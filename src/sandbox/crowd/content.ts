/**
 * What the demo's simulated crowd says: its people (usernames, names, bios) and the texts
 * they post, kept apart from the scheduler (`crowd.ts`) so they can be read, extended and
 * checked on their own.
 *
 * Texts are built from parts (an opening, a body, an ending) so the crowd rarely repeats
 * itself: the service refuses the same text from one account twice within 24 hours. Every
 * reply is either benign or abusive by construction, and a test checks the moderation
 * classifier agrees on every combination of parts: benign texts include the look-alikes a
 * naive filter trips on (swearing for emphasis, "killing it"), abusive ones include
 * obfuscated spellings ("f u c k you", "y0u 1d10t") the `moderate` plugin must see through.
 */
import { parseQuery, type QueryNode } from "../domain/query.ts";
import type { Random } from "../../seeded-random.ts";

/** A simulated person. */
export interface Persona {
  /** 1 to 15 letters, digits or `_`, as the service requires. */
  username: string;
  name: string;
  bio: string;
}

/** The crowd's people, in the order a crowd of a given size takes them. */
export const PERSONAS: readonly Persona[] = [
  { username: "maya_codes", name: "Maya Okafor", bio: "Backend developer in Lagos. Coffee, cats and clean APIs." },
  { username: "tom_bikes", name: "Tom Berger", bio: "Cyclist, tinkerer, occasional baker." },
  { username: "lin_reads", name: "Lin Zhou", bio: "Librarian by day, science fiction by night." },
  { username: "sam_draws", name: "Sam Rivera", bio: "Illustrator. I draw robots that are nicer than people." },
  { username: "priya_data", name: "Priya Nair", bio: "Data scientist. Plots, plants and puns." },
  { username: "jonas_ops", name: "Jonas Keller", bio: "Ops engineer. Pager survivor." },
  { username: "ana_travels", name: "Ana Souza", bio: "Always planning the next trip." },
  { username: "omar_plays", name: "Omar Haddad", bio: "Board games and bad jokes." },
  { username: "kate_grows", name: "Kate Nilsson", bio: "Growing tomatoes on a balcony in Oslo." },
  { username: "leo_bass", name: "Leo Marchetti", bio: "Bass player, bot enthusiast." },
  { username: "yuki_front", name: "Yuki Tanaka", bio: "Frontend developer. Tabs, not spaces." },
  { username: "ben_runs", name: "Ben Adeyemi", bio: "Marathons, slowly." },
  { username: "zoe_writes", name: "Zoe Laurent", bio: "Writer, drafting my second novel." },
  { username: "raj_cooks", name: "Raj Patel", bio: "Home cook. Spice is a love language." },
  { username: "ella_physics", name: "Ella Novak", bio: "Physics student who asks too many questions." },
  { username: "diego_photo", name: "Diego Alvarez", bio: "Street photographer, mostly at golden hour." },
];

/**
 * The first `size` personas; past the list, the same people again with a number (the
 * username cut to keep within 15 characters).
 */
export function personas(size: number): Persona[] {
  const out: Persona[] = [];
  for (let i = 0; i < size; i++) {
    const base = PERSONAS[i % PERSONAS.length]!;
    const round = Math.floor(i / PERSONAS.length);
    if (round === 0) out.push(base);
    else {
      const suffix = String(round + 1);
      out.push({
        username: `${base.username.slice(0, 15 - suffix.length)}${suffix}`,
        name: `${base.name} ${suffix}`,
        bio: base.bio,
      });
    }
  }
  return out;
}

/** Places people write from (`{city}`). */
export const CITIES = [
  "Lisbon",
  "Berlin",
  "Osaka",
  "Toronto",
  "Nairobi",
  "Lima",
  "Oslo",
  "Melbourne",
  "Austin",
  "Pune",
] as const;

/** Endings that vary a text without changing what it says. */
export const ENDINGS = ["", " 🙂", " 👋", " :)", "!", " 🤖", " 🙏", " ✨"] as const;

/** Mentions of a bot (`{bot}` is its username, `{city}` a place). */
export const MENTIONS = [
  "@{bot} hi! how does this work?",
  "hey @{bot}, are you a bot?",
  "@{bot} what can you do?",
  "@{bot} good morning from {city}",
  "@{bot} any tips for a first bot?",
  "@{bot} is this thing on?",
  "@{bot} who made you?",
  "@{bot} do you ever sleep?",
  "@{bot} tell me something nice",
  "@{bot} what's new today?",
  "@{bot} greetings from {city}, how are you?",
  "@{bot} can you help me with my bot?",
] as const;

/** What the crowd writes to a bot in a direct message. */
export const DMS = [
  "hi! is this where I ask for help?",
  "hello, are you a bot or a person?",
  "quick question: what can you do?",
  "hey, greetings from {city}",
  "thanks for the follow back!",
  "can you tell me more about postbot?",
  "is anyone reading these?",
  "hi, I have a question about my order",
] as const;

/** How replies to a bot's post begin. */
export const REPLY_OPENINGS = [
  "",
  "Hmm, ",
  "Honestly, ",
  "Good one! ",
  "Easy: ",
  "For me, ",
  "Ha, ",
  "Not sure, but ",
] as const;

/**
 * Benign answers to a bot's post. Some use words a naive filter trips on: none is aimed at
 * anyone, and the classifier must let them all through.
 */
export const BENIGN_REPLIES = [
  "a bot that waters my plants",
  "learning TypeScript at last",
  "a tiny weather app",
  "fixing my bike",
  "a birthday present for my sister",
  "a sourdough starter",
  "reading more, scrolling less",
  "a garden bench",
  "my first open source pull request",
  "a playlist for the long drive",
  "nothing much, taking it easy",
  "a treehouse with my kids",
  "notes for a talk about bots",
  "coffee, mostly",
  "a new running route",
  "this is fucking awesome, a weather bot",
  "my team is killing it this sprint",
  "an assessment tool for Scunthorpe's cocktail bars",
] as const;

/** How abusive replies begin. */
export const ABUSIVE_OPENINGS = ["", "lol ", "ugh, ", "seriously? "] as const;

/** Abusive replies: plain insults and harassment, then obfuscated spellings of abuse. */
export const ABUSIVE_REPLIES = [
  "you're an idiot",
  "go to hell, loser",
  "you are a waste of space",
  "go away, nobody likes you",
  "nobody would miss you",
  "get lost, clown",
  "f u c k you",
  "y0u are such an 1d10t",
  "s t f u",
  "u r a m0r0n",
  "f*ck off bot",
  "fuuuuck you",
  "you useless piece of sh1t",
] as const;

/** Posts on a stream topic (`{topic}`: words or hashtags a bot's stream rule matches). */
export const TOPIC_POSTS = [
  "{topic} is the best thing I read about today",
  "anyone else playing with {topic}?",
  "just shipped something with {topic} 🚀",
  "new week, new {topic} experiments",
  "my notes on {topic}: keep it simple",
  "loving {topic} lately",
  "{topic} question: where do I start?",
  "a tiny thread about {topic} 🧵",
  "{topic} meetup in {city} tonight",
] as const;

/** Chatter about nothing in particular (`{city}` a place). */
export const CHATTER = [
  "coffee first, then code ☕",
  "anyone watching the game tonight?",
  "it's raining again in {city}",
  "finally finished that book",
  "lunch break 🥪",
  "the sunset in {city} today was unreal",
  "my cat just knocked over my plant",
  "weekend plans: absolutely nothing",
  "trying a new recipe tonight",
  "who else is up this early?",
] as const;

/** What a crowd text is: its kind and whether it was written to be abusive. */
export type TextKind = "mention" | "reply" | "topic" | "chatter" | "dm";

/** A text the crowd will post, with what it is. */
export interface CrowdText {
  kind: TextKind;
  text: string;
  /** Written to be abusive (only replies are). */
  abusive: boolean;
}

const fill = (template: string, slots: Record<string, string>) =>
  template.replace(/\{(\w+)\}/g, (whole, name: string) => slots[name] ?? whole);

/** A mention of the bot `bot` (its username). */
export function mentionText(rng: Random, bot: string): CrowdText {
  return {
    kind: "mention",
    abusive: false,
    text: fill(rng.pick(MENTIONS), { bot, city: rng.pick(CITIES) }) + rng.pick(ENDINGS),
  };
}

/** A reply to a post of the bot `bot`, abusive or not as asked. */
export function replyText(rng: Random, bot: string, abusive: boolean): CrowdText {
  const body = abusive
    ? rng.pick(ABUSIVE_OPENINGS) + rng.pick(ABUSIVE_REPLIES)
    : rng.pick(REPLY_OPENINGS) + rng.pick(BENIGN_REPLIES);
  return { kind: "reply", abusive, text: `@${bot} ${body}${rng.pick(ENDINGS)}` };
}

/** A direct message to a bot. */
export function dmText(rng: Random): CrowdText {
  return { kind: "dm", abusive: false, text: fill(rng.pick(DMS), { city: rng.pick(CITIES) }) + rng.pick(ENDINGS) };
}

/** A post on a topic (see {@link topicOf}). */
export function topicText(rng: Random, topic: string): CrowdText {
  return {
    kind: "topic",
    abusive: false,
    text: fill(rng.pick(TOPIC_POSTS), { topic, city: rng.pick(CITIES) }) + rng.pick(ENDINGS),
  };
}

/** Chatter. */
export function chatterText(rng: Random): CrowdText {
  return {
    kind: "chatter",
    abusive: false,
    text: fill(rng.pick(CHATTER), { city: rng.pick(CITIES) }) + rng.pick(ENDINGS),
  };
}

/**
 * Words a post can contain to match a stream rule: its keywords, phrases, `#hashtags`,
 * `@mentions` and `$cashtags`, one branch of each `OR`, nothing it negates. Operators no
 * text can satisfy (`from:`, `is:reply`, `lang:`) are left out, so such a rule may not
 * match; undefined when the rule does not parse or has nothing to write.
 *
 * @example
 * ```ts
 * topicOf("#postbot -is:repost", rng); // "#postbot"
 * topicOf('"bot framework" (typescript OR #ts)', rng); // "bot framework typescript" or "bot framework #ts"
 * ```
 */
export function topicOf(rule: string, rng: Random): string | undefined {
  let root: QueryNode;
  try {
    root = parseQuery(rule).root;
  } catch {
    return undefined;
  }
  const prefixes: Record<string, string> = { hashtag: "#", mention: "@", cashtag: "$" };
  // Whether a node can be written at all, so an OR never picks a branch that cannot.
  const writable = (node: QueryNode): boolean =>
    node.kind === "terms" ||
    (node.kind === "op" && prefixes[node.name] !== undefined) ||
    ((node.kind === "and" || node.kind === "or") && node.children.some(writable));
  const words = (node: QueryNode): string[] => {
    switch (node.kind) {
      case "terms":
        return [node.tokens.join(" ")];
      case "op":
        return prefixes[node.name] !== undefined ? [prefixes[node.name] + node.value] : [];
      case "and":
        return node.children.flatMap(words);
      case "or":
        return words(rng.pick(node.children.filter(writable)));
      case "not":
        return [];
    }
  };
  return writable(root) ? words(root).join(" ") : undefined;
}
