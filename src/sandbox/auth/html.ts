/**
 * The HTML of the authorization pages a person sees in a browser: sign in, approve or
 * cancel, the PIN of the out-of-band flow, and error pages. Plain forms with no script, so a
 * test (or `curl`) can drive them by posting the form's fields, exactly as a browser would.
 */

import { escapeHtml } from "../../escape-html.ts";

export { escapeHtml };

const STYLE = `body{font-family:system-ui,sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem;color:#0f1419}
h1{font-size:1.4rem}label{display:block;margin:.6rem 0 .2rem}input[type=text],input[type=password]{width:100%;padding:.5rem;box-sizing:border-box}
button{margin:.8rem .4rem 0 0;padding:.5rem 1rem;border-radius:1rem;border:1px solid #536471;background:#fff;cursor:pointer}
button.primary{background:#0f1419;color:#fff}.error{color:#b00020}.pin{font-size:2rem;letter-spacing:.3rem;font-family:monospace}
ul{padding-left:1.2rem}.note{color:#536471;font-size:.9rem}`;

/** A complete page. */
export function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body>
<p class="note">Social Posting Service (sandbox)</p>
${body}
</body></html>`;
}

const hiddenFields = (fields: Record<string, string>) =>
  Object.entries(fields)
    .map(([k, v]) => `<input type="hidden" name="${escapeHtml(k)}" value="${escapeHtml(v)}">`)
    .join("\n");

export interface AuthorizeForm {
  /** Where the form posts (the page's own path). */
  action: string;
  appName: string;
  /** Fields the form carries back unchanged (the request token, the PKCE parameters). */
  hidden: Record<string, string>;
  /** The signed-in user, when credentials need not be typed again. */
  signedInAs?: string;
  /** Prefill of the username box (`screen_name`). */
  username?: string;
  /** What the app asks for: read and write, or PKCE scopes. */
  permissions: string[];
  /**
   * The access level an OAuth 1.0a request token asks for (`app_auth_access_type`), said in
   * one line above the list; PKCE pages list scopes instead and leave it out.
   */
  access?: "read" | "write";
  /** Some usernames of the sandbox, offered as suggestions in the username box. */
  usernames?: string[];
  error?: string;
}

/**
 * How a person signs in to the sandbox, said on the page itself: a sandbox has no real
 * accounts, so nobody could otherwise know a password (the rule is in `session.ts`).
 */
const SIGN_IN_HELP = `<p class="note" id="sign-in-help">This is a sandbox: sign in as any of its users with the password <code>sandbox</code>, unless a password was set when the user was created (<code>POST /_sandbox/users</code> with <code>"password"</code>).</p>`;

const ACCESS_LINE = {
  read: `<p id="access">Access requested: <strong>read only</strong>.</p>`,
  write: `<p id="access">Access requested: <strong>read and write</strong>.</p>`,
};

/**
 * The sign-in-and-approve page. When someone is signed in (and `force_login` was not asked),
 * it only asks to approve; otherwise it asks for the username and password in the same form.
 */
export function authorizePage(f: AuthorizeForm): string {
  const suggestions = f.usernames?.length
    ? `<datalist id="sandbox-users">${f.usernames.map((u) => `<option value="${escapeHtml(u)}">`).join("")}</datalist>`
    : "";
  const creds = f.signedInAs
    ? `<p>Signed in as <strong>@${escapeHtml(f.signedInAs)}</strong>.</p>`
    : `<label for="username">Username</label>
<input type="text" id="username" name="username" autocomplete="username"${suggestions ? ' list="sandbox-users"' : ""} value="${escapeHtml(f.username ?? "")}">${suggestions}
<label for="password">Password</label>
<input type="password" id="password" name="password" autocomplete="current-password">
${SIGN_IN_HELP}`;
  return page(
    `Authorize ${f.appName}`,
    `<h1>Authorize <strong>${escapeHtml(f.appName)}</strong> to use your account?</h1>
${f.error ? `<p class="error" role="alert">${escapeHtml(f.error)}</p>` : ""}
${f.access ? ACCESS_LINE[f.access] : ""}
<p>This application will be able to:</p>
<ul>${f.permissions.map((p) => `<li>${escapeHtml(p)}</li>`).join("")}</ul>
<form method="post" action="${escapeHtml(f.action)}">
${hiddenFields(f.hidden)}
${creds}
<button class="primary" type="submit" name="decision" value="allow">Authorize app</button>
<button type="submit" name="decision" value="deny">Cancel</button>
</form>`,
  );
}

/** The out-of-band flow's last page: the PIN the person types into the app. */
export function pinPage(appName: string, pin: string): string {
  return page(
    "Authorized",
    `<h1>You've granted access to ${escapeHtml(appName)}!</h1>
<p>Next, return to ${escapeHtml(appName)} and enter this PIN to complete the authorization process:</p>
<p class="pin"><code id="oauth_pin">${escapeHtml(pin)}</code></p>`,
  );
}

/** Shown after "Cancel" in the out-of-band flow. */
export function deniedPage(appName: string): string {
  return page("Not authorized", `<h1>You didn't authorize ${escapeHtml(appName)}.</h1><p>No access was granted.</p>`);
}

/** An error page (an expired or unknown request token, a redirect URI that is not registered...). */
export function errorPage(title: string, message: string): string {
  return page(title, `<h1>${escapeHtml(title)}</h1><p class="error" role="alert">${escapeHtml(message)}</p>`);
}
