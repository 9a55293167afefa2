/**
 * What the review page's tests start (test/observe/review.test.ts,
 * test/browser/review-page.test.ts): a bot `warden` that moderates replies to its posts with
 * `moderate`'s defaults, its status server (with the admin API when `admin` is given), the
 * review desk that sends decisions through the bot's action pipeline, and the bot's first
 * post, all on one frozen clock. The desk is not given to the server: a test does that
 * (`server.review(desk)`), so it can see the API before the bots run. Always `close()` it.
 */
import moderate from "../../plugins/moderate.ts";
import { createClock } from "../../src/clock.ts";
import { sandboxUsername } from "../../src/hosting/provision.ts";
import { ReviewDesk } from "../../src/hosting/review-desk.ts";
import { silentLogger } from "../../src/log.ts";
import type { AdminAccess } from "../../src/observe/admin-api.ts";
import { runtimeSource, startObserveServer, type ObserveServer } from "../../src/observe/index.ts";
import { createSandbox, type Sandbox } from "../../src/sandbox/index.ts";
import { createTestBed, type TestBed } from "../../src/testing.ts";
import { T0 } from "./sandbox.ts";

export interface ReviewBed {
  sandbox: Sandbox;
  server: ObserveServer;
  bed: TestBed;
  desk: ReviewDesk;
  /** The bot's first post, which replies answer. */
  root: { id: string };
  /** Whether the sandbox shows the post hidden. */
  hidden(post: string): boolean | undefined;
  close(): Promise<void>;
}

export async function startReviewBed(o: { admin?: AdminAccess } = {}): Promise<ReviewBed> {
  const clock = createClock({ frozen: true, start: T0 });
  const sandbox = await createSandbox({ clock });
  const server = await startObserveServer({
    host: "127.0.0.1",
    port: 0,
    clock,
    ...(o.admin ? { admin: o.admin } : {}),
  });
  let bed: TestBed | undefined;
  const close = async () => {
    await server.close();
    await bed?.close();
    await sandbox.close();
  };
  try {
    bed = await createTestBed({
      sandbox,
      bots: [{ name: "warden", plan: "pro", triggers: { mentions: {} }, plugins: { moderate: {} } }],
      plugins: { moderate },
      runtime: { observer: server.observer },
    });
    const runtime = bed.runtime;
    server.attach(runtimeSource(runtime, clock, bed.store));
    const desk = new ReviewDesk({
      store: bed.store,
      clock,
      log: silentLogger,
      layerOf: (b) => runtime.bots.get(b)?.layer,
    });
    const root = await bed.post(await bed.user(sandboxUsername("warden")), "Ask me anything");
    return {
      sandbox,
      server,
      bed,
      desk,
      root,
      hidden: (post) => sandbox.context.data.world.posts[post]?.hidden,
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}
