/**
 * The status page's live updates (`GET /events`, server-sent events): what changed is
 * gathered as the runtime reports it and sent once per turn of the event loop as one
 * `update` message, so a burst of a thousand actions is a handful of messages, not a
 * thousand. Each message names the bots that changed, the apps whose stream connected or
 * dropped, and carries the new actions; the page refetches its current page of bots only
 * when one of them is on it.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Activity } from "./activity.ts";
import type { ActionSeen } from "../hosting/observer.ts";

/** One `update` message. */
export interface LiveUpdate {
  /** The runtime's clock when it was sent. */
  now: number;
  /** Bots whose row may have changed (an action, an event handled, a wait, a pause); `all` when any may have. */
  bots: string[] | "all";
  /** New actions, newest first. */
  actions: ActionSeen[];
  /** Apps whose stream connected or dropped. */
  streams: string[];
}

/**
 * A keep-alive comment goes out this often (real time, not the runtime's clock: it paces a
 * connection, so proxies and browsers keep it open, and says nothing about the bots).
 */
const KEEP_ALIVE_MS = 15_000;

export class LiveUpdates {
  private readonly clients = new Set<ServerResponse>();
  private pending: { bots: Set<string>; all: boolean; actions: ActionSeen[]; streams: Set<string> } | undefined;
  private readonly unsubscribe: () => void;
  private readonly keepAlive: NodeJS.Timeout;

  constructor(
    activity: Activity,
    private readonly now: () => number,
  ) {
    this.unsubscribe = activity.subscribe((change) => {
      const p = this.gather();
      if (change.type === "action") {
        p.bots.add(change.action.bot);
        p.actions.unshift(change.action);
      } else if (change.type === "bot") p.bots.add(change.bot);
      else if (change.type === "stream") p.streams.add(change.app);
      else p.all = true;
    });
    this.keepAlive = setInterval(() => this.write(": keep-alive\n\n"), KEEP_ALIVE_MS);
    this.keepAlive.unref();
  }

  /** Connections open now. */
  get size(): number {
    return this.clients.size;
  }

  /** Answers `GET /events`: the stream stays open until the page goes or the server closes. */
  handle(req: IncomingMessage, res: ServerResponse): void {
    res.writeHead(200, {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-store",
      connection: "keep-alive",
      "x-accel-buffering": "no",
    });
    // The page reconnects after 2 s when the connection breaks, and says hello on each.
    res.write(`retry: 2000\nevent: hello\ndata: ${JSON.stringify({ now: this.now() })}\n\n`);
    this.clients.add(res);
    const drop = () => this.clients.delete(res);
    req.on("close", drop);
    res.on("error", drop);
  }

  /** Ends every stream and stops listening to the runtime. */
  close(): void {
    this.unsubscribe();
    clearInterval(this.keepAlive);
    for (const res of this.clients) res.end();
    this.clients.clear();
  }

  /** The message being gathered; the first change of a turn schedules its sending. */
  private gather() {
    if (!this.pending) {
      this.pending = { bots: new Set(), all: false, actions: [], streams: new Set() };
      setImmediate(() => this.flush());
    }
    return this.pending;
  }

  private flush(): void {
    const p = this.pending;
    this.pending = undefined;
    if (!p || this.clients.size === 0) return;
    const update: LiveUpdate = {
      now: this.now(),
      bots: p.all ? "all" : [...p.bots],
      actions: p.actions,
      streams: [...p.streams],
    };
    this.write(`event: update\ndata: ${JSON.stringify(update)}\n\n`);
  }

  private write(chunk: string): void {
    for (const res of this.clients) res.write(chunk);
  }
}
