/**
 * Accounts that connect themselves through the web: the steps behind the
 * `/connect/...` pages of `bot start --http`, each answering a {@link ConnectReply} that
 * ./routes.ts writes out.
 *
 * Connecting (`GET /connect/NAME`): a request token for the template's app with the callback
 * `<public-url>/connect/callback`, the browser sent to the service's authorize page; on the
 * callback the verifier is traded for the account's token, the token stored in the credential
 * store under the bot's name (as `bot auth login --account NAME` stores one: the state's 0600
 * credential file, or the state's Redis), and the bot made from the template started through
 * the fleet ({@link ConnectFleet}, which keeps it in the state, so every process sharing it
 * sees the bot). An account that connects again with the same template (its token revoked, its
 * bot paused) gets its bot restarted with the new token.
 *
 * Disconnecting (`GET /connect/NAME/disconnect`): signing in with the service again through
 * `/oauth/authenticate` (no question for someone who granted the app already) proves who the
 * person is; the page then lists their bots of that app, and its form revokes the token at the
 * service (`POST /1.1/oauth/invalidate_token`), stops and removes the bots and deletes the
 * stored token. The bots' own state (ledger, cursors) is kept, as for every removed bot: it
 * holds no secret, and should the account connect again, the ledger still keeps it from
 * answering a post twice.
 *
 * Nothing is stored for a person who cancels (`denied`), for a callback whose `oauth_token` is
 * unknown, replayed or expired (flows last as long as the service's request tokens, 15
 * minutes), or for a flow another process started when the flows are kept in memory
 * (../store/pending-flows.ts says where they live). A token obtained for nothing (the template
 * cannot serve the account, or the sign-in found no bot) is revoked again at once, unless a
 * bot already runs with it.
 */
import { createHash, randomBytes } from "node:crypto";
import { accessToken, authorizeUrl, invalidateToken, requestToken, type AccessToken } from "../api/auth/oauth1-flow.ts";
import { ApiError, NetworkError, OAuthError } from "../api/errors.ts";
import type { Clock } from "../clock.ts";
import type { BotConfig, BotFileProblem } from "../config/index.ts";
import { formatProblem } from "../config/index.ts";
import {
  ACCOUNT_PLACEHOLDER,
  renderChecked,
  SAMPLE_USERNAME,
  usernameInName,
  type BotTextCheck,
  type ReadTemplates,
  type Template,
} from "../config/template.ts";
import { getAccount, removeAccount, saveAccount, ACCOUNTS_NAMESPACE } from "../credentials/accounts.ts";
import { FleetError } from "../hosting/fleet-error.ts";
import type { AppCredentials } from "../hosting/types.ts";
import type { Logger } from "../log.ts";
import { connectOrigin, templateOf, type DynamicBots } from "../store/dynamic-bots.ts";
import type { PendingFlows } from "../store/pending-flows.ts";
import type { Store } from "../store/store.ts";
import { connectedPage, disconnectPage, indexPage, messagePage, type TemplateEntry } from "./pages.ts";

/** How long a flow may take from the redirect to the callback: as long as the service's request tokens live. */
export const FLOW_MS = 15 * 60_000;

/** How long the disconnect form stays usable after signing in. */
export const DISCONNECT_FORM_MS = 10 * 60_000;

/** The cookie that ties the disconnect form to the browser that signed in. */
export const FORM_COOKIE = "postbot_connect";

export { connectOrigin, templateOf } from "../store/dynamic-bots.ts";

/** A flow waiting for its callback, or a signed-in person's disconnect form. */
export type PendingConnect =
  | { kind: "connect" | "sign-in"; template: string; secret: string }
  | { kind: "disconnect"; template: string; userId: string; username: string; bots: string[]; cookie: string };

/** What the fleet does for the connect pages (the running process's live fleet). */
export interface ConnectFleet {
  /** Adds a bot kept in the state; its problems when its text does not validate. */
  add(
    text: string,
    who: { by: string; origin: string; label: string },
  ): Promise<{ ok: true } | { ok: false; problems: BotFileProblem[] }>;
  /** Restarts a bot kept in the state with a new text (here: the same text, a new token). */
  replace(
    name: string,
    text: string,
    who: { by: string; label: string },
  ): Promise<{ ok: true } | { ok: false; problems: BotFileProblem[] }>;
  /** Stops and removes a bot kept in the state (its own state is kept). */
  remove(name: string, who: { by: string }): Promise<void>;
}

