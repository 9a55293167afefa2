/**
 * Stream hubs on the sandbox, for tests that start one (startStreamHub): the sandbox and a pro
 * app, a new client with the app's keys for each attempt of the hub, and everything closed
 * after the test, whatever it did.
 */
import { createClient, type ApiClient } from "../../src/api/client.ts";
import type { AdjustableClock } from "../../src/clock.ts";
import { STREAM_RULE_CAPS } from "../../src/limits/stream-rules.ts";
import { createSandbox, type Sandbox } from "../../src/sandbox/index.ts";
import type { StreamHub } from "../../src/triggers/stream-hub.ts";
import type { BotEvent } from "../../src/triggers/events.ts";
import type { StreamHubOptions } from "../../src/triggers/stream/options.ts";

/** A test's sandbox and hub; `close()` after each test (afterEach). */
export class SandboxHubs {
  sandbox: Sandbox | undefined;
  hub: StreamHub | undefined;
  private readonly clients: ApiClient[] = [];

  /** A sandbox on `clock` with a pro app, and how a hub of that app connects to it. */
  async open(clock: AdjustableClock) {
    const sandbox = await createSandbox({ clock });
    this.sandbox = sandbox;
    const app = await sandbox.admin.createApp({ plan: "pro" });
    const connection: Pick<StreamHubOptions, "client" | "forgetBearer" | "caps"> = {
      client: async () => {
        const client = createClient({
          baseUrl: sandbox.url,
          // The hub's clock: the times it asks for are in it (a client on another clock would take them for its own).
          clock,
          auth: { consumer: { key: app.consumer_key, secret: app.consumer_secret } },
        });
        this.clients.push(client);
        return client;
      },
      forgetBearer: () => {},
      caps: STREAM_RULE_CAPS.pro!,
    };
    return { sandbox, app, connection };
  }

  async close(): Promise<void> {
    this.hub?.close();
    await this.hub?.done;
    this.hub = undefined;
    for (const c of this.clients.splice(0)) await c.close();
    await this.sandbox?.close();
    this.sandbox = undefined;
  }
}

/**
 * Takes what a hub routes, as a process's runtime does, and tells the test what each bot was
 * handed: each post event by its bot's own rules (`post`), each batch of mentions
 * (`mentions`). Each batch is then said taken (the hub's mark follows).
 */
export function recordTaken(
  hub: Pick<StreamHub, "take" | "taken">,
  on: {
    post?(bot: string, event: BotEvent): void;
    mentions?(bot: string, events: readonly BotEvent[]): void;
  },
): void {
  void (async () => {
    for (let batch = await hub.take(); batch; batch = await hub.take()) {
      for (const { bot, kind, events } of batch.entries) {
        if (kind === "mentions") on.mentions?.(bot, events);
        else for (const event of events) on.post?.(bot, event);
      }
      hub.taken(batch);
    }
  })();
}
