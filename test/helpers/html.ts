/**
 * Reading the sandbox's authorization pages the way a browser would: the form's action and
 * fields, so a test can "fill in and submit" a page by posting those fields.
 */

const unescape = (s: string) =>
  s.replace(/&(amp|lt|gt|quot|#39);/g, (_, e: string) => ({ amp: "&", lt: "<", gt: ">", quot: '"', "#39": "'" })[e]!);

const attr = (tag: string, name: string) => {
  const m = new RegExp(`\\b${name}="([^"]*)"`).exec(tag);
  return m ? unescape(m[1]!) : undefined;
};

export interface PageForm {
  action: string;
  method: string;
  /** Every input's name and value (hidden ones, and text boxes with their prefilled value). */
  fields: Record<string, string>;
  /** The names of the inputs a person types into (username, password). */
  visible: string[];
}

/** The first form of a page. */
export function readForm(html: string): PageForm {
  const form = /<form\b[^>]*>/.exec(html);
  if (!form) throw new Error(`no form on the page: ${html.slice(0, 300)}`);
  const fields: Record<string, string> = {};
  const visible: string[] = [];
  for (const [tag] of html.matchAll(/<input\b[^>]*>/g)) {
    const name = attr(tag, "name");
    if (!name) continue;
    fields[name] = attr(tag, "value") ?? "";
    if (attr(tag, "type") !== "hidden") visible.push(name);
  }
  return {
    action: attr(form[0], "action") ?? "",
    method: (attr(form[0], "method") ?? "get").toUpperCase(),
    fields,
    visible,
  };
}

/** The cookie a response sets, as a `Cookie` header value (`name=value`). */
export const cookieOf = (headers: Headers) => headers.get("set-cookie")?.split(";")[0];
