/**
 * Sandbox throughput: signed `GET /2/posts/:id` requests per second on loopback against
 * `bot sandbox` (the whole pipeline: routing, OAuth 1.0a verification, nonce and timestamp
 * checks, limits with their headers, the handler, rendering), next to a bare node:http server
 * answering the same JSON. Aim: a ratio of at least 0.5.
 *
 * Both servers run as child processes and get the same client: the same signed requests,
 * the same concurrency over a keep-alive pool. The sandbox's limits are real (pro: 450
 * requests per 15 minutes per app), so requests go in rounds of 440 with the sandbox clock
 * moved 15 minutes between rounds, outside the measured time. Rounds alternate between the
 * two servers, so a busy machine slows both alike.
 */
import { createHmac, randomBytes } from "node:crypto";
import OAuth from "oauth-1.0a";
import { Pool } from "undici";
import { cpuMs, startChild, type Bench } from "./harness.ts";

const BOT = new URL("../../bin/bot.js", import.meta.url).pathname;
const BARE = new URL("./bare-server.ts", import.meta.url).pathname;
const CONCURRENCY = 16;
const ROUND = 440;
const ROUNDS = 16;
const WARMUP_ROUNDS = 6;

interface Target {
  url: string;
  /** The server's process, for its CPU time. */
  pid?: number;
  /** Runs between rounds (outside the measured time). */
  between(): Promise<void>;
  /** The sandbox clock's offset from real time, for OAuth timestamps. */
  offset: number;
}

async function round(
  pool: Pool,
  target: Target,
  path: string,
  sign: (url: string) => string,
): Promise<{ ms: number; statuses: Map<number, number> }> {
  const statuses = new Map<number, number>();
  let left = ROUND;
  const worker = async () => {
    while (left > 0) {
      left -= 1;
      const res = await pool.request({ method: "GET", path, headers: { authorization: sign(target.url + path) } });
      await res.body.text();
      statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
    }
  };
  const start = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return { ms: performance.now() - start, statuses };
}

interface Measured {
  rps: number;
  statuses: Map<number, number>;
  cpuUsPerRequest?: number;
}

/**
 * Measures both targets in alternating rounds, so that whatever else the machine is doing
 * weighs on both alike and the ratio stays meaningful on a busy machine.
 */
async function measureBoth(targets: Array<{ target: Target; sign: (url: string) => string }>, path: string) {
  const pools = targets.map(({ target }) => new Pool(target.url, { connections: CONCURRENCY, pipelining: 1 }));
  const results = targets.map(() => ({ ms: 0, statuses: new Map<number, number>() }));
  try {
    // Warm-up: the JIT needs a few thousand requests before a server runs at its steady pace.
    for (let r = 0; r < WARMUP_ROUNDS; r++) {
      for (const [i, { target, sign }] of targets.entries()) {
        await round(pools[i]!, target, path, sign);
        await target.between();
      }
    }
    const cpuBefore = targets.map(({ target }) => cpuMs(target.pid));
    for (let r = 0; r < ROUNDS; r++) {
      for (const [i, { target, sign }] of targets.entries()) {
        const res = await round(pools[i]!, target, path, sign);
        results[i]!.ms += res.ms;
        for (const [s, n] of res.statuses) results[i]!.statuses.set(s, (results[i]!.statuses.get(s) ?? 0) + n);
        await target.between();
      }
    }
    const total = ROUND * ROUNDS;
    return results.map((r, i) => {
      const before = cpuBefore[i];
      const after = cpuMs(targets[i]!.target.pid);
      const cpuUsPerRequest =
        before === undefined || after === undefined ? undefined : ((after - before) * 1000) / total;
      return { rps: (total / r.ms) * 1000, statuses: r.statuses, cpuUsPerRequest };
    });
  } finally {
    await Promise.all(pools.map((p) => p.close()));
  }
}

