/**
 * The person at the browser, for tests of the client's and `bot auth`'s sign-in flows: open
 * the sandbox's authorize page a flow printed, sign in, approve, and read what the page
 * answers (the PIN page, or the redirect to the callback with the verifier or code).
 */
import { expect } from "vitest";
import { readForm } from "./html.ts";

/**
 * Opens an authorize page (OAuth 1.0a or PKCE), signs in as `username` and approves. Answers
 * the approval's response unfollowed: the PIN page, or a redirect whose `location` is the
 * callback.
 */
export async function approveInBrowser(url: string, username: string, password = "sandbox"): Promise<Response> {
  const page = await fetch(url);
  expect(page.status).toBe(200);
  const form = readForm(await page.text());
  return fetch(new URL(form.action, url), {
    method: form.method,
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ ...form.fields, username, password, decision: "allow" }),
    redirect: "manual",
  });
}

/** The PIN the out-of-band (`oob`) page shows; a page without one fails the test. */
export function pinOn(html: string): string {
  const pin = /id="oauth_pin">(\d+)</.exec(html)?.[1];
  if (!pin) throw new Error(`no PIN on the page: ${html.slice(0, 300)}`);
  return pin;
}
