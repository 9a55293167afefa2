import { describe, expect, it } from "vitest";
import { parseBotFile } from "../../src/config/load-bot-file.ts";
import { formatProblem } from "../../src/config/problem.ts";
import type { BotEnv } from "../../src/config/env.ts";

const env: BotEnv = { vars: {}, files: [], suggestedFile: ".env" };
const problems = (text: string) => parseBotFile("a.yaml", text, env).problems.map(formatProblem);

describe("unsafe or ambiguous YAML is refused with its position", () => {
  it("refuses every custom tag, including yaml's extra types, and allows core ones", () => {
    expect(problems("name: a\nplan: !foo basic\n")).toEqual([
      "a.yaml:2:7 the tag !foo is not allowed: bot files are plain data (text, numbers, true/false, lists, mappings); remove the tag",
    ]);
    expect(problems("name: a\nplan: basic\nplugins:\n  x: !!set { a }\n  y: !!binary aGVsbG8=\n")).toEqual([
      "a.yaml:4:6 the tag !!set is not allowed: bot files are plain data (text, numbers, true/false, lists, mappings); remove the tag",
      "a.yaml:5:6 the tag !!binary is not allowed: bot files are plain data (text, numbers, true/false, lists, mappings); remove the tag",
    ]);
    expect(problems('name: !!str a\nplan: basic\nbudget:\n  reply: { max: !!int "3", per: 1h }\n')).toEqual([]);
  });

  it("refuses a second document, keys that are not text, and aliases to nothing", () => {
    expect(problems("name: a\nplan: basic\n---\nname: b\nplan: basic\n")).toEqual([
      "a.yaml:3:1 a second YAML document starts here; a bot file holds one bot, so put each bot in its own file",
    ]);
    expect(problems("name: a\nplan: basic\n? [x]\n: 1\n")).toEqual([
      "a.yaml:3:3 a key must be plain text, not a list or a mapping",
    ]);
    expect(problems("name: a\nplan: *nope\n")).toEqual([
      "a.yaml:2:7 the alias *nope refers to no anchor; define &nope before it, or write the value out",
    ]);
  });

  it("explains empty files and files that are not a mapping", () => {
    expect(problems("")).toEqual(["a.yaml:1:1 the file is empty; a bot file is a mapping with at least name and plan"]);
    expect(problems("# only a comment\n")).toEqual([
      "a.yaml:1:1 the file is empty; a bot file is a mapping with at least name and plan",
    ]);
    expect(problems("just text\n")).toEqual([
      'a.yaml:1:1 a bot file is a mapping (key: value lines) with at least name and plan; this one holds "just text"',
    ]);
    expect(problems("- name: a\n")).toEqual([
      "a.yaml:1:1 a bot file is a mapping (key: value lines) with at least name and plan; this one holds a list",
    ]);
  });

  it("allows ordinary anchors and aliases", () => {
    const result = parseBotFile("a.yaml", "name: a\nplan: &p basic\nplugins:\n  x: { plan: *p }\n", env);
    expect(result.problems).toEqual([]);
    expect(result.bot!.plugins).toEqual([{ name: "x", options: { plan: "basic" } }]);
  });
});

describe("schema problems point at the key or the value", () => {
  it("points at missing keys' parent, bad values, and unknown keys", () => {
    expect(problems("plan: basic\n")).toEqual([
      "a.yaml:1:1 name: is required; give a name (lower-case letters, digits and dashes)",
    ]);
    expect(problems("name: Greeter\nplan:\n")).toEqual([
      'a.yaml:1:7 name: "Greeter" is not a valid name; use lower-case letters, digits and dashes (a-z, 0-9, -), starting with a letter or digit',
      "a.yaml:2:1 plan: is empty; give a plan: one of pro, basic, free",
    ]);
    expect(problems("name: a\nplan: basic\nbudjet: {}\nweather: sunny\n")).toEqual([
      'a.yaml:3:1 budjet: unknown key; did you mean "budget"? Allowed here: name, account, plan, app, triggers, plugins, budget, reply_to_bots, reply_cooldown, session',
      "a.yaml:4:1 weather: unknown key; allowed here: name, account, plan, app, triggers, plugins, budget, reply_to_bots, reply_cooldown, session",
    ]);
    expect(
      problems(
        "name: a\nplan: basic\ntriggers:\n  schedule:\n    - { name: m, cron: '0 9 * * *' }\n    - name: m\n      cron: '* * *'\n",
      ),
    ).toEqual([
      'a.yaml:6:13 triggers.schedule[1].name: "m" is already the name of another schedule of this bot; names must differ',
      'a.yaml:7:13 triggers.schedule[1].cron: "* * *" has 3 fields; write 5 (minute hour day-of-month month day-of-week), e.g. "0 9 * * *", or 6 with seconds first (second minute hour day-of-month month day-of-week)',
    ]);
    // Six fields are read with seconds first, and the message says so (not "write 5 fields").
    expect(problems("name: a\nplan: basic\ntriggers:\n  schedule:\n    - { name: m, cron: '0 61 9 * * *' }\n")).toEqual(
      [
        'a.yaml:5:24 triggers.schedule[0].cron: "61" is not a valid minute (0-59); the 6 fields are read as second minute hour day-of-month month day-of-week',
      ],
    );
  });

  it("checks accounts, budgets and the loop guards", () => {
    expect(problems("name: a\nplan: basic\naccount:\n  token: abc\n")).toEqual([
      "a.yaml:3:1 account.token_secret: is required with token (the secret that `bot auth login` printed with it)",
    ]);
    expect(problems("name: a\nplan: basic\naccount: { token: a, token_secret: b, stored: c }\n")).toEqual([
      "a.yaml:3:47 account.stored: give either token and token_secret, or stored, not both",
    ]);
    expect(problems("name: a\nplan: basic\naccount: { token: 12345, token_secret: '' }\n")).toEqual([
      "a.yaml:3:19 account.token: expected the account's OAuth 1.0a access token, got a value of the wrong kind",
      "a.yaml:3:40 account.token_secret: must not be empty; give the access token's secret",
    ]);
    expect(
      problems(
        "name: a\nplan: basic\nbudget:\n  reserve: 100%\n  like: { max: -1, per: 0s }\n  post: { max: 1.5, per: 1h }\n",
      ),
    ).toEqual([
      'a.yaml:4:12 budget.reserve: "100%" would keep the whole budget unused; use less than 100%',
      "a.yaml:5:16 budget.like.max: -1 is negative; use 0 or more (0 turns the action off)",
      'a.yaml:5:25 budget.like.per: "0s" is too short; the least allowed is 1s',
      "a.yaml:6:16 budget.post.max: expected a whole number (0 turns the action off), got 1.5",
    ]);
    expect(problems("name: a\nplan: basic\nreply_to_bots: sometimes\nreply_cooldown: 5 minutes\n")).toEqual([
      'a.yaml:3:16 reply_to_bots: expected true or false, got "sometimes"',
      'a.yaml:4:17 reply_cooldown: "5 minutes" is not a duration; write a whole number and a unit: ms, s, m, h or d (30s, 15m, 1h, 1d)',
    ]);
  });

  it("checks plugin names", () => {
    expect(problems("name: a\nplan: basic\nplugins:\n  Reply!: {}\n")).toEqual([
      `a.yaml:4:3 plugins.Reply!: "Reply!" is not a plugin name; use a plugin file's name (reply for plugins/reply.ts) or an npm package name`,
    ]);
  });
});
