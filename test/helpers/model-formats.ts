/**
 * The two public wire formats the model test server speaks (see `model-server.ts`, which
 * re-exports all of this): OpenAI's `POST /v1/moderations` and `POST /v1/chat/completions`,
 * and the Llama Guard 3 categories a safety model answers with. Types for what clients send,
 * and builders for what the server answers.
 */

/** OpenAI's moderation categories, as `omni-moderation-latest` answers them. */
export const MODERATION_CATEGORIES = [
  "harassment",
  "harassment/threatening",
  "hate",
  "hate/threatening",
  "illicit",
  "illicit/violent",
  "self-harm",
  "self-harm/intent",
  "self-harm/instructions",
  "sexual",
  "sexual/minors",
  "violence",
  "violence/graphic",
] as const;
export type ModerationCategory = (typeof MODERATION_CATEGORIES)[number];

/** The Llama Guard 3 hazard categories a safety model names after `unsafe`. */
export const LLAMA_GUARD_CATEGORIES = {
  S1: "Violent Crimes",
  S2: "Non-Violent Crimes",
  S3: "Sex-Related Crimes",
  S4: "Child Sexual Exploitation",
  S5: "Defamation",
  S6: "Specialized Advice",
  S7: "Privacy",
  S8: "Intellectual Property",
  S9: "Indiscriminate Weapons",
  S10: "Hate",
  S11: "Suicide & Self-Harm",
  S12: "Sexual Content",
  S13: "Elections",
  S14: "Code Interpreter Abuse",
} as const;
export type LlamaGuardCategory = keyof typeof LLAMA_GUARD_CATEGORIES;

/** A chat message as the client sent it (`content` may also be an array of parts). */
export interface ChatMessage {
  role: string;
  content: unknown;
  [field: string]: unknown;
}

/** A chat-completions request as the client sent it (checked to have `model` and `messages`). */
export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  max_tokens?: number;
  [field: string]: unknown;
}

/** A moderations request as the client sent it, with its inputs' texts in {@link ModerationRequest.texts}. */
export interface ModerationRequest {
  model?: string;
  input: unknown;
  /** The texts to classify, one per input, in order (added by the server, not sent). */
  texts: string[];
  [field: string]: unknown;
}

/** One result of the moderations answer. */
export interface ModerationResult {
  flagged: boolean;
  categories: Record<ModerationCategory, boolean>;
  category_scores: Record<ModerationCategory, number>;
  category_applied_input_types: Record<ModerationCategory, string[]>;
}

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

/** The text of a message's content: a string, or the texts of its parts. */
export function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content))
    return content
      .map((p) => (p && typeof p === "object" && typeof p.text === "string" ? (p.text as string) : ""))
      .join("\n");
  return "";
}

/** A moderation result with these scores (others 0); a category is flagged at `threshold` (0.5) or more. */
export function moderationResult(
  scores: Partial<Record<ModerationCategory, number>> = {},
  threshold = 0.5,
): ModerationResult {
  const categories = {} as Record<ModerationCategory, boolean>;
  const category_scores = {} as Record<ModerationCategory, number>;
  const category_applied_input_types = {} as Record<ModerationCategory, string[]>;
  for (const c of MODERATION_CATEGORIES) {
    category_scores[c] = scores[c] ?? 0;
    categories[c] = category_scores[c] >= threshold;
    category_applied_input_types[c] = ["text"];
  }
  return {
    flagged: Object.values(categories).some(Boolean),
    categories,
    category_scores,
    category_applied_input_types,
  };
}
