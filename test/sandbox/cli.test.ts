import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { botBin } from "../helpers/built.ts";
import { oauthHeader } from "../helpers/sandbox.ts";

const BOT = botBin();
const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill("SIGKILL");
});

interface Running {
  child: ChildProcess;
  url: string;
  output: () => string;
  exited: Promise<number | null>;
}

/** Starts `bot sandbox ...` and waits for its listening line. */
function start(args: string[], env: Record<string, string> = {}): Promise<Running> {
  const child = spawn(process.execPath, [BOT, "sandbox", ...args], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let out = "";
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = /sandbox listening on (http:\/\/127\.0\.0\.1:\d+)\nadmin token: \S+\n/.exec(out);
      if (m) resolve({ child, url: m[1]!, output: () => out, exited });
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", (d: Buffer) => (out += d.toString()));
    void exited.then((code) => reject(new Error(`bot sandbox exited (${code}) before listening:\n${out}`)));
  });
}

const admin = (url: string, token: string, method: string, path: string, body?: unknown) =>
  fetch(url + path, {
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

describe("bot sandbox", () => {
  it("prints the listening line and the admin token, answers, saves on SIGTERM, and a restart continues", async () => {
    const dir = await mkdtemp(join(tmpdir(), "postbot-cli-"));
    const state = join(dir, "sandbox.json");
    const first = await start(["--port", "0", "--state", state], { POSTBOT_SANDBOX_ADMIN_TOKEN: "token-from-env" });
    expect(first.output()).toContain("admin token: token-from-env");

    const created = await admin(first.url, "token-from-env", "POST", "/_sandbox/apps", { name: "kept", plan: "basic" });
    expect(created.status).toBe(201);
    const app = (await created.json()) as { consumer_key: string; consumer_secret: string };
    const user = (await (
      await admin(first.url, "token-from-env", "POST", "/_sandbox/users", { username: "kept_user" })
    ).json()) as { id: string };
    const token = (await (
      await admin(first.url, "token-from-env", "POST", "/_sandbox/tokens", {
        consumer_key: app.consumer_key,
        user_id: user.id,
      })
    ).json()) as {
      token: string;
      token_secret: string;
    };
    const post = (await (
      await admin(first.url, "token-from-env", "POST", "/_sandbox/posts", { author_id: user.id, text: "still here" })
    ).json()) as { id: string };
    const basic = `Basic ${Buffer.from(`${app.consumer_key}:${app.consumer_secret}`).toString("base64")}`;
    const tokenRes = await fetch(`${first.url}/oauth2/token`, {
      method: "POST",
      headers: { authorization: basic, "content-type": "application/x-www-form-urlencoded" },
      body: "grant_type=client_credentials",
    });
    const { access_token } = (await tokenRes.json()) as { access_token: string };
    const counted = await fetch(`${first.url}/2/posts/counts/recent?query=x`, {
      headers: { authorization: `Bearer ${access_token}` },
    });
    expect(counted.headers.get("x-rate-limit-remaining")).toBe("4"); // basic: 5/15m A

    first.child.kill("SIGTERM");
    expect(await first.exited).toBe(0);
    expect(first.output()).toContain(`state saved to ${state}`);
    expect((await stat(state)).mode & 0o777).toBe(0o600);

    const second = await start(["--port", "0", "--state", state, "--admin-token", "another-token"]);
    try {
      expect(second.output()).toContain("admin token: another-token");
      // The app and its bearer token survived, and so did the window.
      const again = await fetch(`${second.url}/2/posts/counts/recent?query=x`, {
        headers: { authorization: `Bearer ${access_token}` },
      });
      expect(again.headers.get("x-rate-limit-remaining")).toBe("3");
      // Users, tokens and posts too: the old token still signs and reads the old post.
      const creds = { ...app, token: token.token, token_secret: token.token_secret };
      const url = `${second.url}/2/posts/${post.id}`;
      const read = await fetch(url, { headers: { authorization: oauthHeader({ now: Date.now }, creds, "GET", url) } });
      expect(read.status).toBe(200);
      expect(((await read.json()) as { data: { text: string } }).data.text).toBe("still here");
      const stats = (await (await admin(second.url, "another-token", "GET", "/_sandbox/stats")).json()) as {
        routes: Record<string, Record<string, number>>;
      };
      expect(stats.routes["POST /oauth2/token"]).toEqual({ "200": 1 });
    } finally {
      second.child.kill("SIGINT");
      expect(await second.exited).toBe(0);
    }
  }, 60_000); // two processes start and stop: on a busy 2-core machine each start takes seconds

  it("generates an admin token when none is given", async () => {
    const run = await start(["--port", "0"], { POSTBOT_SANDBOX_ADMIN_TOKEN: "" });
    const token = /admin token: (\S+)/.exec(run.output())?.[1];
    expect(token).toMatch(/^[\w-]{20,}$/);
    expect((await admin(run.url, token!, "GET", "/_sandbox/stats")).status).toBe(200);
    run.child.kill("SIGTERM");
    expect(await run.exited).toBe(0);
  });

  it("refuses bad flags with a clear message and exit code 2", async () => {
    for (const [args, message] of [
      [["--plan", "gold"], "--plan gold: expected one of pro, basic, free"],
      [["--port", "99999"], "--port 99999: expected a port number"],
      [["--nope"], "unknown option '--nope'"],
    ] as const) {
      const child = spawn(process.execPath, [BOT, "sandbox", ...args], { stdio: ["ignore", "pipe", "pipe"] });
      children.push(child);
      let err = "";
      child.stderr.on("data", (d: Buffer) => (err += d.toString()));
      const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
      expect(code, args.join(" ")).toBe(2);
      expect(err).toContain(message);
      expect(err).not.toMatch(/\n\s+at /);
    }
  });

  it("--help describes every flag", async () => {
    const child = spawn(process.execPath, [BOT, "sandbox", "--help"], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    expect(await new Promise((resolve) => child.on("exit", resolve))).toBe(0);
    for (const flag of ["--port", "--host", "--admin-token", "--plan", "--state"]) expect(out).toContain(flag);
  });
});
