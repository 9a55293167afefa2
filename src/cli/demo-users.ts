/**
 * Acting as a person in the running demo (`bot say --as alice`, `bot follow --as alice`):
 * through the service's own API, signed as that user, exactly as the simulated crowd and a
 * real person would, so the bots see the post or the follow at their next poll.
 *
 * The user (created on first use, or found when it exists already), an app to act through,
 * and the user's token are made with the sandbox's admin API and kept in
 * `DATA/demo-users.json` (mode 0600, tokens inside), so a second `bot say` spends nothing.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { fetchBearerToken } from "../api/auth/bearer.ts";
import { createClient, type ApiClient } from "../api/client.ts";
import { OAuthError } from "../api/errors.ts";
import { createClock, systemClock, type Clock } from "../clock.ts";
import { UserError } from "../errors.ts";
import { writeFileAtomic } from "../store/atomic-file.ts";
import type { DemoAccess } from "./demo-access.ts";

const USERS_FILE = "demo-users.json";

interface Saved {
  app?: { consumer_key: string; consumer_secret: string; bearer?: string };
  users: Record<string, { id: string; token: string; token_secret: string }>;
}

/** The users `bot say` acts as, in one demo. */
export interface DemoUsers {
  /** A client signed as `username` (created in the sandbox when it does not exist), and its id. */
  as(username: string): Promise<{ id: string; client: ApiClient }>;
  /** The id of any account of the demo (a bot, a crowd user), or a UserError naming it. */
  idOf(username: string): Promise<string>;
  close(): Promise<void>;
}

/**
 * Calls the demo sandbox's admin API (`POST` with a body, `GET` without); a sandbox that does
 * not answer, or refuses the token, becomes a message saying what to do.
 */
export async function admin<T>(
  access: Pick<DemoAccess, "url" | "admin_token">,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: T }> {
  let res: Response;
  try {
    res = await fetch(`${access.url}${path}`, {
      method: body === undefined ? "GET" : "POST",
      headers: {
        authorization: `Bearer ${access.admin_token}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  } catch {
    throw new UserError(`the demo's sandbox at ${access.url} does not answer: is the demo (npm start) still running?`);
  }
  const answer = (await res.json().catch(() => ({}))) as T;
  if (res.status === 401)
    throw new UserError(
      "the demo's sandbox refused the admin token in demo.json: restart the demo (npm start) to write it again",
    );
  return { status: res.status, body: answer };
}

/**
 * The demo's own time, from its sandbox (`GET /_sandbox/clock`), running on from there: a
 * test or a person may have moved the demo's clock on, and `bot say` reads the demo's state
 * (a reply cooldown's end), says until when it waits and signs its requests in the demo's time.
 */
export async function demoClock(access: Pick<DemoAccess, "url" | "admin_token">): Promise<Clock> {
  const found = await admin<{ now_ms?: unknown }>(access, "/_sandbox/clock");
  return typeof found.body.now_ms === "number" ? createClock({ start: found.body.now_ms }) : systemClock;
}

/** What a problem says: its first error's message (a 400's "is taken"), else its detail or title. */
const detailOf = (body: unknown) =>
  String(
    (body as { errors?: Array<{ message?: unknown }> })?.errors?.[0]?.message ??
      (body as { detail?: unknown; title?: unknown })?.detail ??
      (body as { title?: unknown })?.title ??
      JSON.stringify(body),
  );

export async function demoUsers(dataDir: string, access: DemoAccess, clock: Clock): Promise<DemoUsers> {
  const file = join(dataDir, USERS_FILE);
  let saved: Saved = { users: {} };
  try {
    saved = JSON.parse(await readFile(file, "utf8")) as Saved;
  } catch {
    // none yet
  }
  const base = createClient({ baseUrl: access.url, clock });
  const save = () => writeFileAtomic(file, JSON.stringify(saved));

  const app = async () => {
    if (!saved.app) {
      const made = await admin<{ consumer_key: string; consumer_secret: string }>(access, "/_sandbox/apps", {
        name: "bot say",
        plan: "pro",
      });
      if (made.status >= 300)
        throw new UserError(`the demo's sandbox would not make an app for bot say: ${detailOf(made.body)}`);
      saved.app = { consumer_key: made.body.consumer_key, consumer_secret: made.body.consumer_secret };
      await save();
    }
    return saved.app;
  };
  const consumer = async () => {
    const a = await app();
    return { key: a.consumer_key, secret: a.consumer_secret };
  };

  const idOf = async (username: string): Promise<string> => {
    const known = saved.users[username.toLowerCase()];
    if (known) return known.id;
    const a = await app();
    if (!a.bearer) {
      a.bearer = await fetchBearerToken(access.url, await consumer());
      await save();
    }
    const found = await base.withAuth({ consumer: await consumer(), bearer: a.bearer }).users.byUsername(username);
    if (!found.data) throw new UserError(`the demo has no account @${username}`);
    return found.data.id;
  };

  return {
    idOf,
    async as(username) {
      const key = username.toLowerCase();
      let user = saved.users[key];
      if (!user) {
        const made = await admin<{ id?: string; detail?: string }>(access, "/_sandbox/users", { username });
        let id = made.body.id;
        if (made.status >= 300) {
          if (!/is taken/.test(detailOf(made.body))) throw new UserError(`--as ${username}: ${detailOf(made.body)}`);
          id = await idOf(username);
        }
        const { consumer_key } = await app();
        const token = await admin<{ token: string; token_secret: string }>(access, "/_sandbox/tokens", {
          consumer_key,
          user_id: id,
        });
        if (token.status >= 300) throw new UserError(`--as ${username}: ${detailOf(token.body)}`);
        user = { id: id!, token: token.body.token, token_secret: token.body.token_secret };
        saved.users[key] = user;
        await save();
      }
      return {
        id: user.id,
        client: base.withAuth({
          consumer: await consumer(),
          user: { token: user.token, secret: user.token_secret },
          label: username,
        }),
      };
    },
    close: () => base.close(),
  };
}

/**
 * Runs `fn` with the demo's users; when the sandbox no longer knows the saved app or tokens
 * (its state was reset), forgets them and tries once more.
 */
export async function withDemoUsers<T>(
  dataDir: string,
  access: DemoAccess,
  clock: Clock,
  fn: (users: DemoUsers) => Promise<T>,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const users = await demoUsers(dataDir, access, clock);
    try {
      return await fn(users);
    } catch (err) {
      if (!(err instanceof OAuthError && err.status === 401) || attempt > 1) throw err;
      await writeFileAtomic(join(dataDir, USERS_FILE), JSON.stringify({ users: {} }));
    } finally {
      await users.close();
    }
  }
}
