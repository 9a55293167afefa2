/**
 * The pages a person sees when connecting an account (`/connect/...`): which templates there
 * are, what happened after the service sent them back (connected, cancelled, refused, nothing
 * to do), and the disconnect form. Plain HTML with no script and one stylesheet from this
 * server ({@link CONNECT_CSS}), under the status server's Content-Security-Policy; every text
 * that comes from outside (usernames, template names) is escaped.
 */

import { escapeHtml } from "../escape-html.ts";

/** Where the pages' stylesheet is served. */
export const CONNECT_CSS_PATH = "/connect/connect.css";

/** The pages' look: readable on a phone, nothing loaded from elsewhere. */
export const CONNECT_CSS = `body{font-family:system-ui,sans-serif;max-width:34rem;margin:3rem auto;padding:0 1rem;color:#0f1419;line-height:1.45}
h1{font-size:1.4rem}.note{color:#536471;font-size:.9rem}.error{color:#b00020}
a.button,button{display:inline-block;margin:.4rem .4rem 0 0;padding:.45rem 1rem;border-radius:1rem;border:1px solid #536471;background:#fff;color:#0f1419;text-decoration:none;font:inherit;cursor:pointer}
a.primary,button.primary{background:#0f1419;color:#fff}ul.templates{list-style:none;padding:0}ul.templates li{margin:.9rem 0}code{font-size:.95em}`;

/** A whole page: its title (also the heading) and body. */
export function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(title)}</title><link rel="stylesheet" href="${CONNECT_CSS_PATH}"></head><body>
<p class="note">postbot: connect an account</p>
<h1>${escapeHtml(title)}</h1>
${body}
</body></html>`;
}

/** A template as the index page lists it. */
export interface TemplateEntry {
  name: string;
  /** The name its bots get, with the placeholder (`greeter-{account.username}`). */
  botName: string;
  plan: string;
  /** Why it cannot be used now (its problems are in the log). */
  broken?: boolean;
}

/** `/connect`: the templates, each with its connect and disconnect links. */
export function indexPage(templates: readonly TemplateEntry[]): string {
  if (templates.length === 0)
    return page(
      "No templates",
      `<p id="message">This postbot has no templates, so no account can connect here. Its operator adds one as <code>templates/NAME.yaml</code> (see docs/operations.md, "Accounts that connect themselves").</p>`,
    );
  const items = templates
    .map(
      (
        t,
      ) => `<li id="template-${escapeHtml(t.name)}"><strong>${escapeHtml(t.name)}</strong>: a bot named <code>${escapeHtml(t.botName)}</code> on the ${escapeHtml(t.plan)} plan<br>
${
  t.broken
    ? `<span class="error">not available now: the template has problems (the operator sees them in the log)</span>`
    : `<a class="button primary" href="/connect/${encodeURIComponent(t.name)}">Connect an account</a> <a class="button" href="/connect/${encodeURIComponent(t.name)}/disconnect">Disconnect one</a>`
}</li>`,
    )
    .join("\n");
  return page(
    "Connect an account",
    `<p>Choose what your account should do. You sign in with the service and authorize this postbot's app; a bot then runs as your account until you disconnect it.</p>
<ul class="templates">${items}</ul>`,
  );
}

/** A page that says what happened and offers one way on. */
export function messagePage(
  title: string,
  message: string,
  opts: { error?: boolean; links?: Array<{ href: string; text: string }> } = {},
): string {
  const links = (opts.links ?? [])
    .map((l) => `<a class="button" href="${escapeHtml(l.href)}">${escapeHtml(l.text)}</a>`)
    .join(" ");
  return page(
    title,
    `<p id="message"${opts.error ? ` class="error" role="alert"` : ""}>${escapeHtml(message)}</p>${links ? `\n<p>${links}</p>` : ""}`,
  );
}

/** After a connect: which account is served, by which bot, and how to disconnect later. */
export function connectedPage(o: {
  username: string;
  bot: string;
  template: string;
  again: boolean;
  disconnectUrl: string;
}): string {
  return page(
    o.again ? `@${o.username} is served again` : `@${o.username} is connected`,
    `<p id="message">Your account <strong id="account">@${escapeHtml(o.username)}</strong> is now served by the bot <strong id="bot">${escapeHtml(o.bot)}</strong> (template ${escapeHtml(o.template)})${o.again ? ", with the new authorization" : ""}. It runs until you disconnect it.</p>
<p class="note">To disconnect later, open <a id="disconnect" href="${escapeHtml(o.disconnectUrl)}">${escapeHtml(o.disconnectUrl)}</a>: you sign in with the service again and choose Disconnect.</p>`,
  );
}

/** After signing in to disconnect: the bots that would stop, and the button. */
export function disconnectPage(o: { username: string; bots: readonly string[]; session: string }): string {
  const list = o.bots.map((b) => `<li><strong>${escapeHtml(b)}</strong></li>`).join("");
  return page(
    `Disconnect @${o.username}?`,
    `<p id="message">Signed in as <strong>@${escapeHtml(o.username)}</strong>. Disconnecting revokes this postbot's access to your account at the service and stops and removes ${o.bots.length === 1 ? "its bot" : "its bots"}:</p>
<ul id="bots">${list}</ul>
<form method="post" action="/connect/disconnect">
<input type="hidden" name="session" value="${escapeHtml(o.session)}">
<button class="primary" type="submit">Disconnect @${escapeHtml(o.username)}</button>
<a class="button" href="/connect">Keep it</a>
</form>`,
  );
}