const bench: Bench = {
  name: "sandbox: signed GET /2/posts/:id",
  async run() {
    const adminToken = randomBytes(16).toString("hex");
    // BENCH_PROFILE=DIR writes a CPU profile of the sandbox process there (open it in Chrome DevTools).
    const profile = process.env.BENCH_PROFILE
      ? ["--cpu-prof", "--cpu-prof-interval=200", `--cpu-prof-dir=${process.env.BENCH_PROFILE}`]
      : [];
    const sandbox = await startChild(
      process.execPath,
      [...profile, BOT, "sandbox", "--port", "0", "--admin-token", adminToken, "--plan", "pro"],
      /listening on (http:\/\/[\d.:]+)/,
      {
        POSTBOT_LOG_LEVEL: "warn",
      },
    );
    const sbUrl = sandbox.match[1]!;
    let bare: Awaited<ReturnType<typeof startChild>> | undefined;
    try {
      const admin = async (path: string, body: unknown) => {
        const res = await fetch(sbUrl + path, {
          method: "POST",
          headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
          body: JSON.stringify(body),
        });
        if (!res.ok) throw new Error(`${path} answered ${res.status}: ${await res.text()}`);
        return (await res.json()) as Record<string, string> & { now_ms: number };
      };
      const app = await admin("/_sandbox/apps", { name: "bench" });
      const user = await admin("/_sandbox/users", { username: "bench" });
      const token = await admin("/_sandbox/tokens", { consumer_key: app.consumer_key, user_id: user.id });
      const post = await admin("/_sandbox/posts", {
        author_id: user.id,
        text: "Benchmarking the sandbox, one signed request at a time. #postbot",
      });
      const path = `/2/posts/${post.id}`;

      const sandboxTarget: Target = {
        url: sbUrl,
        pid: sandbox.child.pid,
        offset: 0,
        async between() {
          const { now_ms } = await admin("/_sandbox/clock", { advance_ms: 15 * 60_000 + 1_000 });
          sandboxTarget.offset = now_ms - Date.now();
        },
      };
      const oauth = new OAuth({
        consumer: { key: app.consumer_key!, secret: app.consumer_secret! },
        signature_method: "HMAC-SHA1",
        hash_function: (base, key) => createHmac("sha1", key).update(base).digest("base64"),
      });
      const signer = (target: Target) => (url: string) => {
        oauth.getTimeStamp = () => Math.floor((Date.now() + target.offset) / 1000);
        return oauth.toHeader(
          oauth.authorize({ url, method: "GET" }, { key: token.token!, secret: token.token_secret! }),
        ).Authorization;
      };

      const sample = await fetch(sbUrl + path, { headers: { authorization: signer(sandboxTarget)(sbUrl + path) } });
      const body = await sample.text();
      if (sample.status !== 200) throw new Error(`GET ${path} answered ${sample.status}: ${body}`);

      bare = await startChild(process.execPath, ["--import", "tsx", BARE], /listening on (http:\/\/[\d.:]+)/, {
        BARE_BODY: body,
      });
      const bareTarget: Target = { url: bare.match[1]!, pid: bare.child.pid, offset: 0, between: async () => {} };

      const [b, s] = (await measureBoth(
        [
          { target: bareTarget, sign: signer(bareTarget) },
          { target: sandboxTarget, sign: signer(sandboxTarget) },
        ],
        path,
      )) as [Measured, Measured];
      const non200 = [...s.statuses].filter(([st]) => st !== 200).map(([st, n]) => `${n}×${st}`);
      const ratio = s.rps / b.rps;
      return [
        {
          bench: `signed GET /2/posts/:id, loopback, ${CONCURRENCY} connections, ${ROUND * ROUNDS} requests`,
          "sandbox req/s": Math.round(s.rps),
          "bare node:http req/s": Math.round(b.rps),
          ratio,
          "aim ≥ 0.5": ratio >= 0.5 ? "met" : "missed",
          "non-200": non200.join(" ") || "none",
          ...(s.cpuUsPerRequest !== undefined && b.cpuUsPerRequest !== undefined
            ? { "sandbox CPU µs/req": Math.round(s.cpuUsPerRequest), "bare CPU µs/req": Math.round(b.cpuUsPerRequest) }
            : {}),
        },
      ];
    } finally {
      await bare?.stop();
      await sandbox.stop();
    }
  },
};

export default bench;
