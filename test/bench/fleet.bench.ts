/**
 * A live fleet (issue 23, "Figures"): a real `bot start --http` hosting 10,000 bots from bot
 * files (`BENCH_BOTS`), against a `bot sandbox` in its own process (real clock), while its
 * fleet changes:
 *
 * - a bot file added to the running process → its first mention answered (the mention is
 *   made right after the file is written, before the bot runs: its first answer comes from the
 *   search a bot new to the stream makes), five times;
 * - the other bots' mention → reply p99 while 100 bots are added, changed and removed (100
 *   mentions a second to the 10,000 for `BENCH_FLEET_FLOOD_SECONDS`, default 30; the changes
 *   spread over the same time), with the mentions lost and answered twice, and how many of
 *   the changes were applied by the flood's end (the rules they change spend the app's window
 *   of 100 rule changes per 15 minutes);
 * - the connect flow: the callback received → the new bot answers its first mention (made
 *   before the callback), three accounts signing in on the sandbox's page as a browser would
 *   (before the flood: each figure on a fleet whose app's windows the others did not spend).
 *
 * The bots answer through test/bench/fleet-plugins/record.ts, which appends each answered
 * mention to a file this bench reads: when the mention was made and when its reply went out.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdir, mkdtemp, open, rm, unlink, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { saveAccount } from "../../src/credentials/accounts.ts";
import { openFileStore } from "../../src/store/file-store.ts";
import { readForm } from "../helpers/html.ts";
import { startChild, type Bench, type BenchRow } from "./harness.ts";

const BOT = new URL("../../bin/bot.js", import.meta.url).pathname;
const PLUGINS = new URL("./fleet-plugins", import.meta.url).pathname;
const BOTS = Number(process.env.BENCH_BOTS ?? 10_000);
const FLOOD_SECONDS = Number(process.env.BENCH_FLEET_FLOOD_SECONDS ?? 30);
const RATE = 100;
/** Bots added, changed and removed during the flood. */
const CHURN = 100;
/** Files added one at a time, each timed to its first answer (before the flood). */
const ADDED = 5;
const CONNECTS = 3;

