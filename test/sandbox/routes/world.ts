/**
 * A small world for the endpoint tests: one sandbox (frozen clock), one pro app, and
 * helpers to make accounts of that app, posts by the admin API, and signed requests.
 */
import { afterAll, beforeAll } from "vitest";
import {
  startSandbox,
  type Account,
  type RequestOptions,
  type TestResponse,
  type TestSandbox,
} from "../../helpers/sandbox.ts";
import type { AppView } from "../../../src/sandbox/index.ts";

export interface World {
  t: TestSandbox;
  app: AppView;
  /** A user of the world's app with an OAuth 1.0a token. */
  user(username: string): Promise<Account>;
  /** A post made through the admin API (outside every budget). */
  post(
    author: { user: { id: string } },
    text: string,
    extra?: Record<string, unknown>,
  ): Promise<{ id: string; [k: string]: unknown }>;
  /** A signed GET. */
  get(as: Account, path: string, query?: Record<string, string>): Promise<TestResponse>;
  /** Any signed request. */
  call(as: Account, method: string, path: string, opts?: RequestOptions): Promise<TestResponse>;
  /** Admin HTTP call. */
  admin(method: string, path: string, body?: unknown): Promise<TestResponse>;
}

/** The ids of a list response's `data`, in order (none when it has no `data`). */
export const ids = (res: { body: { data?: Array<{ id: string }> } }): string[] =>
  (res.body.data ?? []).map((x) => x.id);

/** Registers the world's lifecycle on the current test file and returns it. */
export function useWorld(opts: { plan?: "pro" | "basic" | "free"; academic?: boolean } = {}): World {
  const w = {} as World;
  beforeAll(async () => {
    const t = await startSandbox();
    const app = await t.admin.createApp({
      plan: opts.plan ?? "pro",
      academic: opts.academic ?? false,
      callback_urls: ["https://example.com/cb"],
    });
    Object.assign(w, {
      t,
      app,
      user: (username: string) => t.account({ username, app }),
      post: (author: { user: { id: string } }, text: string, extra: Record<string, unknown> = {}) =>
        t.admin.createPost({ author_id: author.user.id, text, ...extra }),
      get: (as: Account, path: string, query?: Record<string, string>) =>
        t.signed(as, "GET", path, query ? { query } : {}),
      call: (as: Account, method: string, path: string, o: RequestOptions = {}) => t.signed(as, method, path, o),
      admin: (method: string, path: string, body?: unknown) => t.adminCall(method, path, body),
    } satisfies World);
  });
  afterAll(async () => {
    await w.t?.close();
  });
  return w;
}
