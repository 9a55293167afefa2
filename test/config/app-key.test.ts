import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parseBotFile } from "../../src/config/load-bot-file.ts";
import { formatProblem, loadBots, loadBotText, PluginCache, type OtherBots } from "../../src/config/index.ts";
import type { BotEnv } from "../../src/config/env.ts";

const env: BotEnv = { vars: { KEY: "k1", SECRET: "s1" }, files: [], suggestedFile: ".env" };
const parse = (text: string) => parseBotFile("a.yaml", text, env);
const problems = (text: string) => parse(text).problems.map(formatProblem);

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

describe("a bot file's app and how its mentions arrive", () => {
  it("reads app: {consumer_key, consumer_secret, plan?} from the environment, and mentions: {via}", () => {
    const bot = parse(
      "name: a\nplan: pro\napp:\n  consumer_key: ${KEY}\n  consumer_secret: ${SECRET}\n  plan: pro\ntriggers: { mentions: { via: poll } }\n",
    ).bot!;
    expect(bot.app).toEqual({ consumer_key: "k1", consumer_secret: "s1", plan: "pro" });
    expect(bot.triggers.mentions?.via).toBe("poll");
  });

  it("says what is wrong with an app or a way to get mentions, at its line", () => {
    expect(problems("name: a\nplan: pro\napp: { consumer_key: k }\n")).toEqual([
      "a.yaml:3:1 app.consumer_secret: is required; give the app's API key secret",
    ]);
    expect(problems("name: a\nplan: basic\napp: { consumer_key: k, consumer_secret: s, plan: pro }\n")).toEqual([
      "a.yaml:3:51 app.plan: the app's plan (pro) differs from the bot's plan (basic); an app has one plan: make them the same, or leave app.plan out",
    ]);
    expect(problems("name: a\nplan: basic\ntriggers: { mentions: { via: stream } }\n")).toEqual([
      "a.yaml:3:30 triggers.mentions.via: the basic plan has no filtered stream, so mentions cannot come through it; write via: poll or leave via out",
    ]);
    expect(problems("name: a\nplan: pro\ntriggers: { mentions: { via: push } }\n")).toEqual([
      'a.yaml:3:30 triggers.mentions.via: "push" is not a way to get mentions; use poll or stream',
    ]);
  });

  it("refuses two bots of one app that name different plans (bot validate)", async () => {
    const dir = await mkdtemp(join(tmpdir(), "postbot-apps-"));
    dirs.push(dir);
    await writeFile(join(dir, "one.yaml"), "name: one\nplan: pro\napp: { consumer_key: k, consumer_secret: s }\n");
    await writeFile(join(dir, "two.yaml"), "name: two\nplan: basic\napp: { consumer_key: k, consumer_secret: s }\n");
    const { problems: found } = await loadBots({ botsDir: dir, pluginsDir: join(dir, "plugins"), env: {} });
    expect(found.map(formatProblem).map((p) => p.replace(dir, "DIR"))).toEqual([
      expect.stringMatching(
        /two\.yaml:2:7 plan: the bot's app \(app\.consumer_key\) is also the app of .*one\.yaml, which names the pro plan; an app has one plan: give both the same$/,
      ),
    ]);
  });

  it("checks a changed file beside the running bots as a list or a lookup, with the same problems", async () => {
    const dir = await mkdtemp(join(tmpdir(), "postbot-apps-"));
    dirs.push(dir);
    const plugins = new PluginCache(join(dir, "plugins"), dir);
    const running = {
      one: { name: "one", plan: "pro", file: "bots/one.yaml", app: { consumer_key: "k" } },
      two: { name: "two", plan: "basic", file: "bots/two.yaml" },
    };
    // What the live fleet gives: its bots looked up by name and by app, not listed.
    // (An object of a class: its methods are called on it.)
    class Running implements OtherBots {
      readonly asked: string[] = [];
      fileOf(name: string) {
        this.asked.push(`name ${name}`);
        return running[name as keyof typeof running]?.file;
      }
      appOf(key: string) {
        this.asked.push(`app ${key}`);
        return key === "k" ? { plan: "pro", file: running.one.file } : undefined;
      }
    }
    const lookup = new Running();
    const { asked } = lookup;
    const list = Object.values(running) as unknown as Parameters<typeof loadBotText>[0]["others"];
    const check = async (text: string) => {
      const seen = [];
      for (const others of [list, lookup]) {
        const checked = await loadBotText({ file: "bots/new.yaml", text, env, others, plugins });
        seen.push(checked.problems.map(formatProblem));
      }
      expect(seen[1]).toEqual(seen[0]);
      return seen[0];
    };
    expect(await check("name: two\nplan: pro\n")).toEqual([
      'bots/new.yaml:1:7 name: "two" is already the name of the bot in bots/two.yaml; bot names must be unique',
    ]);
    expect(await check("name: three\nplan: basic\napp: { consumer_key: k, consumer_secret: s }\n")).toEqual([
      "bots/new.yaml:2:7 plan: the bot's app (app.consumer_key) is also the app of bots/one.yaml, which names the pro plan; an app has one plan: give both the same",
    ]);
    expect(await check("name: three\nplan: pro\napp: { consumer_key: k, consumer_secret: s }\n")).toEqual([]);
    expect(asked).toEqual(["name two", "name three", "app k", "name three", "app k"]);
  });
});
