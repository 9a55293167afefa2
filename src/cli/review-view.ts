/**
 * `bot review`'s list as a person reads it: per reply, the bot, where it stands and what
 * decided it, the rule or the judge with the words that matched, the reasons, and the
 * decision a person made, if any.
 */
import type { BotReviewItem } from "../hosting/review-desk.ts";
import { reviewWhy } from "../observe/review-words.ts";

/** `3m ago`, `2h ago`, `4d ago`. */
function ago(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 90) return `${s}s ago`;
  if (s < 90 * 60) return `${Math.round(s / 60)}m ago`;
  if (s < 36 * 3600) return `${Math.round(s / 3600)}h ago`;
  return `${Math.round(s / 86_400)}d ago`;
}

/** The text of a reply on one line, shortened. */
const oneLine = (text: string) => {
  const t = text.replace(/\s+/g, " ").trim();
  return t.length > 100 ? `${t.slice(0, 97)}...` : t;
};

/** The list, or a sentence saying it is empty. */
export function formatReviewList(items: readonly BotReviewItem[], now: number): string {
  if (items.length === 0) return "nothing to review: no reply was hidden or left in doubt";
  const lines: string[] = [];
  for (const i of items) {
    const standing = i.state === "hidden" ? "hidden" : i.listed === "unsure" ? "unsure, visible" : "visible";
    const why = reviewWhy(i, oneLine);
    lines.push(
      `${i.bot}: reply ${i.post} by @${i.author.username}, ${ago(now - i.at)}: ${standing} (${i.source}: ${why})`,
    );
    lines.push(`  "${oneLine(i.text)}"`);
    if (i.reasons.length > 0) lines.push(`  ${i.reasons.join("; ")}`);
    if (i.decision)
      lines.push(
        `  decided: ${i.decision.decision} by ${i.decision.by}, ${ago(now - i.decision.at)} (${i.decision.status})`,
      );
    else
      lines.push(
        `  decide: bot review hide|unhide|keep ${i.post}${items.some((o) => o !== i && o.post === i.post) ? ` --bot ${i.bot}` : ""}`,
      );
  }
  return lines.join("\n");
}
