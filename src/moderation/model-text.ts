/**
 * What the trained model reads of a reply (`model.ts`): its normalised text with reported
 * quotes taken out, whole and sentence by sentence. Apart from the model so that the
 * fingerprint of its features (`fingerprint.ts`) can read probe texts the same way.
 */
import { normalize, type Normalized } from "./normalize.ts";
import { reportedQuotes } from "./quotes.ts";

/**
 * What the model reads of a reply: its normalised form (`normalize(text).collapsed.text`)
 * with each quote the reply reports or rejects (`quotes.ts`: "someone called me a 'useless
 * cow' for posting this") replaced by the word "quote". The rules drop their hits inside
 * such quotes; without this the model would still read the quoted insult and hide the
 * reply of the person it was aimed at. The training script reads texts the same way.
 *
 * @param normalized and `quoted`: the text's normal form and reported quotes when the
 *   caller has them already (the classifier), so the usual reply, with no quote, is not
 *   normalised twice.
 */
export function modelText(
  text: string,
  normalized: Normalized = normalize(text),
  quoted: ReadonlyArray<{ start: number; end: number }> = reportedQuotes(text),
): string {
  if (quoted.length === 0) return normalized.collapsed.text;
  let kept = "";
  let at = 0;
  for (const q of quoted) {
    kept += `${text.slice(at, q.start)} quote `;
    at = q.end;
  }
  return normalize(kept + text.slice(at)).collapsed.text;
}

/** Where a normalised text is cut into sentences ("." "!" "?" ";" and the like). */
const SENTENCE_END = /[.!?;:]+(?:\s|$)/;

/**
 * The parts of a normalised text the model reads: the whole text and, when it has more than
 * one, each sentence of at least three words. A long reply of harmless sentences around one
 * abusive one ("great thread, learned a lot about the canal. anyway, lovely family you have,
 * shame if they found out where you live") would otherwise dilute the abuse below the cut:
 * the model's features are scaled by the text's length. The training script scores
 * cross-validation the same way, so the cut is chosen for this reading.
 */
export function modelParts(normalised: string): string[] {
  const sentences = normalised
    .split(SENTENCE_END)
    .filter((s) => s.split(" ").filter((w) => /[a-z0-9]/.test(w)).length >= 3);
  return sentences.length > 1 ? [normalised, ...sentences] : [normalised];
}