export interface ConnectOptions {
  /** Where browsers reach this server (`https://bots.example.com`): the callback is `<publicUrl>/connect/callback`. */
  publicUrl: string;
  /** The service's base URL. */
  baseUrl: string;
  /** The templates as they are now (read at each use: an edited template serves the next connection). */
  templates(): ReadTemplates;
  /** Checks a bot file's text exactly as `bot validate` does; its bot, or its problems. */
  check: BotTextCheck;
  /** The app a bot of this configuration runs on. */
  appOf(config: BotConfig): Promise<AppCredentials>;
  fleet: ConnectFleet;
  /** The bots kept in the state, to find an account's bots whichever process made them. */
  dynamic: DynamicBots;
  /** Where accounts' tokens are kept (the credential store). */
  store: Store;
  flows: PendingFlows<PendingConnect>;
  clock: Clock;
  logger: Logger;
}

/** What a connect page answers: a page, or a redirect. */
export interface ConnectReply {
  status: number;
  /** An HTML page (or what `type` says); absent for a redirect. */
  html?: string;
  /** The body's type, when not HTML. */
  type?: string;
  location?: string;
  /** A `Set-Cookie` value. */
  cookie?: string;
}

const html = (status: number, body: string, cookie?: string): ConnectReply => ({
  status,
  html: body,
  ...(cookie ? { cookie } : {}),
});
const startOver = { href: "/connect", text: "Start again" };

/** A template ready to serve: its sample bot (its app and plan) or its problems. */
type Ready = { template: Template; sample: BotConfig } | { reply: ConnectReply };

/** The connect pages' steps; see the module comment. */
export class Connect {
  private readonly callback: string;

  constructor(private readonly options: ConnectOptions) {
    this.callback = `${options.publicUrl}/connect/callback`;
  }

  /** The callback URL the app's settings must list. */
  get callbackUrl(): string {
    return this.callback;
  }

  /** The address of a template's connect page. */
  connectUrl(template: string): string {
    return `${this.options.publicUrl}/connect/${encodeURIComponent(template)}`;
  }

  /** Whether there is a template to connect with. */
  hasTemplates(): boolean {
    return this.options.templates().templates.length > 0;
  }

  /** Every template checked, as `bot start` checks them before serving: the problems of those that do not validate. */
  async problems(): Promise<BotFileProblem[]> {
    const { templates, problems } = this.options.templates();
    const all = [...problems];
    for (const template of templates) {
      const checked = await this.sample(template);
      if ("problems" in checked) all.push(...checked.problems);
    }
    return all;
  }

  /** A template rendered for `username` and checked as a bot file; problems point into the template. */
  private render(template: Template, username: string) {
    return renderChecked(template, username, this.options.check);
  }

  private async sample(template: Template) {
    const checked = await this.render(template, SAMPLE_USERNAME);
    return "problems" in checked ? checked : { sample: checked.bot };
  }

  /** `GET /connect`: the templates. */
  async index(): Promise<ConnectReply> {
    const { templates } = this.options.templates();
    const entries: TemplateEntry[] = [];
    for (const template of templates) {
      const checked = await this.sample(template);
      entries.push({
        name: template.name,
        botName:
          "sample" in checked
            ? checked.sample.name.replace(usernameInName(SAMPLE_USERNAME), ACCOUNT_PLACEHOLDER)
            : template.name,
        plan: "sample" in checked ? checked.sample.plan : "?",
        ...("problems" in checked ? { broken: true } : {}),
      });
    }
    return html(200, indexPage(entries));
  }

