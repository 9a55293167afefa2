import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { fileDigest, formatProblem, loadBots } from "../../src/config/index.ts";
import { UserError } from "../../src/errors.ts";

const FIXTURES = "test/fixtures/config";
const PLUGINS = "test/fixtures/plugins";

describe("loadBots on the broken fixtures (one file per problem kind)", () => {
  it("reports each problem exactly, as file:line:col key: message", async () => {
    const { bots, problems, files } = await loadBots({
      botsDir: `${FIXTURES}/broken/bots`,
      pluginsDir: PLUGINS,
      env: {},
    });
    const dir = `${FIXTURES}/broken/bots`;
    expect(problems.map(formatProblem)).toEqual([
      `${dir}/alias-bomb.yaml:5:8 aliases expand into too much data (more than 100 expansions; a "billion laughs" file?); a bot file needs few aliases, so write the values out`,
      `${dir}/bad-cron.yaml:6:13 triggers.schedule[0].cron: "61" is not a valid minute (0-59); the 5 fields are read as minute hour day-of-month month day-of-week`,
      `${dir}/bad-plugin-option.yaml:5:11 plugins.reply.text: expected text, got 42`,
      `${dir}/bad-timezone.yaml:5:53 triggers.schedule[0].timezone: unknown time zone "Europe/Atlantis": use an IANA name such as Europe/Berlin or UTC`,
      `${dir}/bad-value.yaml:4:26 budget.reply.per: "daily" is not a duration; write a whole number and a unit: ms, s, m, h or d (30s, 15m, 1h, 1d)`,
      `${dir}/custom-tag.yaml:5:11 the tag !!js/function is not allowed: bot files are plain data (text, numbers, true/false, lists, mappings); remove the tag`,
      `${dir}/duplicate-key.yaml:5:1 duplicate key "plan": it is already set on line 2; keep only one`,
      `${dir}/duplicate-name-b.yaml:1:7 name: "twin" is already the name of the bot in ${dir}/duplicate-name-a.yaml; bot names must be unique`,
      `${dir}/interval-too-fast.yaml:4:25 triggers.mentions.interval: 30s is faster than the basic plan allows; use 90s or more, or leave interval out to poll at the fastest allowed`,
      `${dir}/invalid-syntax.yaml:5:1 invalid YAML: Flow map in block collection must be sufficiently indented and end with a }`,
      `${dir}/missing-env.yaml:4:10 the environment variable MISSING_ENV_TOKEN is not set; set it (export MISSING_ENV_TOKEN=...), add a line MISSING_ENV_TOKEN=... to ${FIXTURES}/broken/.env, or write \${MISSING_ENV_TOKEN:-default}`,
      `${dir}/stream-on-basic.yaml:4:3 triggers.stream: the basic plan has no filtered stream, so stream rules cannot run; remove them or use the pro plan`,
      `${dir}/unknown-key.yaml:4:3 triggers.mentoins: unknown key; did you mean "mentions"? Allowed here: mentions, followers, dms, stream, schedule`,
      `${dir}/unknown-plan.yaml:2:7 plan: "gold" is not a plan; use one of pro, basic, free`,
      `${dir}/unknown-plugin.yaml:4:3 plugins.rpely: unknown plugin "rpely"; did you mean "reply"? Looked for ${PLUGINS}/rpely.{ts,js,mts,mjs}, ${PLUGINS}/rpely/index.{ts,js}, the built-in plugins (dialog, follow-back, like, llm-reply, moderate, reply, repost, schedule-post, welcome-dm) and the npm packages postbot-plugin-rpely, rpely`,
    ]);
    expect(files).toHaveLength(16);
    // Only the first of the two same-named bots is valid; every other file has a problem.
    expect(bots.map((b) => b.name)).toEqual(["twin"]);
    expect(bots[0]!.file).toBe(`${dir}/duplicate-name-a.yaml`);
  });

  // Expanding 10^30 strings would never finish: the test's own timeout is the bound (a hang
  // guard, not a speed measurement).
  it("refuses a billion-laughs file without expanding it", { timeout: 10_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), "postbot-laughs-"));
    try {
      const levels = ["a: &a [" + Array(10).fill('"lol"').join(", ") + "]"];
      for (let i = 1; i < 30; i++)
        levels.push(
          `l${i}: &l${i} [${Array(10)
            .fill(i === 1 ? "*a" : `*l${i - 1}`)
            .join(", ")}]`,
        );
      writeFileSync(join(dir, "laughs.yaml"), `name: laughs\nplan: free\n${levels.join("\n")}\n`);
      const { problems } = await loadBots({ botsDir: dir, pluginsDir: PLUGINS, env: {} });
      expect(problems).toHaveLength(1);
      expect(problems[0]).toMatchObject({ line: 4, col: 10 });
      expect(problems[0]!.message).toMatch(/^aliases expand into too much data/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("loadBots on valid files", () => {
  it("parses to typed values, with plugins resolved in YAML order", async () => {
    const { bots, problems, digests } = await loadBots({
      botsDir: `${FIXTURES}/valid/bots`,
      pluginsDir: PLUGINS,
      env: { GREETER_TOKEN: "token-1", COUNTER_STEP: "2" },
    });
    expect(problems).toEqual([]);
    expect(bots.map((b) => b.name)).toEqual(["greeter", "minimal", "watcher"]);
    // Each file's text as read, as its digest: the live fleet keeps it without reading the file again.
    for (const bot of bots) expect(digests.get(bot.file)).toBe(fileDigest(readFileSync(bot.file, "utf8")));
    const [greeter, minimal, watcher] = bots;
    const { plugins: greeterPlugins, ...greeterRest } = greeter!;
    expect(greeterRest).toEqual({
      name: "greeter",
      file: `${FIXTURES}/valid/bots/greeter.yaml`,
      account: { kind: "oauth1", token: "token-1", token_secret: "fallback-secret" },
      plan: "basic",
      triggers: {
        mentions: { backfill: 3_600_000 },
        stream: [],
        schedule: [{ name: "morning", cron: "0 9 * * *", timezone: "Europe/Berlin" }],
      },
      budget: { reserve: 0.1, reply: { max: 50, per: 86_400_000 }, like: { max: 0, per: 3_600_000 } },
      reply_to_bots: false,
      reply_cooldown: 1_800_000,
    });
    expect(greeterPlugins.map(({ name, options, source }) => ({ name, options, source }))).toEqual([
      { name: "reply", options: { text: "Hello @{author.username}!", max_length: 280 }, source: `${PLUGINS}/reply.ts` },
      { name: "like", options: {}, source: `${PLUGINS}/like.js` },
      { name: "counter", options: { start: 0, step: 2 }, source: `${PLUGINS}/counter/index.ts` },
    ]);
    expect(greeterPlugins.map((p) => p.definition.name)).toEqual(["reply", "like", "counter"]);
    expect(typeof greeterPlugins[0]!.definition.setup).toBe("function");

    expect(minimal).toMatchObject({
      name: "minimal",
      plan: "free",
      account: { kind: "stored", stored: "minimal" },
      triggers: { stream: [], schedule: [] },
      plugins: [],
      budget: { reserve: 0 },
      reply_to_bots: false,
      reply_cooldown: 900_000,
    });
    expect(minimal!.triggers.mentions).toBeUndefined();

    expect(watcher).toMatchObject({
      account: { kind: "stored", stored: "watcher-account" },
      plan: "pro",
      triggers: {
        mentions: { interval: 30_000, backfill: 900_000 },
        stream: [{ value: "#askwatcher -is:repost", tag: "ask" }, { value: "cats has:images" }],
      },
      reply_to_bots: true,
    });
    expect(watcher!.plugins.map((p) => [p.name, p.options])).toEqual([
      ["like", {}],
      ["reply", { text: "Meow", max_length: 100 }],
    ]);
  });
});

describe("plugins that cannot be used", () => {
  it("name the plugin's file and what is wrong with it", async () => {
    const { bots, problems } = await loadBots({
      botsDir: `${FIXTURES}/plugin-errors/bots`,
      pluginsDir: PLUGINS,
      env: {},
    });
    const at = `${FIXTURES}/plugin-errors/bots/uses-broken.yaml`;
    expect(bots).toEqual([]);
    expect(problems.map(formatProblem)).toHaveLength(3);
    // The syntax error's wording comes from the module loader (vite here, tsx in `bot`); the
    // exact text under `bot validate` is checked in validate-command.test.ts.
    expect(formatProblem(problems[0]!)).toMatch(
      new RegExp(
        `^${at}:5:3 plugins\\.broken-syntax: plugin "broken-syntax" could not be loaded from ${PLUGINS}/broken-syntax\\.js: .+`,
      ),
    );
    expect(formatProblem(problems[1]!)).toBe(
      `${at}:6:3 plugins.throws-on-import: plugin "throws-on-import" could not be loaded from ${PLUGINS}/throws-on-import.ts: the weather service is down`,
    );
    expect(formatProblem(problems[2]!)).toBe(
      `${at}:7:3 plugins.not-a-plugin: plugin "not-a-plugin" (${PLUGINS}/not-a-plugin.ts) is not a plugin: its default export has no setup function; write export default definePlugin({ name, options, setup })`,
    );
  });
});

describe("loadBots in a project of its own", () => {
  let dir = "";
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = "";
  });
  const project = (files: Record<string, string>) => {
    dir = mkdtempSync(join(tmpdir(), "postbot-config-"));
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(join(dir, path, ".."), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    return dir;
  };

  it("reads .env next to the bots directory, then the current directory; the environment wins", async () => {
    const cwd = project({
      "deploy/bots/a.yaml": "name: a\nplan: ${PLAN}\naccount:\n  token: ${TOKEN}\n  token_secret: ${SECRET}\n",
      "deploy/.env": "TOKEN=from-deploy-env\nPLAN=basic\n",
      ".env": "TOKEN=from-cwd-env\nSECRET=from-cwd-env\nPLAN=free\n",
    });
    const { bots, problems, env } = await loadBots({ botsDir: "deploy/bots", cwd, env: { PLAN: "pro" } });
    expect(problems).toEqual([]);
    expect(bots[0]!.account).toEqual({ kind: "oauth1", token: "from-deploy-env", token_secret: "from-cwd-env" });
    expect(bots[0]!.plan).toBe("pro");
    expect(env.files).toEqual(["deploy/.env", ".env"]);
  });

  it("interpolates defaults, escapes, and types whole plain values like YAML would", async () => {
    const cwd = project({
      "bots/a.yaml": [
        "name: ${NAME:-fallback-name}",
        "plan: basic",
        "budget:",
        "  reply:",
        "    max: ${MAX}",
        "    per: 1h",
        "plugins:",
        "  echo:",
        '    quoted: "${MAX}"',
        "    escaped: $${NOT_A_VAR}",
        "    inside: x-${MAX}-y",
        "    empty_with_default: ${EMPTY:-used}",
        "",
      ].join("\n"),
      "plugins/echo.ts":
        'import { z } from "zod";\nexport default { name: "echo", options: z.record(z.string(), z.unknown()), setup() {} };\n',
    });
    const { bots, problems } = await loadBots({ cwd, env: { MAX: "7", EMPTY: "" } });
    expect(problems).toEqual([]);
    expect(bots[0]!.name).toBe("fallback-name");
    expect(bots[0]!.budget.reply).toEqual({ max: 7, per: 3_600_000 });
    expect(bots[0]!.plugins[0]!.options).toEqual({
      quoted: "7",
      escaped: "${NOT_A_VAR}",
      inside: "x-7-y",
      empty_with_default: "used",
    });
  });

  it("points at a malformed reference, and says how to write one inside { }", async () => {
    const cwd = project({
      "bots/a.yaml": 'name: a\nplan: basic\naccount: { stored: "${bad name}" }\n',
      "flow/a.yaml": "name: a\nplan: basic\nbudget:\n  reply: { max: ${MAX}, per: 1h }\n",
    });
    const { problems } = await loadBots({ cwd, env: {} });
    expect(problems.map(formatProblem)).toEqual([
      'bots/a.yaml:3:21 "${bad name}" is not a variable reference; write ${NAME} or ${NAME:-default} (or $${ for a literal ${)',
    ]);
    const flow = await loadBots({ cwd, botsDir: "flow", env: { MAX: "3" } });
    expect(flow.problems.map(formatProblem)).toEqual([
      'flow/a.yaml:4:18 invalid YAML: Unexpected flow-map-start at node end (inside { } or [ ], a ${VAR} must be quoted, "${VAR}", or the value written in block style, one key: value per line)',
    ]);
  });

  it("finds plugins as npm packages installed in the project", async () => {
    const cwd = project({
      "bots/a.yaml": "name: a\nplan: pro\nplugins:\n  hello: { greeting: hi }\n  '@acme/wave': {}\n",
      "node_modules/postbot-plugin-hello/package.json": JSON.stringify({
        name: "postbot-plugin-hello",
        type: "module",
        exports: { ".": { import: "./lib/main.js" } },
      }),
      // A schema that is not zod (the project's zod is not installed here) but has its interface.
      "node_modules/postbot-plugin-hello/lib/main.js":
        'export default { name: "hello", options: { async safeParseAsync(v) { return { success: true, data: { greeting: String(v.greeting).toUpperCase() } }; } }, setup() {} };\n',
      "node_modules/@acme/postbot-plugin-wave/package.json": JSON.stringify({
        name: "@acme/postbot-plugin-wave",
        main: "index.cjs",
      }),
      "node_modules/@acme/postbot-plugin-wave/index.cjs": 'module.exports = { name: "wave", setup() {} };\n',
    });
    const { bots, problems } = await loadBots({ cwd, env: {} });
    expect(problems).toEqual([]);
    expect(bots[0]!.plugins.map((p) => [p.name, p.options, p.source, p.definition.name])).toEqual([
      ["hello", { greeting: "HI" }, "postbot-plugin-hello", "hello"],
      ["@acme/wave", {}, "@acme/postbot-plugin-wave", "wave"],
    ]);
  });

  it("reports plugin options at their position, with did-you-mean for unknown option keys", async () => {
    const cwd = project({
      "bots/a.yaml":
        "name: a\nplan: basic\nplugins:\n  reply:\n    txt: hello\n  like: { fast: true }\n  counter: nonsense\n",
    });
    const { problems } = await loadBots({ cwd, pluginsDir: join(process.cwd(), PLUGINS), env: {} });
    expect(problems.map(formatProblem)).toEqual([
      "bots/a.yaml:4:3 plugins.reply.text: is required; give text",
      'bots/a.yaml:5:5 plugins.reply.txt: unknown key; did you mean "text"? Allowed here: text, max_length',
      'bots/a.yaml:6:3 plugins.like: plugin "like" takes no options; leave its value empty (like: {})',
      'bots/a.yaml:7:12 plugins.counter: expected a mapping (key: value lines), got "nonsense"',
    ]);
  });

  it("refuses a missing bots directory and reports an empty one", async () => {
    const cwd = project({ "empty/.keep": "" });
    await expect(loadBots({ cwd, botsDir: "nope" })).rejects.toThrow(
      new UserError("the bots directory nope does not exist; create it with one YAML file per bot, or pass --bots DIR"),
    );
    const { problems } = await loadBots({ cwd, botsDir: "empty", env: {} });
    expect(problems.map(formatProblem)).toEqual(["empty has no bot files (*.yaml or *.yml); write one file per bot"]);
  });
});

describe("loadBots on many files", () => {
  it("gives the event loop turns while it loads, so timers and sockets are served meanwhile", async () => {
    const dir = mkdtempSync(join(tmpdir(), "postbot-many-"));
    try {
      for (let i = 0; i < 400; i++) writeFileSync(join(dir, `bot-${i}.yaml`), `name: bot-${i}\nplan: free\n`);
      let turns = 0;
      const turn = () => {
        turns++;
        if (!done) setImmediate(turn);
      };
      let done = false;
      setImmediate(turn);
      const { bots, problems } = await loadBots({ botsDir: dir, pluginsDir: PLUGINS, env: {} });
      done = true;
      expect(problems).toEqual([]);
      expect(bots).toHaveLength(400);
      // Loaded in one piece, the loop would get no turn until the end (0 here).
      expect(turns).toBeGreaterThan(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
