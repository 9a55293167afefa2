/**
 * What a judge's categories mean to postbot: each category of the two formats a judge speaks
 * is mapped onto one of postbot's kinds of abuse (`threat`, `harassment`), or onto nothing
 * when it names a harm that is not abuse of a person in a reply (advice about crime, a
 * person's own distress, elections...). A reply the judge flags only in unmapped categories
 * is not abusive; the log still names them. One table per format, so the docs can print it
 * and a reader can see why a flag did or did not hide a reply.
 */
import type { RuleKind } from "../types.ts";

/** The kinds a judge's category can stand for (a subset of the built-in's {@link RuleKind}). */
export type JudgeKind = Extract<RuleKind, "threat" | "harassment">;

/**
 * The Llama Guard 3 hazard categories (MLCommons' taxonomy plus S14), with the descriptions
 * of its model card, which the prompt sends (`llama-guard.ts`).
 */
export const LLAMA_GUARD_CATEGORIES = {
  S1: {
    name: "Violent Crimes",
    kind: "threat",
    description:
      "Responses that enable, encourage, or endorse the commission of violent crimes, including unlawful violence toward people or animals.",
  },
  S2: {
    name: "Non-Violent Crimes",
    kind: "threat",
    description:
      "Responses that enable, encourage, or endorse the commission of non-violent crimes, including personal crimes (threats, intimidation), financial crimes (fraud, scams), property, drug, weapons and cyber crimes.",
  },
  S3: {
    name: "Sex-Related Crimes",
    kind: "harassment",
    description:
      "Responses that enable, encourage, or endorse the commission of sex-related crimes, including sex trafficking, sexual assault, sexual harassment (physical, verbal, or visual), and prostitution.",
  },
  S4: {
    name: "Child Sexual Exploitation",
    kind: "threat",
    description: "Responses that contain, describe, enable, encourage, or endorse the sexual abuse of children.",
  },
  S5: {
    name: "Defamation",
    kind: null,
    description: "Responses that are both verifiably false and likely to injure a living person's reputation.",
  },
  S6: {
    name: "Specialized Advice",
    kind: null,
    description:
      "Responses that contain specialized financial, medical, or legal advice, or that indicate dangerous activities or objects are safe.",
  },
  S7: {
    name: "Privacy",
    kind: "threat",
    description:
      "Responses that contain sensitive, nonpublic personal information that could undermine someone's physical, digital, or financial security.",
  },
  S8: {
    name: "Intellectual Property",
    kind: null,
    description: "Responses that may violate the intellectual property rights of any third party.",
  },
  S9: {
    name: "Indiscriminate Weapons",
    kind: "threat",
    description:
      "Responses that enable, encourage, or endorse the creation of indiscriminate weapons (chemical, biological, radiological, nuclear, high-yield explosive).",
  },
  S10: {
    name: "Hate",
    kind: "harassment",
    description:
      "Responses that demean or dehumanize people on the basis of their sensitive, personal characteristics (race, color, ethnicity, national origin, disability, religious affiliation, caste, sexual orientation, sex, gender identity, and/or serious disease).",
  },
  S11: {
    name: "Suicide & Self-Harm",
    kind: "threat",
    description:
      "Responses that enable, encourage, or endorse acts of intentional self-harm, including suicide, self-injury, and disordered eating.",
  },
  S12: {
    name: "Sexual Content",
    kind: "harassment",
    description: "Responses that contain erotica.",
  },
  S13: {
    name: "Elections",
    kind: null,
    description:
      "Responses that contain factually incorrect information about electoral systems and processes, including in the time, place, or manner of voting in civic elections.",
  },
  S14: {
    name: "Code Interpreter Abuse",
    kind: null,
    description:
      "Responses that seek to abuse code interpreters, including those that enable denial of service attacks, container escapes or privilege escalation exploits.",
  },
} as const satisfies Record<string, { name: string; kind: JudgeKind | null; description: string }>;

export type LlamaGuardCategory = keyof typeof LLAMA_GUARD_CATEGORIES;

/**
 * OpenAI's moderation categories (`omni-moderation-latest`) and the kind each stands for.
 * `self-harm` and `self-harm/intent` are a person speaking of their own distress, which a bot
 * should not hide; `self-harm/instructions` (telling someone how) is a threat. `illicit` is
 * advice about wrongdoing, not abuse of the reader; threats have their own categories.
 */
export const MODERATION_CATEGORIES = {
  harassment: "harassment",
  "harassment/threatening": "threat",
  hate: "harassment",
  "hate/threatening": "threat",
  illicit: null,
  "illicit/violent": "threat",
  "self-harm": null,
  "self-harm/intent": null,
  "self-harm/instructions": "threat",
  sexual: "harassment",
  "sexual/minors": "threat",
  violence: "threat",
  "violence/graphic": "threat",
} as const satisfies Record<string, JudgeKind | null>;

export type ModerationCategory = keyof typeof MODERATION_CATEGORIES;

/** The kind a judge's category stands for: `null` when it is not abuse, `undefined` when the category is unknown. */
export function kindOfCategory(category: string): JudgeKind | null | undefined {
  if (Object.hasOwn(LLAMA_GUARD_CATEGORIES, category))
    return LLAMA_GUARD_CATEGORIES[category as LlamaGuardCategory].kind;
  if (Object.hasOwn(MODERATION_CATEGORIES, category)) return MODERATION_CATEGORIES[category as ModerationCategory];
  return undefined;
}

/** A category as a log line names it: `S1 (Violent Crimes)`, or OpenAI's name as it is. */
export function describeCategory(category: string): string {
  return Object.hasOwn(LLAMA_GUARD_CATEGORIES, category)
    ? `${category} (${LLAMA_GUARD_CATEGORIES[category as LlamaGuardCategory].name})`
    : category;
}
