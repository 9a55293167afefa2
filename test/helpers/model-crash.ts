/**
 * The world of the kill -9 tests of model replies (test/llm/kill9.test.ts, and the bench's
 * figure): a loopback service that records every reply it receives (by key, with its text), a
 * model server whose every answer is new (`Answer N to pK.`, so an answer written twice would
 * show), and the child (test/fixtures/llm-child.ts) started and killed at will.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { answer, startModelServer, type ModelServer } from "./model-server.ts";
import { fixtureCommand } from "./built.ts";

export interface ReplyWorld {
  serviceUrl: string;
  model: ModelServer;
  /** Texts the service received, by reply key (more than one: posted twice). */
  received: Map<string, string[]>;
  /** Answers the model gave, by post, in order. */
  answers: Map<string, string[]>;
  /** Called when a reply reaches the service; `true`: it is not answered (the child is being killed). */
  onArrival?: ((res: ServerResponse) => boolean) | undefined;
  /** Called as the model answers a request (the answer goes out right after). */
  onAnswer?: (() => void) | undefined;
  /**
   * While set, the model holds its answers until this many requests wait, then gives them all
   * at once: answers that come back together. {@link runChild} forgets the requests of an
   * earlier (killed) child still held.
   */
  together?: number | undefined;
  /** Forgets the held requests (see {@link together}). */
  forgetHeld(): void;
  close(): Promise<void>;
}

export async function startReplyWorld(): Promise<ReplyWorld> {
  const model = await startModelServer();
  const received = new Map<string, string[]>();
  const answers = new Map<string, string[]>();
  let n = 0;
  let held: Array<() => void> = [];
  model.chat.respond(async (req) => {
    const together = world.together;
    if (together !== undefined)
      await new Promise<void>((resolve) => {
        held.push(resolve);
        if (held.length < together) return;
        const all = held;
        held = [];
        for (const go of all) go();
      });
    const content = req.messages.at(-1)?.content;
    const post = (typeof content === "string" ? content : "").replace(/^post /, "");
    const text = `Answer ${++n} to ${post}.`;
    answers.set(post, [...(answers.get(post) ?? []), text]);
    world.onAnswer?.();
    return answer.chat(text);
  });
  const world: ReplyWorld = {
    serviceUrl: "",
    model,
    received,
    answers,
    forgetHeld() {
      held = [];
    },
    async close() {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      await model.close();
    },
  };
  const server = createServer((req, res) => {
    const url = new URL(req.url!, "http://x");
    if (url.pathname === "/has") {
      res.end(JSON.stringify({ done: received.has(url.searchParams.get("key")!) }));
      return;
    }
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      const { key, text } = JSON.parse(body) as { key: string; text: string };
      received.set(key, [...(received.get(key) ?? []), text]);
      if (world.onArrival?.(res)) return;
      res.end(JSON.stringify({ data: { id: key } }));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  world.serviceUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return world;
}

export interface ChildRun {
  code: number | null;
  killed: boolean;
  out: string;
}

/**
 * Runs the child once over `dataDir`: killed with SIGKILL when it prints `posting` (with
 * `hold`: a reply marked `pending`, about to be sent) or `recorded` (with `holdRecorded`: a
 * reply's text recorded, the reply waiting for its slot), on the n-th reply reaching the
 * service (`onReply`), `delayMs` after the model answered its n-th request (`onAnswer`: the
 * answer on its way to the child or just arrived), or `afterMs` after it started. `env` adds to the child's environment
 * (`BOTS`).
 */
export function runChild(
  world: ReplyWorld,
  dataDir: string,
  count: number,
  kill: {
    hold?: boolean;
    holdRecorded?: boolean;
    /** The writer's check (`CHECK`): `hang` (killed when it prints `checking`) or `pass`. */
    check?: "hang" | "pass";
    onReply?: number;
    onAnswer?: { n: number; delayMs: number };
    afterMs?: number;
    env?: Record<string, string>;
  } = {},
): Promise<ChildRun> {
  world.forgetHeld();
  return new Promise((resolve) => {
    const child: ChildProcess = spawn(
      process.execPath,
      [...fixtureCommand("llm-child"), dataDir, world.serviceUrl, world.model.url, String(count)],
      {
        stdio: ["ignore", "pipe", "pipe"],
        env: {
          ...process.env,
          ...kill.env,
          HOLD: kill.hold ? "1" : kill.holdRecorded ? "recorded" : "0",
          ...(kill.check ? { CHECK: kill.check } : {}),
        },
      },
    );
    let out = "";
    let killed = false;
    const doKill = () => {
      if (!killed && child.exitCode === null) {
        killed = true;
        child.kill("SIGKILL");
      }
    };
    const timer = kill.afterMs !== undefined ? setTimeout(doKill, kill.afterMs) : undefined;
    child.stdout!.on("data", (c) => {
      out += c;
      if (
        (kill.hold && out.includes("posting ")) ||
        (kill.holdRecorded && out.includes("recorded")) ||
        (kill.check === "hang" && out.includes("checking "))
      )
        doKill();
    });
    child.stderr!.on("data", (c) => (out += c));
    let seen = 0;
    world.onArrival = (res) => {
      if (++seen !== kill.onReply) return false;
      doKill(); // it arrived; the child dies before the answer
      res.destroy();
      return true;
    };
    let answered = 0;
    world.onAnswer = () => {
      if (++answered === kill.onAnswer?.n) setTimeout(doKill, kill.onAnswer.delayMs);
    };
    child.on("exit", (code) => {
      clearTimeout(timer);
      world.onArrival = undefined;
      world.onAnswer = undefined;
      resolve({ code, killed, out });
    });
  });
}