  /** The template named in a path, checked; or the page saying why it cannot serve. */
  private async ready(name: string): Promise<Ready> {
    const { templates } = this.options.templates();
    const template = templates.find((t) => t.name === name);
    if (!template)
      return {
        reply: html(
          404,
          messagePage(
            "No such template",
            `There is no template "${name}" here${templates.length ? `; the templates are ${templates.map((t) => t.name).join(", ")}` : ""}.`,
            { error: true, links: [{ href: "/connect", text: "See the templates" }] },
          ),
        ),
      };
    const checked = await this.sample(template);
    if ("problems" in checked) {
      this.logProblems(template, checked.problems, "cannot serve anyone");
      return { reply: this.brokenTemplate(template) };
    }
    return { template, sample: checked.sample };
  }

  private brokenTemplate(template: Template): ConnectReply {
    return html(
      500,
      messagePage(
        "This template cannot be used now",
        `The template "${template.name}" has problems, so no account can connect with it now; nothing was stored. The operator sees them in postbot's log.`,
        { error: true, links: [{ href: "/connect", text: "See the templates" }] },
      ),
    );
  }

  private logProblems(template: Template, problems: readonly BotFileProblem[], what: string): void {
    const { logger } = this.options;
    for (const problem of problems) logger.error({ template: template.name, problem: true }, formatProblem(problem));
    logger.error(
      { template: template.name, problems: problems.length },
      `template ${template.name} ${what}: fix ${template.file} (bot validate checks it)`,
    );
  }

  /** `GET /connect/NAME` (`sign-in`: `GET /connect/NAME/disconnect`): off to the service's page. */
  async start(name: string, kind: "connect" | "sign-in"): Promise<ConnectReply> {
    const ready = await this.ready(name);
    if ("reply" in ready) return ready.reply;
    const { baseUrl, clock, logger } = this.options;
    const app = await this.options.appOf(ready.sample);
    let token: { token: string; secret: string };
    try {
      token = await requestToken(baseUrl, {
        consumer: { key: app.key, secret: app.secret },
        callback: this.callback,
        clock,
      });
    } catch (err) {
      return this.serviceTrouble(err, "start the sign-in");
    }
    await this.options.flows.put(token.token, { kind, template: name, secret: token.secret }, clock.now() + FLOW_MS);
    logger.debug(
      { template: name, kind },
      `connect: a browser is sent to the service to ${kind === "connect" ? "connect an account" : "sign in"} (${name})`,
    );
    return { status: 302, location: authorizeUrl(baseUrl, token.token, { authenticate: kind === "sign-in" }) };
  }

  /** What the service's refusal or absence means for the person, and for the operator's log. */
  private serviceTrouble(err: unknown, what: string): ConnectReply {
    const { logger } = this.options;
    if (err instanceof OAuthError && err.status === 403 && err.code === 415) {
      logger.error(
        { callback: this.callback },
        `connect: the service refused the callback URL ${this.callback}: add it to the app's callback URLs in its settings (the developer portal), or give --public-url the address browsers reach this server at`,
      );
      return html(
        502,
        messagePage(
          "The service refused this site",
          "The service does not accept this site's address for signing in (the app's settings do not list it). Nothing was stored; the operator sees what to change in postbot's log.",
          { error: true },
        ),
      );
    }
    const message = (err as Error)?.message ?? String(err);
    logger.error({ err: message }, `connect: could not ${what}: ${message}`);
    return html(
      502,
      messagePage(
        "The service did not answer",
        `Could not ${what} with the service${err instanceof NetworkError ? " (it cannot be reached)" : ""}. Nothing was stored; try again in a moment.`,
        { error: true, links: [startOver] },
      ),
    );
  }