const say = (what: string) => process.stderr.write(`  fleet: ${what}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const verdict = (value: number, aim: number) => (Number.isNaN(value) || value > aim ? "missed" : "met");
const quantile = (xs: number[], q: number) => {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
};

/** A bot file of the bench; `variant` changes its configuration (a different reply_cooldown). */
const botFile = (name: string, variant = 0) =>
  `name: ${name}\nplan: pro\ntriggers:\n  mentions: {}\nplugins:\n  record: {}\n${variant ? `reply_cooldown: ${variant}m\n` : ""}`;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

interface Answer {
  bot: string;
  post: string;
  made: number;
  at: number;
  status: string;
}

/** The record plugin's file, read as it grows. */
class Answers {
  readonly all: Answer[] = [];
  private offset = 0;
  private rest = "";
  constructor(private readonly file: string) {}

  async read(): Promise<void> {
    const fh = await open(this.file, "r").catch(() => undefined);
    if (!fh) return;
    try {
      const { size } = await fh.stat();
      if (size <= this.offset) return;
      const buf = Buffer.alloc(size - this.offset);
      await fh.read(buf, 0, buf.length, this.offset);
      this.offset = size;
      const lines = (this.rest + buf.toString("utf8")).split("\n");
      this.rest = lines.pop()!;
      for (const line of lines) if (line) this.all.push(JSON.parse(line) as Answer);
    } finally {
      await fh.close();
    }
  }

  /** The first answer of `bot` (waits up to `timeoutMs`). */
  async first(bot: string, timeoutMs = 60_000): Promise<Answer | undefined> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      await this.read();
      const found = this.all.find((a) => a.bot === bot);
      if (found || Date.now() > until) return found;
      await sleep(10);
    }
  }
}

const bench: Bench = {
  name: "fleet: bots added, changed and removed while bot start runs; accounts that connect",
  async run() {
    const rows: BenchRow[] = [];
    const adminToken = randomBytes(16).toString("hex");
    const sandbox = await startChild(
      process.execPath,
      [BOT, "sandbox", "--port", "0", "--admin-token", adminToken, "--plan", "pro"],
      /listening on (http:\/\/[\d.:]+)/,
      { POSTBOT_LOG_LEVEL: "warn" },
    );
    const url = sandbox.match[1]!;
    const dir = await mkdtemp(join(tmpdir(), "postbot-fleet-bench-"));
    let fleet: ChildProcess | undefined;
    try {
      const admin = async (path: string, body: unknown) => {
        const res = await fetch(url + path, {
          method: "POST",
          headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
          body: JSON.stringify(body),
        });
        if (!res.ok) throw new Error(`${path} answered ${res.status}: ${await res.text()}`);
        return (await res.json()) as Record<string, string>;
      };
      const port = await freePort();
      const publicUrl = `http://127.0.0.1:${port}`;
      const app = await admin("/_sandbox/apps", {
        name: "postbot-fleet",
        plan: "pro",
        callback_urls: [`${publicUrl}/connect/callback`],
      });
      const names = [
        ...Array.from({ length: BOTS }, (_, i) => `u${String(i).padStart(5, "0")}`),
        ...Array.from({ length: CHURN }, (_, i) => `c${String(i).padStart(3, "0")}`),
      ];
      const users = new Map<string, { id: string; token: string; secret: string }>();
      let made = 0;
      await Promise.all(
        Array.from({ length: 16 }, async () => {
          while (made < names.length) {
            const name = names[made++]!;
            const user = await admin("/_sandbox/users", { username: name });
            const token = await admin("/_sandbox/tokens", { consumer_key: app.consumer_key, user_id: user.id });
            users.set(name, { id: user.id!, token: token.token!, secret: token.token_secret! });
          }
        }),
      );
      const crowd = await admin("/_sandbox/users", { username: "crowd" });
      const connecting = Array.from({ length: CONNECTS }, (_, i) => `visitor${i}`);
      for (const username of connecting) await admin("/_sandbox/users", { username });
      say(`${names.length} accounts provisioned`);

      // The project: a bot file per base bot, their accounts signed in (as bot auth login leaves them), a template.
      const bots = join(dir, "bots");
      const templates = join(dir, "templates");
      const data = join(dir, "data");
      await mkdir(bots);
      await mkdir(templates);
      for (const name of names.slice(0, BOTS)) await writeFile(join(bots, `${name}.yaml`), botFile(name));
      await writeFile(
        join(templates, "visitor.yaml"),
        "name: conn-{account.username}\nplan: pro\ntriggers:\n  mentions: {}\nplugins:\n  record: {}\n",
      );
      const store = await openFileStore(data);
      for (const name of names) {
        const u = users.get(name)!;
        saveAccount(store, {
          name,
          base_url: url,
          user_id: u.id,
          username: name,
          oauth1: { token: u.token, secret: u.secret, consumer_key: app.consumer_key! },
          updated_at: new Date().toISOString(),
        });
      }
      await store.close();

      const record = join(dir, "answers.jsonl");
      const answers = new Answers(record);
      say(`starting bot start with ${BOTS} bots`);
      const startedAt = Date.now();
      const child = spawn(
        process.execPath,
        [
          BOT,
          "start",
          ...["--bots", bots, "--plugins", PLUGINS, "--data", data, "--templates", templates],
          ...["--http", `127.0.0.1:${port}`],
        ],
        {
          env: {
            ...process.env,
            POSTBOT_BASE_URL: url,
            POSTBOT_CONSUMER_KEY: app.consumer_key!,
            POSTBOT_CONSUMER_SECRET: app.consumer_secret!,
            POSTBOT_LOG_LEVEL: "info",
            BENCH_FLEET_RECORD: record,
          },
          stdio: ["ignore", "pipe", "inherit"],
        },
      );
      fleet = child;
      // The log's last lines, and how many changes of the churn bots it told.
      let log = "";
      let rest = "";
      let churnChanges = 0;
      child.stdout!.on("data", (d: Buffer) => {
        const lines = (rest + d.toString()).split("\n");
        rest = lines.pop()!;
        for (const line of lines) if (/"msg":"bot c\d{3} (started|restarted|stopped)/.test(line)) churnChanges++;
        log += d.toString();
        if (log.length > 1_000_000) log = log.slice(-100_000);
      });
      const logged = async (msg: RegExp, timeoutMs = 300_000) => {
        const until = Date.now() + timeoutMs;
        while (!msg.test(log)) {
          if (child.exitCode !== null) throw new Error(`bot start exited (${child.exitCode}):\n${log.slice(-2000)}`);
          if (Date.now() > until) throw new Error(`bot start did not log ${msg} in time:\n${log.slice(-2000)}`);
          await sleep(20);
        }
      };
      await logged(/"msg":"all bots started/);
      await logged(/"msg":"stream connected"/);
      say(`started in ${Date.now() - startedAt} ms; letting the catch-up polls pass`);
      await sleep(5_000);

      // A bot file added → its first mention answered.
      const added: number[] = [];
      for (const name of names.slice(BOTS, BOTS + ADDED)) {
        const t0 = Date.now();
        await writeFile(join(bots, `${name}.yaml`), botFile(name));
        await admin("/_sandbox/posts", { author_id: crowd.id, text: `@${name} are you there?` });
        const first = await answers.first(name);
        added.push(first ? first.at - t0 : NaN);
        say(`${name}: answered ${first ? `${first.at - t0} ms after its file was written` : "never"}`);
      }
      const addedMax = Math.max(...added);
      rows.push({
        bench: `a bot file added to a running ${BOTS.toLocaleString("en-US")}-bot process → its first mention answered (${ADDED} files, one at a time): p50`,
        value: `${quantile(added, 0.5)} ms`,
        aim: "",
        verdict: "",
      });
      rows.push({ bench: "  max", value: `${addedMax} ms`, aim: "≤ 2,000 ms", verdict: verdict(addedMax, 2_000) });

      // The connect flow, as a browser: the connect page, the service's page approved, the callback.
      const connected: number[] = [];
      for (const username of connecting) {
        // fetch's own message is "fetch failed": say what failed.
        const fetch = (input: string | URL, init?: RequestInit) =>
          globalThis.fetch(input, init).catch((err: Error) => {
            throw new Error(`${String(input)}: ${(err.cause as Error)?.message ?? err.message}`);
          });
        const off = await fetch(`${publicUrl}/connect/visitor`, { redirect: "manual" });
        const servicePage = off.headers.get("location");
        if (off.status !== 302 || !servicePage) throw new Error(`/connect/visitor answered ${off.status}`);
        const form = readForm(await (await fetch(servicePage)).text());
        const approved = await fetch(new URL(form.action, servicePage), {
          method: form.method,
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams({ ...form.fields, username, password: "sandbox", decision: "allow" }),
          redirect: "manual",
        });
        const callback = approved.headers.get("location");
        if (approved.status !== 302 || !callback) throw new Error(`the service's page answered ${approved.status}`);
        await admin("/_sandbox/posts", { author_id: crowd.id, text: `@${username} welcome!` });
        const t = Date.now();
        const page = await fetch(callback);
        if (page.status !== 200) throw new Error(`the callback answered ${page.status}: ${await page.text()}`);
        const first = await answers.first(`conn-${username}`);
        connected.push(first ? first.at - t : NaN);
        say(`@${username}: its bot answered ${first ? `${first.at - t} ms after the callback` : "never"}`);
      }
      const connectMax = Math.max(...connected);
      rows.push({
        bench: `connect flow: callback received → the new bot answers its first mention (${CONNECTS} accounts): p50`,
        value: `${quantile(connected, 0.5)} ms`,
        aim: "",
        verdict: "",
      });
      rows.push({ bench: "  max", value: `${connectMax} ms`, aim: "≤ 2,000 ms", verdict: verdict(connectMax, 2_000) });

      // The flood to the base bots while the churn bots are added, changed and removed.
      const churn = names.slice(BOTS);
      const changes: Array<() => Promise<void>> = [
        ...churn.slice(ADDED).map((n) => () => writeFile(join(bots, `${n}.yaml`), botFile(n))),
        ...churn.map((n) => () => writeFile(join(bots, `${n}.yaml`), botFile(n, 5))),
        ...churn.map((n) => () => unlink(join(bots, `${n}.yaml`))),
      ];
      const total = FLOOD_SECONDS * RATE;
      say(`flooding ${total} mentions over ${FLOOD_SECONDS} s while ${changes.length} file changes happen`);
      const t0 = Date.now();
      const churning = (async () => {
        for (let i = 0; i < changes.length; i++) {
          const due = t0 + (i * FLOOD_SECONDS * 1000) / changes.length;
          if (due > Date.now()) await sleep(due - Date.now());
          await changes[i]!();
        }
      })();
      const posted = new Set<string>();
      for (let i = 0; i < total; i++) {
        const due = t0 + (i * 1000) / RATE;
        if (due > Date.now()) await sleep(due - Date.now());
        const target = names[Math.floor(Math.random() * BOTS)]!;
        posted.add((await admin("/_sandbox/posts", { author_id: crowd.id, text: `@${target} question ${i}` })).id!);
      }
      await churning;
      const answeredOf = () => answers.all.filter((a) => posted.has(a.post));
      for (let waited = 0; waited < 60_000; waited += 500) {
        await answers.read();
        if (new Set(answeredOf().map((a) => a.post)).size >= posted.size) break;
        await sleep(500);
      }
      const flood = answeredOf();
      const latencies = flood.filter((a) => a.status === "sent").map((a) => a.at - a.made);
      const seen = new Map<string, number>();
      for (const a of flood) seen.set(a.post, (seen.get(a.post) ?? 0) + 1);
      const lost = posted.size - seen.size;
      const twice = [...seen.values()].filter((n) => n > 1).length;
      say(
        `flood: ${flood.length} answers, ${lost} lost, ${twice} twice; the churn bots' changes logged: ${churnChanges}`,
      );
      const p99 = quantile(latencies, 0.99);
      rows.push({
        bench: `the other ${BOTS.toLocaleString("en-US")} bots' mention → reply while ${CHURN} bots are added, changed and removed (${RATE}/s for ${FLOOD_SECONDS} s): p50`,
        value: `${quantile(latencies, 0.5)} ms`,
        aim: "",
        verdict: "",
      });
      rows.push({ bench: "  p99", value: `${p99} ms`, aim: "≤ 100 ms", verdict: verdict(p99, 100) });
      rows.push({ bench: "  lost", value: lost, aim: "0", verdict: verdict(lost, 0) });
      rows.push({ bench: "  answered twice", value: twice, aim: "0", verdict: verdict(twice, 0) });
      // Each change of the bots' rules spends the app's rules window (100 requests per 15 min on
      // every plan); past it, the changes wait for the window while the other bots go on.
      rows.push({
        bench: `  changes of the ${CHURN} bots applied by the flood's end (of ${changes.length + ADDED})`,
        value: churnChanges,
        aim: "",
        verdict: "",
      });
    } finally {
      if (fleet && fleet.exitCode === null) {
        const exited = new Promise((resolve) => fleet!.once("exit", resolve));
        fleet.kill("SIGTERM");
        const hard = setTimeout(() => fleet!.kill("SIGKILL"), 15_000);
        await exited;
        clearTimeout(hard);
      }
      await sandbox.stop();
      await rm(dir, { recursive: true, force: true });
    }
    return rows;
  },
};

export default bench;
