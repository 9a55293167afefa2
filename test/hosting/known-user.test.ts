/**
 * Who a bot's account is without starting it (src/hosting/identity.ts `knownUser`): what the
 * process holding an app's stream puts in the app's mention rules for bots that do not run
 * yet. A wrong answer would route another user's mentions to the bot, so it answers only
 * when sure: a bot kept whole says; an outline whose file names no account signs in with the
 * account of its name, as the state keeps it.
 */
import { describe, expect, it } from "vitest";
import { sourceOf } from "../../src/config/bot-source.ts";
import { saveAccount } from "../../src/credentials/accounts.ts";
import { knownUser } from "../../src/hosting/identity.ts";
import type { FleetBot, HostedBot } from "../../src/hosting/types.ts";
import { createMemoryStore } from "../../src/store/store.ts";

const app = { id: "app1", key: "k", secret: "s", plan: "pro" } as unknown as HostedBot["app"];
const outline = (name: string, data?: Record<string, unknown>): FleetBot => ({
  config: { name, file: `bots/${name}.yaml`, plan: "pro" } as FleetBot["config"],
  app,
  ...(data ? { source: sourceOf({ name, plan: "pro", ...data }) } : {}),
});
const signedIn = () => {
  const store = createMemoryStore();
  saveAccount(store, {
    name: "ann",
    base_url: "http://127.0.0.1:1",
    user_id: "101",
    username: "ann_account",
    oauth1: { token: "t", secret: "s", consumer_key: "k" },
    updated_at: "2026-03-02T12:00:00Z",
  });
  return store;
};

describe("a bot's account known without starting it", () => {
  it("an outline whose file names no account: the account of its name, as signed in", () => {
    expect(knownUser(signedIn(), outline("ann", {}))).toEqual({ id: "101", username: "ann_account" });
  });

  it("none when its file names an account (even one of another name existing under its own), or none is signed in", () => {
    expect(knownUser(signedIn(), outline("ann", { account: { stored: "other" } }))).toBeUndefined();
    expect(knownUser(signedIn(), outline("ann", { account: { token: "${T}", token_secret: "${S}" } }))).toBeUndefined();
    expect(knownUser(signedIn(), outline("bob", {}))).toBeUndefined();
    expect(knownUser(signedIn(), outline("ann"))).toBeUndefined();
  });

  it("a bot kept whole: its own, known or not", () => {
    const whole = (user?: HostedBot["user"]) =>
      ({ ...outline("ann"), token: { token: "t", secret: "s" }, ...(user ? { user } : {}) }) as unknown as FleetBot;
    expect(knownUser(signedIn(), whole({ id: "7", username: "seven" }))).toEqual({ id: "7", username: "seven" });
    expect(knownUser(signedIn(), whole())).toBeUndefined();
  });
});
