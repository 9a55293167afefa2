/**
 * Test helpers for everyone who tests against the sandbox: start one in-process on port 0
 * with a frozen clock, make an app, a user and a token in one call, and send requests signed
 * with OAuth 1.0a (by the oauth-1.0a package, independent of the sandbox's own verifier), an
 * app-only bearer, or a PKCE token obtained through the real authorization pages.
 *
 * @example
 * ```ts
 * const t = await startSandbox();
 * afterAll(() => t.close());
 * const alice = await t.account({ username: "alice", plan: "basic" });
 * const res = await t.signed(alice, "POST", "/2/posts", { json: { text: "hello" } });
 * expect(res.status).toBe(201);
 * await t.clock.advance(15 * 60_000); // windows, resets and keep-alives follow
 * ```
 */
import { createHmac } from "node:crypto";
import OAuth from "oauth-1.0a";
import { readForm } from "./html.ts";
import { createClient, type ApiClient } from "../../src/api/client.ts";
import { createClock, type AdjustableClock } from "../../src/clock.ts";
import type { Plan } from "../../src/limits/types.ts";
import { createSandbox, type AppView, type Sandbox, type SandboxOptions } from "../../src/sandbox/index.ts";

/** The frozen clock's start: a Monday, so day and month boundaries are easy to reason about. */
export const T0 = Date.parse("2026-03-02T12:00:00.000Z");

/** OAuth 1.0a credentials: the app's keys, and a user's token when signing as that user. */
export interface OAuth1Creds {
  consumer_key: string;
  consumer_secret: string;
  token?: string;
  token_secret?: string;
}

/** An app, one of its users, and that user's access token. */
export interface Account extends OAuth1Creds {
  app: AppView;
  user: { id: string; username: string; name: string };
  token: string;
  token_secret: string;
}

export interface RequestOptions {
  /** Query parameters (signed). */
  query?: Record<string, string>;
  /** A JSON body (never signed, as on the real service). */
  json?: unknown;
  /** A form body (signed). */
  form?: Record<string, string>;
  /** A raw body sent as is, with `headers` saying its type. */
  raw?: string | Uint8Array;
  headers?: Record<string, string>;
  /** Extra `oauth_*` parameters to sign and send in the header (`oauth_callback`, `oauth_verifier`). */
  oauth?: Record<string, string>;
}

export interface TestResponse {
  status: number;
  headers: Headers;
  text: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  body: any;
}

/** RFC 3986 encoding, which is also what oauth-1.0a decodes query strings with. */
export const pct = (s: string) =>
  encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

const queryString = (q: Record<string, string> | undefined) =>
  q && Object.keys(q).length > 0
    ? "?" +
      Object.entries(q)
        .map(([k, v]) => `${pct(k)}=${pct(v)}`)
        .join("&")
    : "";

const formString = (f: Record<string, string>) =>
  Object.entries(f)
    .map(([k, v]) => `${pct(k)}=${pct(v)}`)
    .join("&");

async function toResponse(res: Response): Promise<TestResponse> {
  const text = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: res.status, headers: res.headers, text, body };
}

/**
 * The `Authorization: OAuth ...` header for a request, made by the oauth-1.0a package with
 * the sandbox clock's time (the sandbox refuses timestamps 5 minutes off its clock).
 */
export function oauthHeader(
  clock: { now(): number },
  creds: OAuth1Creds,
  method: string,
  url: string,
  signedData: Record<string, string> = {},
): string {
  const oauth = new OAuth({
    consumer: { key: creds.consumer_key, secret: creds.consumer_secret },
    signature_method: "HMAC-SHA1",
    hash_function: (base, key) => createHmac("sha1", key).update(base).digest("base64"),
  });
  oauth.getTimeStamp = () => Math.floor(clock.now() / 1000);
  const token = creds.token ? { key: creds.token, secret: creds.token_secret ?? "" } : undefined;
  const data = oauth.authorize({ url, method, data: signedData }, token);
  // Extra oauth_* parameters (oauth_callback, oauth_verifier) are signed through `data`;
  // toHeader only emits oauth_* keys, so they travel in the header too.
  return oauth.toHeader({ ...data, ...signedData } as OAuth.Authorization).Authorization;
}

export interface TestSandbox {
  sandbox: Sandbox;
  url: string;
  clock: AdjustableClock;
  admin: Sandbox["admin"];
  /** Closes the clients of {@link client}, then the sandbox. */
  close(): Promise<void>;
  /** Creates an app (or uses `app`), a user and the user's access token. */
  account(opts?: { username?: string; plan?: Plan; app?: AppView; callback_urls?: string[] }): Promise<Account>;
  /** postbot's API client signed as `account` (OAuth 1.0a), on the sandbox's clock; closed by {@link close}. */
  client(account: Account, options?: { label?: string }): ApiClient;
  /** A request signed with OAuth 1.0a. */
  signed(creds: OAuth1Creds, method: string, path: string, opts?: RequestOptions): Promise<TestResponse>;
  /** A request with `Authorization: Bearer <token>` (app-only or PKCE). */
  bearer(token: string, method: string, path: string, opts?: RequestOptions): Promise<TestResponse>;
  /** A request with whatever headers `opts` gives (no credentials added). */
  raw(method: string, path: string, opts?: RequestOptions): Promise<TestResponse>;
  /** The app's bearer token from `POST /oauth2/token`. */
  appBearer(app: AppView): Promise<string>;
  /** A PKCE token of the user for the app, through the authorization page and the token endpoint. */
  pkce(
    app: AppView,
    user: { username: string },
    scopes: string[],
    opts?: { password?: string; method?: "S256" | "plain" },
  ): Promise<PkceTokens>;
  /** An admin API call over HTTP. */
  adminCall(method: string, path: string, body?: unknown, token?: string): Promise<TestResponse>;
}

