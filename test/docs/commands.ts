/**
 * Every shell command of README.md and docs/*.md, run as written, in order, in a scratch copy
 * of this checkout (test/helpers/scratch-clone.ts), with the files the documents tell the
 * reader to write: a command that stops working, or prints something else than the documents
 * promise, fails `npm test`. The commands of the demo run against the demo, started as the
 * README starts it (`npm start`); a command that serves (`bot start`, `bot sandbox`) keeps
 * running, as in a first terminal, until the end of its section, where it is stopped with
 * Ctrl-C and must stop cleanly.
 *
 * What the test changes in a command, and only this: the fixed ports 8787 and 9464 become
 * free ones (so it runs beside anything else on this machine), `ID` becomes the last post id
 * a command printed, and `ADMIN_TOKEN` the last admin token one printed. Blocks marked
 * `<!-- syntax only: WHY -->` are not run; their `bot` commands go through the CLI's own
 * parser, their `npm` scripts must exist, and any other program must be one this file knows.
 *
 * The tests are declared by two files, so that the README's (about a minute, mostly the demo's
 * processes waiting) runs beside those of docs/ rather than before them:
 * ./commands-readme.test.ts (README.md) and ./commands.test.ts (docs/*.md, and the check that
 * {@link EXPECTED} knows every command and nothing else).
 */
import { existsSync } from "node:fs";
import { readFile, writeFile, mkdir } from "node:fs/promises";
import { createServer } from "node:net";
import { dirname, join } from "node:path";
import { parse, type ParseEntry } from "shell-quote";
import { afterEach, expect, it } from "vitest";
import type { Command as Command_ } from "commander";
import { buildProgram } from "../../src/cli/main.ts";
import { commandsOf, docBlocks, docFiles, type DocBlock } from "../helpers/doc-blocks.ts";
import { scratchClone } from "../helpers/scratch-clone.ts";
import { killCommands, runCommand, type Command } from "../helpers/shell-session.ts";

/** What the reader's terminal session holds while a document's commands run. */
interface Session {
  dir: string;
  env: Record<string, string>;
  ports: Map<string, string>;
  lastId?: string;
  adminToken?: string;
  /** The demo, once a command needed it (stopped at the end of its section). */
  demo?: Command;
  /** Commands that serve until the end of their section, with what they print when stopped. */
  serving: Array<{ command: Command; stopped: RegExp; where: string }>;
}

interface Expectation {
  /** Runs against the demo (started first, as `npm start`, when none runs). */
  demo?: boolean;
  /** Exit code (default 0). */
  exit?: number;
  /** What it prints (stdout); stderr must be empty unless `stderr` says what it holds. */
  stdout?: RegExp;
  stderr?: RegExp;
  /** It serves until stopped: ready once stdout has a line matching `ready`; prints `stopped` when stopped. */
  serves?: { ready: RegExp; stopped: RegExp };
  /** While it runs, once a line matches `when`, the test does `then` (moves the demo's clock). */
  meanwhile?: { when: RegExp; then: (session: Session) => Promise<void> };
  /** After it exits: a check of what it wrote. */
  after?: (session: Session) => Promise<void>;
}

/** The demo's sandbox, from `.postbot/demo.json` (as `bot say` finds it). */
async function demoAccess(session: Session): Promise<{ url: string; admin_token: string }> {
  return JSON.parse(await readFile(join(session.dir, ".postbot", "demo.json"), "utf8"));
}

/** Moves the demo's clock (the runtime's and the sandbox's: one clock) by `ms`, through the admin API. */
const advanceDemo = (ms: number) => async (session: Session) => {
  const { url, admin_token } = await demoAccess(session);
  const res = await fetch(`${url}/_sandbox/clock`, {
    method: "POST",
    headers: { authorization: `Bearer ${admin_token}`, "content-type": "application/json" },
    body: JSON.stringify({ advance_ms: ms }),
  });
  expect(res.status).toBe(200);
};

