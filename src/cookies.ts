/**
 * Reading the `Cookie` header, for the pages postbot serves that remember a browser (the
 * sandbox's sign-in session, the connect pages' disconnect form): one parser for both.
 */

/** Parses a `Cookie` header into name → value (values percent-decoded; a malformed one is skipped). */
export function parseCookies(header: string | undefined): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of (header ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq <= 0) continue;
    const name = part.slice(0, eq).trim();
    let value = part.slice(eq + 1).trim();
    try {
      value = decodeURIComponent(value);
    } catch {
      continue;
    }
    out.set(name, value);
  }
  return out;
}
