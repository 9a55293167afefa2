/**
 * Escaping text for HTML, for the pages postbot serves without a template engine (the
 * sandbox's sign-in pages, the connect pages): one function, so no page escapes differently.
 */

/** Escapes text for HTML element content and (quoted) attribute values. */
export const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