export interface PkceTokens {
  token_type: string;
  expires_in: number;
  access_token: string;
  scope: string;
  refresh_token?: string;
}

let userSeq = 0;

/** A user made through the admin API (with a password for the authorization pages, if given). */
export async function createUser(sandbox: Sandbox, username: string, password?: string) {
  const user = await sandbox.admin.createUser({ username, name: username, ...(password ? { password } : {}) });
  return { id: user.id, username: user.username, name: user.name };
}

/** Starts a sandbox in-process on 127.0.0.1, port 0, with a frozen clock at {@link T0}. */
export async function startSandbox(options: SandboxOptions = {}): Promise<TestSandbox> {
  const clock = options.clock ?? createClock({ frozen: true, start: T0 });
  const sandbox = await createSandbox({ ...options, clock });
  const url = sandbox.url;

  const send = async (method: string, path: string, opts: RequestOptions, auth?: string): Promise<TestResponse> => {
    const headers: Record<string, string> = { ...opts.headers };
    let body: string | Uint8Array | undefined;
    if (opts.json !== undefined) {
      body = JSON.stringify(opts.json);
      headers["content-type"] ??= "application/json";
    } else if (opts.form) {
      body = formString(opts.form);
      headers["content-type"] ??= "application/x-www-form-urlencoded";
    } else if (opts.raw !== undefined) body = opts.raw;
    if (auth) headers.authorization = auth;
    const res = await fetch(url + path + queryString(opts.query), { method, headers, body, redirect: "manual" });
    return toResponse(res);
  };

  const clients: ApiClient[] = [];
  const t: TestSandbox = {
    sandbox,
    url,
    clock,
    admin: sandbox.admin,
    async close() {
      await Promise.all(clients.splice(0).map((c) => c.close()));
      await sandbox.close();
    },

    client(account, options = {}) {
      const client = createClient({
        baseUrl: url,
        clock,
        auth: {
          consumer: { key: account.consumer_key, secret: account.consumer_secret },
          user: { token: account.token, secret: account.token_secret },
          ...(options.label !== undefined ? { label: options.label } : {}),
        },
      });
      clients.push(client);
      return client;
    },

    async account(opts = {}) {
      const app = opts.app ?? (await sandbox.admin.createApp({ plan: opts.plan, callback_urls: opts.callback_urls }));
      const username = opts.username ?? `user${++userSeq}`;
      const user = await createUser(sandbox, username);
      const token = await sandbox.admin.createToken({ consumer_key: app.consumer_key, user_id: user.id });
      return {
        app,
        user: { id: user.id, username: user.username, name: user.name },
        consumer_key: app.consumer_key,
        consumer_secret: app.consumer_secret,
        token: token.token,
        token_secret: token.token_secret,
      };
    },

    signed(creds, method, path, opts = {}) {
      const signedData: Record<string, string> = { ...opts.query, ...opts.form, ...opts.oauth };
      return send(method, path, opts, oauthHeader(clock, creds, method, url + path, signedData));
    },

    bearer: (token, method, path, opts = {}) => send(method, path, opts, `Bearer ${token}`),

    raw: (method, path, opts = {}) => send(method, path, opts),

    async appBearer(app) {
      const basic = Buffer.from(`${pct(app.consumer_key)}:${pct(app.consumer_secret)}`).toString("base64");
      const res = await send("POST", "/oauth2/token", { form: { grant_type: "client_credentials" } }, `Basic ${basic}`);
      if (res.status !== 200) throw new Error(`POST /oauth2/token answered ${res.status}: ${res.text}`);
      return res.body.access_token as string;
    },

    async pkce(app, user, scopes, opts = {}) {
      const redirect = app.callback_urls[0];
      if (!redirect) throw new Error("the app needs a callback URL for PKCE (createApp({ callback_urls: [...] }))");
      const verifier = "v".repeat(20) + Math.random().toString(36).slice(2).padEnd(30, "x");
      const method = opts.method ?? "S256";
      const challenge =
        method === "S256"
          ? (await import("node:crypto")).createHash("sha256").update(verifier).digest("base64url")
          : verifier;
      const fields = {
        response_type: "code",
        client_id: app.client_id,
        redirect_uri: redirect,
        scope: scopes.join(" "),
        state: "st",
        code_challenge: challenge,
        code_challenge_method: method,
      };
      // As a browser: open the page, then post its form (hidden fields and CSRF token included).
      const page = await send("GET", "/i/oauth2/authorize", { query: fields });
      if (page.status !== 200)
        throw new Error(`the authorization page answered ${page.status}: ${page.text.slice(0, 300)}`);
      const approved = await send("POST", "/i/oauth2/authorize", {
        form: {
          ...readForm(page.text).fields,
          username: user.username,
          password: opts.password ?? "sandbox",
          decision: "allow",
        },
      });
      const location = approved.headers.get("location");
      const code = location && new URL(location).searchParams.get("code");
      if (!code)
        throw new Error(
          `the authorization page did not redirect with a code (${approved.status}): ${approved.text.slice(0, 300)}`,
        );
      const res = await send("POST", "/2/oauth2/token", {
        form: {
          grant_type: "authorization_code",
          code,
          redirect_uri: redirect,
          code_verifier: verifier,
          client_id: app.client_id,
        },
      });
      if (res.status !== 200) throw new Error(`POST /2/oauth2/token answered ${res.status}: ${res.text}`);
      return res.body as PkceTokens;
    },

    adminCall: (method, path, body, token = sandbox.adminToken) =>
      send(method, path, body === undefined ? {} : { json: body }, `Bearer ${token}`),
  };
  return t;
}
