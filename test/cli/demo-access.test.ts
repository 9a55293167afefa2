/**
 * What the demo tells a person to type names each bot by its account's username, the handle a
 * post mentions: a connected account's bot (`greeter-for-maya-codes`, account `maya_codes`)
 * is talked to as `@maya_codes`; "@greeter-for-maya-codes" would mention `@greeter`.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { announceDemo, besideDemo, demoAccessOf, type DemoBot } from "../../src/cli/demo-access.ts";
import { captureLogs } from "../helpers/log.ts";

const connected: DemoBot = {
  name: "greeter-for-maya-codes",
  username: "maya_codes",
  handles: ["mention", "follow"],
  mentions: { via: "poll", everyMs: 90_000 },
};
const sandbox = { url: "http://127.0.0.1:1", adminToken: "secret-admin-token" };

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

describe("the demo's hints name bots by their accounts", () => {
  it("the start's line: bot say mentions, and bot follow follows, the account's username", async () => {
    dir = await mkdtemp(join(tmpdir(), "postbot-demo-access-"));
    const { lines, logger } = captureLogs("info");
    const unpublish = await announceDemo(dir, demoAccessOf(sandbox, [connected], "bots"), [connected], logger);
    await unpublish();
    expect(lines.map((l) => l.msg)).toEqual([
      `talk to the bots as a user of the demo: npx bot say --data ${dir} --as alice "@maya_codes hello" (add --reply-to POST_ID to answer a post); npx bot follow --data ${dir} --as alice maya_codes`,
    ]);
  });

  it("a second bot start beside the demo: talk to the bot by its account's username", () => {
    const demo = { ...demoAccessOf(sandbox, [connected], "bots"), pid: 4242 };
    expect(besideDemo(demo, ".postbot", "bots", ["greeter-for-maya-codes"])).toContain(
      'greeter-for-maya-codes runs in the demo already (it starts the bot files saved in its bots directory): talk to it with npx bot say --as alice "@maya_codes hi"',
    );
  });
});