  /** `GET /connect/callback`: where the service sends the browser back. */
  async callbackPage(query: URLSearchParams): Promise<ConnectReply> {
    const denied = query.get("denied");
    if (denied !== null) {
      const flow = await this.options.flows.take(denied);
      const again = flow ? [{ href: `/connect/${encodeURIComponent(flow.template)}`, text: "Connect after all" }] : [];
      return html(
        200,
        messagePage(
          "Nothing was connected",
          "You cancelled on the service's page, so this postbot got no access to your account and nothing was stored.",
          { links: again.length ? again : [startOver] },
        ),
      );
    }
    const token = query.get("oauth_token");
    const verifier = query.get("oauth_verifier");
    if (!token || !verifier)
      return html(
        400,
        messagePage(
          "Nothing to finish here",
          "This address is where the service sends you back after you sign in (it needs oauth_token and oauth_verifier). Nothing was stored.",
          { error: true, links: [startOver] },
        ),
      );
    const flow = await this.options.flows.take(token);
    if (!flow || flow.kind === "disconnect")
      return html(
        400,
        messagePage(
          "This sign-in is unknown or over",
          `This sign-in was not started here, was finished already, or is older than ${FLOW_MS / 60_000} minutes. Nothing was stored.`,
          { error: true, links: [startOver] },
        ),
      );
    const ready = await this.ready(flow.template);
    if ("reply" in ready) return ready.reply;
    const app = await this.options.appOf(ready.sample);
    let granted: AccessToken;
    try {
      granted = await accessToken(this.options.baseUrl, {
        consumer: { key: app.key, secret: app.secret },
        requestToken: { token, secret: flow.secret },
        verifier,
        clock: this.options.clock,
      });
    } catch (err) {
      if (err instanceof ApiError && err.status === 401)
        return html(
          400,
          messagePage(
            "The service refused this sign-in",
            "The service did not accept this sign-in (it may have expired, or been used already). Nothing was stored.",
            { error: true, links: [startOver] },
          ),
        );
      return this.serviceTrouble(err, "finish the sign-in");
    }
    return flow.kind === "connect"
      ? await this.connected(ready.template, app, granted)
      : await this.signedIn(ready.template, app, granted);
  }

  /** The account's bots made from templates and running with a token of `app`. */
  private async botsOf(userId: string, app: AppCredentials): Promise<Array<{ name: string; token: string }>> {
    const { store } = this.options;
    const out: Array<{ name: string; token: string }> = [];
    for (const record of await this.options.dynamic.list()) {
      if (!templateOf(record.origin)) continue;
      await store.reread?.(ACCOUNTS_NAMESPACE, record.name);
      const account = getAccount(store, record.name);
      if (account?.user_id === userId && account.oauth1?.consumer_key === app.key)
        out.push({ name: record.name, token: account.oauth1.token });
    }
    return out;
  }

  /** Revokes a token obtained for nothing, unless a bot runs with it; never fails the page. */
  private async release(app: AppCredentials, granted: AccessToken): Promise<void> {
    const held = await this.botsOf(granted.userId, app);
    if (held.some((b) => b.token === granted.token)) return;
    await invalidateToken(this.options.baseUrl, {
      consumer: { key: app.key, secret: app.secret },
      token: { token: granted.token, secret: granted.secret },
      clock: this.options.clock,
    }).catch((err: unknown) =>
      this.options.logger.warn(
        { err: (err as Error)?.message },
        `connect: could not revoke the token given for @${granted.screenName}, which nothing uses: ${(err as Error)?.message}`,
      ),
    );
  }

