/**
 * Why a reply was listed for review, in words: one wording for `bot review` and the status
 * page's `/review` table (which shows the `why` of `/api/review`'s items), so the two never
 * say it differently.
 */
import type { BotReviewItem } from "../hosting/review-desk.ts";

/**
 * The rule that listed the reply and the words it matched; when no rule named it, its
 * evidence (the number the unsure band and the reasons speak of), and, when the model's
 * probability made it larger than the rules' score, that it came from the model (`evidence
 * 0.392 from the model, rule score 0`). `shown` shortens the matched words where a line must
 * stay short (the terminal).
 */
export function reviewWhy(
  item: Pick<BotReviewItem, "rule" | "match" | "score" | "evidence">,
  shown: (text: string) => string = (text) => text,
): string {
  if (item.rule) return `${item.rule}${item.match ? ` matched "${shown(item.match)}"` : ""}`;
  // A reply listed before evidence was kept has only its score.
  const evidence = item.evidence ?? item.score;
  return evidence > item.score
    ? `evidence ${evidence} from the model, rule score ${item.score}`
    : `evidence ${evidence}`;
}