/**
 * When `bot start` serves everything: "all bots started", its last start-up line, logged once
 * the status page, the admin API, the connect pages and the demo's file for `bot say` answer
 * (src/cli/start.ts; it used to come before the connect pages were mounted, and a
 * `curl` right after it could get a 404).
 */
const STARTED = /"msg":"all bots started; stop with Ctrl-C"/;

const OK_VALIDATE = /^OK: \d+ bots in \d+ files \(.*hello.*\), 1 template \(greeter\), \d+ plugins checked$/m;

/**
 * What each documented command must do, by its text as written (its comment aside). A
 * command the documents add needs an entry here; an entry no document uses fails too.
 */
const EXPECTED: Record<string, Expectation> = {
  // README.md, "The demo"
  'npx bot say --as alice "@greeter hi"': { demo: true, stdout: /^@alice posted \d+: "@greeter hi"\n/ },
  'npx bot say --as bob --wait "@greeter hello"': {
    demo: true,
    // greeter is on basic: polled every 90 s. The test moves the demo's clock instead of waiting.
    meanwhile: { when: /^waiting for @greeter/, then: advanceDemo(90_000) },
    stdout:
      /^@bob posted \d+: "@greeter hello"\nwaiting for @greeter \(a mention, seen at its next mentions poll, every 90 s\) until \d\d:\d\d:\d\d\n@greeter answered \d+: ".*"\nAnswer a reply with --reply-to ITS_ID\.\n$/,
  },
  'npx bot say --as alice --reply-to ID "thanks!"': { demo: true, stdout: /^@alice posted \d+: "thanks!"\n/ },
  'npx bot say --as alice --wait "@helpdesk my brakes squeak"': {
    demo: true,
    // A pro bot: its mentions come through the app's stream; llm-reply asks the sandbox's stand-in (url: sandbox).
    stdout:
      /^@alice posted \d+: "@helpdesk my brakes squeak"\nwaiting for @helpdesk \(a mention, seen through the stream, within seconds\) until \d\d:\d\d:\d\d\n@helpdesk answered \d+: "\(sandbox stand-in, reply \d+\) [A-Z][^"]*[.!] You wrote about \\"brakes squeak\\"\. A language model would answer here\."\nAnswer a reply with --reply-to ITS_ID\.\n$/,
  },
  "npx bot follow --as alice friendly": { demo: true, stdout: /^@alice follows @friendly; / },
  'npx bot say --dm --as alice --wait friendly "hi there"': {
    demo: true,
    // friendly reads its DMs every minute (pro). The test moves the demo's clock instead of waiting.
    meanwhile: { when: /^waiting for @friendly/, then: advanceDemo(60_000) },
    stdout:
      /^@alice sent @friendly a DM \d+ \(conversation \d+-\d+\): "hi there"\nwaiting for @friendly \(reads its DMs every 60 s\) until \d\d:\d\d:\d\d\n@friendly answered \d+: "Hi alice! You wrote \\"hi there\\"\. I am an example bot of postbot: I answer DMs within a minute\."\n$/,
  },
  "npx bot status": { demo: true, stdout: /^greeter  @greeter  basic  running/m },
  // README.md, "Your first bot"
  "npx bot new bot hello": { stdout: /^wrote bots\/hello\.yaml; check it with `npx bot validate`/ },
  "npx bot validate": { stdout: OK_VALIDATE },
  "npx bot schema > bot.schema.json": {
    after: async (session) => {
      const schema = JSON.parse(await readFile(join(session.dir, "bot.schema.json"), "utf8"));
      expect(Object.keys(schema.properties.plugins.properties)).toContain("reply");
    },
  },
  "npx bot start --only hello": {
    serves: { ready: STARTED, stopped: /"msg":"stopped; state saved"/ },
  },
  // README.md, "Your first plugin" and "Testing it"
  "npx bot new plugin shout": { stdout: /^wrote plugins\/shout\.ts and test\/shout\.test\.ts; / },
  "npx vitest run test/shout.test.ts": { stdout: /Tests +1 passed \(1\)/, stderr: /.*/ },
  // docs/llm.md, "Trying it without posting"
  "npx bot start --dry-run --only helpdesk": {
    serves: {
      ready: STARTED,
      stopped: /"msg":"stopped; dry run: the state is as it was"/,
    },
  },
  'npx bot say --as alice "@helpdesk hello"': {
    stdout: /^@alice posted \d+: "@helpdesk hello"\n/,
    after: async (session) => {
      // The dry run's line: the stand-in's whole text, not posted.
      const run = session.serving.at(-1)!.command;
      const line = await run.waitFor(
        /You wrote about \\"hello\\"\. A language model would answer here\.\\": dry run, not sent"/,
      );
      expect(line).toMatch(/"bot":"helpdesk".*"status":"dry-run"/);
    },
  },
  // docs/moderation.md, "Adding a rule" (the steps that retrain and score every labelled reply are syntax only)
  "npx vitest run test/moderation/rules.test.ts": { stdout: /Tests +\d+ passed \(\d+\)/, stderr: /.*/ },
  // docs/moderation.md, "Teach it your community"
  "npx bot moderation score held-back.jsonl": {
    stdout:
      /^precision \d\.\d{3} recall \d\.\d{3} \(tp \d+ fp \d+ fn \d+ tn \d+\)\nscored 4 labelled replies with the shipped model \(none trained in the state\)\n$/,
  },
  "npx bot moderation teach decisions.jsonl": {
    stdout:
      /^decisions\.jsonl: kept 10 labels \(10 new, 0 relabelled, 0 as before\)\. The state holds 10 labels \(6 abusive, 4 fine\): bot moderation train teaches them to the model\n$/,
  },
  "npx bot moderation train": {
    stdout:
      /^trained on 7621 shipped replies and 10 of the operator's labels \(6 abusive, 4 fine\), each counting as 20, in \d+\.\d s; kept in the state: bot start uses it from its next start/,
  },
  "npx bot moderation score held-back.jsonl --misses": {
    stdout:
      /^precision \d\.\d{3} recall \d\.\d{3} \(tp \d+ fp \d+ fn \d+ tn \d+\)\nscored 4 labelled replies with the model trained on 10 of the operator's labels \(6 abusive, 4 fine\)\n(line \d+: (missed|false alarm \([^)]*\)) ".*"\n)*$/,
  },
  // docs/sandbox.md
  "npx bot sandbox --port 8787 --state .sandbox.json": {
    // Ready once it has said how to make an app: the command the document runs next.
    serves: {
      ready:
        /^  curl -s -X POST http:\/\/127\.0\.0\.1:\d+\/_sandbox\/apps -H "Authorization: Bearer \S+" -H "Content-Type: application\/json" -d '\{"name": "my-app"\}'$/,
      stopped: /^sandbox stopped; state saved to \.sandbox\.json$/m,
    },
  },
  'curl -s -X POST http://127.0.0.1:8787/_sandbox/apps -H "Authorization: Bearer ADMIN_TOKEN" -H "Content-Type: application/json" -d \'{"name": "my-app", "plan": "basic"}\'':
    { stdout: /^\{"id":"\d+","name":"my-app","plan":"basic",.*"consumer_key":"[^"]+","consumer_secret":"[^"]+"/ },
  // docs/operations.md, "Metrics, health and the status page"
  "npx bot start --http 127.0.0.1:9464": { serves: { ready: STARTED, stopped: /"msg":"stopped; state saved"/ } },
  "curl -s http://127.0.0.1:9464/metrics | head -n 3": { stdout: /^# HELP postbot_/ },
  "curl -s http://127.0.0.1:9464/readyz": { stdout: /"ready":true/ },
  // docs/operations.md, "The admin API"
  "POSTBOT_ADMIN_TOKEN=change-me-to-a-long-random-token POSTBOT_ADMIN_TOKEN_NAME=ops npx bot start --http 127.0.0.1:9464":
    { serves: { ready: STARTED, stopped: /"msg":"stopped; state saved"/ } },
  'curl -s http://127.0.0.1:9464/api/admin/bots -H "Authorization: Bearer wrong-token"': {
    stdout: /^\{"type":"tag:postbot,2026:admin\/unauthorized","title":"Wrong token","status":401,/,
  },
  'curl -s -X POST http://127.0.0.1:9464/api/admin/bots -H "Authorization: Bearer change-me-to-a-long-random-token" --data-binary @night-owl.yaml':
    {
      stdout: /^\{"bot":\{"name":"night-owl","source":\{"kind":"state","origin":"api"\},"state":"running",.*"by":"ops"/,
    },
  'curl -s -X POST http://127.0.0.1:9464/api/admin/bots -H "Authorization: Bearer change-me-to-a-long-random-token" --data-binary "plan: gold"':
    {
      stdout:
        /^\{"type":"tag:postbot,2026:admin\/invalid-bot-file",.*"status":422,.*"errors":\[.*\{"line":1,"column":7,"key":"plan",/,
    },
  'curl -s -X POST http://127.0.0.1:9464/api/admin/bots/night-owl/pause -H "Authorization: Bearer change-me-to-a-long-random-token" -d \'{"reason": "maintenance"}\'':
    { stdout: /^\{"bot":\{"name":"night-owl",.*"state":"paused","paused":\{"reason":"paused by ops: maintenance;/ },
  'curl -s -X POST http://127.0.0.1:9464/api/admin/bots/night-owl/resume -H "Authorization: Bearer change-me-to-a-long-random-token"':
    {
      stdout: /^\{"bot":\{"name":"night-owl",.*"state":"running"/,
    },
  'curl -s -X DELETE http://127.0.0.1:9464/api/admin/bots/night-owl -H "Authorization: Bearer change-me-to-a-long-random-token" -w "%{http_code}\\n"':
    {
      stdout: /^204\n$/,
      after: async (session) => {
        // Every change logged with the token's name, never its value.
        const log = session.serving.at(-1)!.command.stdout();
        for (const change of ["added (api)", "paused", "resumed", "removed"])
          expect(log).toMatch(new RegExp(`"msg":"bot night-owl ${change.replace(/[()]/g, "\\$&")}[^"]*\\(by ops\\)"`));
        expect(log).not.toContain("change-me-to-a-long-random-token");
      },
    },
  // docs/operations.md, "Accounts that connect themselves"
  'curl -s -o /dev/null -w "%{http_code} %{redirect_url}\\n" http://127.0.0.1:9464/connect/greeter': {
    stdout: /^302 http:\/\/127\.0\.0\.1:\d+\/oauth\/authorize\?oauth_token=\w+\n$/,
  },
};

/** Programs a syntax-only block may use besides `npx bot`, `bot` and `npm`: what this suite cannot run. */
const KNOWN_PROGRAMS = new Set(["export", "redis-server", "docker", "curl", "cd"]);

/** A free loopback port. */
async function freePort(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return String(port);
}

/** The command as the test runs it: free ports, and the ids and token printed before. */
function substitute(command: string, session: Session, where: string): string {
  let text = command;
  for (const [fixed, free] of session.ports) text = text.replaceAll(fixed, free);
  if (/\bID\b/.test(text)) {
    if (!session.lastId) throw new Error(`${where}: ID, but no command before it printed a post id`);
    text = text.replace(/\bID\b/g, session.lastId);
  }
  // The word alone: POSTBOT_ADMIN_TOKEN is a variable's name.
  if (/\bADMIN_TOKEN\b/.test(text)) {
    if (!session.adminToken) throw new Error(`${where}: ADMIN_TOKEN, but no command before it printed one`);
    text = text.replace(/\bADMIN_TOKEN\b/g, session.adminToken);
  }
  return text;
}

/** Remembers the post ids and admin token a command printed, for the commands after it. */
function remember(session: Session, printed: string): void {
  for (const m of printed.matchAll(/(?:posted|answered) (\d+)/g)) session.lastId = m[1];
  for (const m of printed.matchAll(/^admin token: (\S+)$/gm)) session.adminToken = m[1];
}

/** Starts the demo as the README does, and waits for its hint to talk to the bots. */
async function startDemo(session: Session): Promise<Command> {
  const demo = runCommand("npm start", session.dir, session.env);
  await demo.waitFor(/talk to the bots as a user of the demo/);
  return demo;
}

/** Ctrl-C on what serves (and the demo) at the end of a section; each must stop cleanly. */
async function endSection(session: Session): Promise<void> {
  const stopping = session.serving.splice(0);
  if (session.demo)
    stopping.push({ command: session.demo, stopped: /"msg":"stopped; state saved"/, where: "the demo" });
  session.demo = undefined;
  for (const { command, stopped, where } of stopping) {
    await command.interrupt();
    expect(command.stdout(), `${where}: stopped with Ctrl-C`).toMatch(stopped);
  }
}

async function runOne(session: Session, where: string, command: string): Promise<void> {
  const expected = EXPECTED[command];
  if (!expected)
    throw new Error(`${where}: \`${command}\` has no expectation: add one to EXPECTED in test/docs/commands.ts`);
  if (expected.demo && !session.demo) session.demo = await startDemo(session);
  const run = runCommand(substitute(command, session, where), session.dir, session.env);
  if (expected.serves) {
    await run.waitFor(expected.serves.ready);
    remember(session, run.stdout());
    session.serving.push({ command: run, stopped: expected.serves.stopped, where });
    return;
  }
  const meanwhile = expected.meanwhile;
  let doing: Promise<void> | undefined;
  if (meanwhile) run.onLine(meanwhile.when, () => (doing = meanwhile.then(session)));
  const code = await run.done;
  await doing;
  const said = `${where}: \`${command}\`\nstdout:\n${run.stdout()}\nstderr:\n${run.stderr()}`;
  expect(code, said).toBe(expected.exit ?? 0);
  if (expected.stdout) expect(run.stdout(), said).toMatch(expected.stdout);
  if (expected.stderr) expect(run.stderr(), said).toMatch(expected.stderr);
  else expect(run.stderr(), said).toBe("");
  remember(session, run.stdout());
  await expected.after?.(session);
}

/** Runs a document's blocks in order, in a new scratch clone. */
async function runDocument(file: string): Promise<void> {
  const clone = await scratchClone();
  const session: Session = {
    dir: clone.dir,
    // What a reader's shell has that matters: PATH and HOME (npm's cache); never a registry fetch.
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? clone.dir,
      npm_config_offline: "true",
      NO_COLOR: "1",
    },
    ports: new Map([
      ["8787", await freePort()],
      ["9464", await freePort()],
    ]),
    serving: [],
  };
  try {
    let section: string | undefined;
    for (const block of docBlocks(file)) {
      if (block.section !== section) await endSection(session);
      section = block.section;
      if (block.marker?.kind === "file") {
        await mkdir(dirname(join(clone.dir, block.marker.path)), { recursive: true });
        await writeFile(join(clone.dir, block.marker.path), block.text);
      } else if (block.lang === "sh" && !block.marker) {
        for (const { line, command } of commandsOf(block)) await runOne(session, `${file}:${line}`, command);
      }
    }
    await endSection(session);
  } finally {
    await killCommands();
    await clone.remove();
  }
}

/** The simple commands of a line: words split as sh splits them, at `&&`, `||`, `;` and `|`. */
function simpleCommands(line: string): string[][] {
  const out: string[][] = [[]];
  let redirect = false;
  for (const entry of parse(line, (name) => `$${name}`) as ParseEntry[]) {
    if (typeof entry === "string") {
      if (redirect) redirect = false;
      else out.at(-1)!.push(entry);
    } else if ("op" in entry && [">", ">>", "<"].includes(entry.op)) redirect = true;
    else if ("op" in entry) out.push([]);
  }
  return out.filter((words) => words.length > 0);
}

/** Checks a command the suite does not run: the CLI parses it; its npm script exists; its program is known. */
async function checkSyntax(where: string, line: string[], scripts: Record<string, string>): Promise<void> {
  const first = line.findIndex((w) => !/^\w+=/.test(w)); // leading VAR=value assignments aside
  if (first < 0) return; // only assignments
  const [program, ...args] = line.slice(first);
  if (program === "npx" && args[0] === "bot") return parseBot(where, args.slice(1));
  // `npx -p postbot bot ...`: postbot from the registry, then its bot.
  if (program === "npx" && args[0] === "-p" && args[1] === "postbot" && args[2] === "bot")
    return parseBot(where, args.slice(3));
  if (program === "npx" && args[0] === "tsx") {
    expect(existsSync(args[1]!), `${where}: npx tsx ${args[1]}: no such script`).toBe(true);
    return;
  }
  if (program === "npx" && args[0] === "vitest") {
    for (const file of args.filter((a) => a.endsWith(".ts"))) expect(existsSync(file), `${where}: ${file}`).toBe(true);
    return;
  }
  if (program === "bot") return parseBot(where, args);
  if (program === "npm") {
    const [verb, name] = args;
    if (verb === "run") expect(Object.keys(scripts), `${where}: npm run ${name}`).toContain(name);
    else if (verb === "start" || verb === "test") expect(Object.keys(scripts), `${where}: npm ${verb}`).toContain(verb);
    else expect(["install", "ci", "pack"], `${where}: npm ${verb}`).toContain(verb);
    return;
  }
  expect(KNOWN_PROGRAMS.has(program!), `${where}: ${program} is not a program test/docs/commands.ts knows`).toBe(true);
}

/** `bot ARGS` through the CLI's own parser, with every command's action replaced by nothing. */
async function parseBot(where: string, args: string[]): Promise<void> {
  const program = await buildProgram();
  let errors = "";
  const quiet = (cmd: Command_) => {
    cmd.configureOutput({ writeErr: (s) => void (errors += s), writeOut: () => {} });
    if (cmd.commands.length === 0) cmd.action(() => {});
    for (const sub of cmd.commands) quiet(sub);
  };
  quiet(program);
  try {
    await program.parseAsync(["node", "bot", ...args]);
  } catch (err) {
    throw new Error(`${where}: bot ${args.join(" ")}: ${errors || (err as Error).message}`);
  }
}

/**
 * Declares, inside a `describe`, the tests of `files` (README.md, docs/NAME.md): each one's
 * commands run as written, and those it does not run parse. Every command still running is
 * killed after each test.
 */
export function documentTests(files: readonly string[]): void {
  afterEach(killCommands);
  for (const file of files) {
    const blocks = docBlocks(file);
    const shell = (b: DocBlock) => b.lang === "sh";
    if (blocks.some((b) => shell(b) && !b.marker))
      it(`${file}: every command runs as written`, () => runDocument(file), 300_000);
    if (blocks.some((b) => shell(b) && b.marker?.kind === "syntax only"))
      it(`${file}: the commands it does not run parse`, async () => {
        const { scripts } = JSON.parse(await readFile("package.json", "utf8")) as { scripts: Record<string, string> };
        for (const block of blocks.filter((b) => shell(b) && b.marker?.kind === "syntax only"))
          for (const { line, command } of commandsOf(block))
            for (const words of simpleCommands(command)) await checkSyntax(`${file}:${line}`, words, scripts);
      });
  }
}

/** The commands the documents run, each once (what {@link EXPECTED} must know, and nothing else). */
export function documentedCommands(): { documented: Set<string>; expected: string[] } {
  const documented = new Set(
    docFiles().flatMap((file) =>
      docBlocks(file)
        .filter((b) => b.lang === "sh" && !b.marker)
        .flatMap((b) => commandsOf(b).map((c) => c.command)),
    ),
  );
  return { documented, expected: Object.keys(EXPECTED) };
}