  /** The callback of a connect: store the token, start (or restart) the bot, say so. */
  private async connected(template: Template, app: AppCredentials, granted: AccessToken): Promise<ConnectReply> {
    const { store, logger, fleet } = this.options;
    const username = granted.screenName;
    const made = await this.render(template, username);
    if ("problems" in made) {
      this.logProblems(template, made.problems, `cannot serve @${username}`);
      await this.release(app, granted);
      return this.brokenTemplate(template);
    }
    const name = made.bot.name;
    const refuse = async (message: string) => {
      logger.warn({ template: template.name, bot: name }, `connect: @${username} was not connected: ${message}`);
      await this.release(app, granted);
      return html(
        409,
        messagePage("Not connected", `${message} Nothing was stored; the operator can help.`, { error: true }),
      );
    };
    const existing = await this.options.dynamic.get(name);
    await store.reread?.(ACCOUNTS_NAMESPACE, name);
    const previous = getAccount(store, name);
    const again = !!existing && templateOf(existing.origin) === template.name;
    if (existing && !again)
      return await refuse(
        `A bot named ${name} exists already here, and was not made by connecting with ${template.name}.`,
      );
    if (again && previous && previous.user_id !== granted.userId)
      return await refuse(`The bot ${name} serves another account.`);
    if (!existing && previous && !again)
      return await refuse(`An account named ${name} is stored here already (bot auth login).`);

    saveAccount(store, {
      name,
      base_url: this.options.baseUrl,
      user_id: granted.userId,
      username,
      oauth1: { token: granted.token, secret: granted.secret, consumer_key: app.key },
      updated_at: new Date(this.options.clock.now()).toISOString(),
    });
    await store.flush();
    const who = { by: `@${username}`, label: `${template.file} for @${username}` };
    let outcome: { ok: true } | { ok: false; problems: BotFileProblem[] };
    try {
      outcome = again
        ? await fleet.replace(name, made.text, who)
        : await fleet.add(made.text, { ...who, origin: connectOrigin(template.name) });
    } catch (err) {
      outcome = { ok: false, problems: [{ file: template.file, message: (err as Error)?.message ?? String(err) }] };
      if (err instanceof FleetError && err.kind === "stopping") {
        if (!again) await this.forget(name);
        return html(
          503,
          messagePage("Not connected", "This postbot is stopping; nothing was stored. Try again in a moment.", {
            error: true,
          }),
        );
      }
    }
    if (!outcome.ok) {
      if (!again) await this.forget(name);
      this.logProblems(template, outcome.problems, `could not start a bot for @${username}`);
      if (!again) await this.release(app, granted);
      return this.brokenTemplate(template);
    }
    logger.info(
      { template: template.name, bot: name, account: `@${username}` },
      `connect: @${username} ${again ? "connected again" : "connected"} through ${template.name}: bot ${name} ${again ? "restarted with the new token" : "started"}`,
    );
    return html(
      200,
      connectedPage({
        username,
        bot: name,
        template: template.name,
        again,
        disconnectUrl: `${this.connectUrl(template.name)}/disconnect`,
      }),
    );
  }

  /** Deletes a stored token this flow saved for a bot that did not start. */
  private async forget(name: string): Promise<void> {
    removeAccount(this.options.store, name);
    await this.options.store.flush();
  }

  /** The callback of a sign-in to disconnect: the bots that would stop, and the form. */
  private async signedIn(template: Template, app: AppCredentials, granted: AccessToken): Promise<ConnectReply> {
    const bots = await this.botsOf(granted.userId, app);
    await this.release(app, granted);
    const username = granted.screenName;
    if (bots.length === 0)
      return html(
        200,
        messagePage(
          `@${username} has no bot here`,
          `No bot of this postbot runs as @${username}, so there is nothing to disconnect. Nothing was stored.`,
          { links: [{ href: `/connect/${encodeURIComponent(template.name)}`, text: "Connect it" }] },
        ),
      );
    const session = randomBytes(24).toString("base64url");
    const cookie = randomBytes(24).toString("base64url");
    await this.options.flows.put(
      session,
      {
        kind: "disconnect",
        template: template.name,
        userId: granted.userId,
        username,
        bots: bots.map((b) => b.name),
        cookie: digest(cookie),
      },
      this.options.clock.now() + DISCONNECT_FORM_MS,
    );
    const secure = this.options.publicUrl.startsWith("https:") ? "; Secure" : "";
    return html(
      200,
      disconnectPage({ username, bots: bots.map((b) => b.name), session }),
      `${FORM_COOKIE}=${cookie}; Path=/connect; HttpOnly; SameSite=Strict; Max-Age=${DISCONNECT_FORM_MS / 1000}${secure}`,
    );
  }

  /** `POST /connect/disconnect`: revoke the token at the service, stop and remove the bots, delete the token. */
  async disconnect(form: URLSearchParams, cookies: ReadonlyMap<string, string>): Promise<ConnectReply> {
    const pending = await this.disconnectForm(form, cookies);
    if ("reply" in pending) return pending.reply;
    const ready = await this.ready(pending.template);
    if ("reply" in ready) return ready.reply;
    const refused = await this.revokeAccess(pending, await this.options.appOf(ready.sample));
    if (refused) return refused;
    await this.removeBots(pending);
    return html(
      200,
      messagePage(
        `@${pending.username} is disconnected`,
        `This postbot's access to @${pending.username} was revoked at the service, and ${pending.bots.join(", ")} ${pending.bots.length === 1 ? "was" : "were"} stopped and removed; its token is deleted.`,
        { links: [{ href: `/connect/${encodeURIComponent(pending.template)}`, text: "Connect again" }] },
      ),
    );
  }

