/**
 * Replacing spans of a text and finding, for an offset in the result, where it was in the
 * original: a rendered template is checked as a bot file, and each problem the check finds must
 * point where the template's author looks, not where the rendered text has it.
 */

/** One span replaced: where in the original, how long it was, and what replaces it. */
export interface Replacement {
  at: number;
  length: number;
  by: string;
}

/** `text` with each of `replacements` (sorted by `at`, not overlapping) put in. */
export function applyReplacements(text: string, replacements: readonly Replacement[]): string {
  let out = "";
  let from = 0;
  for (const r of replacements) {
    out += text.slice(from, r.at) + r.by;
    from = r.at + r.length;
  }
  return out + text.slice(from);
}

/**
 * The offset in the original of `offset` in the replaced text (from {@link applyReplacements}
 * with the same sorted `replacements`); an offset inside a replacement is its span's start,
 * since the author wrote the placeholder there.
 */
export function originalOffset(replacements: readonly Replacement[], offset: number): number {
  // How much longer the replaced text is than the original, up to `offset`.
  let grown = 0;
  for (const r of replacements) {
    const replacedStart = r.at + grown;
    if (offset < replacedStart) break;
    if (offset < replacedStart + r.by.length) return r.at;
    grown += r.by.length - r.length;
  }
  return offset - grown;
}