  /**
   * The disconnect form this post answers, taken once: a page saying why not when it is over,
   * used already, or sent from another browser than the one it was opened in.
   */
  private async disconnectForm(
    form: URLSearchParams,
    cookies: ReadonlyMap<string, string>,
  ): Promise<PendingDisconnect | { reply: ConnectReply }> {
    const session = form.get("session");
    const pending = session ? await this.options.flows.take(session) : undefined;
    if (!pending || pending.kind !== "disconnect")
      return {
        reply: html(
          400,
          messagePage(
            "This form is over",
            `This form was used already or is older than ${DISCONNECT_FORM_MS / 60_000} minutes; nothing was changed. Sign in again to disconnect.`,
            { error: true, links: [startOver] },
          ),
        ),
      };
    const cookie = cookies.get(FORM_COOKIE);
    if (!cookie || digest(cookie) !== pending.cookie)
      return {
        reply: html(
          403,
          messagePage(
            "Not from this browser",
            "This form was not opened in this browser; nothing was changed. Sign in again to disconnect.",
            { error: true, links: [signInAgain(pending)] },
          ),
        ),
      };
    return pending;
  }

  /**
   * Revokes, at the service, each token of the person's bots made with this app (each token
   * once); a page saying nothing was changed when the service would not (a token revoked
   * already counts as done).
   */
  private async revokeAccess(pending: PendingDisconnect, app: AppCredentials): Promise<ConnectReply | undefined> {
    const { store, logger, clock, baseUrl } = this.options;
    const revoked = new Set<string>();
    for (const name of pending.bots) {
      await store.reread?.(ACCOUNTS_NAMESPACE, name);
      const account = getAccount(store, name);
      const oauth1 = account?.user_id === pending.userId ? account.oauth1 : undefined;
      if (!oauth1 || oauth1.consumer_key !== app.key || revoked.has(oauth1.token)) continue;
      try {
        await invalidateToken(baseUrl, {
          consumer: { key: app.key, secret: app.secret },
          token: { token: oauth1.token, secret: oauth1.secret },
          clock,
        });
      } catch (err) {
        // Revoked already (401/89, 32): what disconnecting wants. Anything else: change nothing.
        if (!(err instanceof OAuthError && err.status === 401)) {
          logger.error(
            { err: (err as Error)?.message, bot: name },
            `connect: could not revoke the access of ${name} at the service: ${(err as Error)?.message}; nothing was changed`,
          );
          return html(
            502,
            messagePage(
              "Not disconnected",
              "The service could not revoke the access just now, so nothing was changed. Sign in again to try once more.",
              { error: true, links: [signInAgain(pending)] },
            ),
          );
        }
      }
      revoked.add(oauth1.token);
    }
    return undefined;
  }

  /** Stops and removes the person's bots and deletes their tokens from the state. */
  private async removeBots(pending: PendingDisconnect): Promise<void> {
    const { store, logger } = this.options;
    const by = `@${pending.username}`;
    for (const name of pending.bots) {
      try {
        await this.options.fleet.remove(name, { by });
      } catch (err) {
        if (!(err instanceof FleetError && err.kind === "not-found")) throw err;
      }
      const account = getAccount(store, name);
      if (account?.user_id === pending.userId) removeAccount(store, name);
    }
    await store.flush();
    logger.info(
      { account: by, bots: pending.bots },
      `connect: ${by} disconnected: access revoked at the service, ${pending.bots.join(", ")} stopped and removed, the token deleted`,
    );
  }
}

/** A signed-in person's disconnect form, as kept between the form and its post. */
type PendingDisconnect = Extract<PendingConnect, { kind: "disconnect" }>;

/** The link back to a template's disconnect sign-in, for a disconnect that did not go through. */
const signInAgain = (pending: PendingDisconnect) => ({
  href: `/connect/${encodeURIComponent(pending.template)}/disconnect`,
  text: "Sign in again",
});

const digest = (value: string) => createHash("sha256").update(value).digest("base64url");
