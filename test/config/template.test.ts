/**
 * Templates (`templates/NAME.yaml`): rendered for an account, `{account.username}` in its name
 * takes a bot name's form and elsewhere the username as written; what only templates can get
 * wrong is a problem at its place; and a problem of the rendered bot file points at the
 * template's own line and column, though the username is shorter than the placeholder.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { formatProblem, parseBotFile } from "../../src/config/index.ts";
import {
  readTemplates,
  renderTemplate,
  SAMPLE_USERNAME,
  usernameInName,
  type Template,
} from "../../src/config/template.ts";

const template = (text: string): Template => ({ name: "greeter", file: "templates/greeter.yaml", text });

const GREETER = `# a greeter for whoever connects
name: "greeter-{account.username}"
plan: basic
triggers:
  mentions: {}
plugins:
  reply:
    text: "Hi @{author.username}! I answer for @{account.username}."
`;

const env = { vars: {}, files: [], suggestedFile: ".env" };

describe("rendering a template for an account", () => {
  it("puts the username in the name as a bot name (lower case, - for _) and as written elsewhere", () => {
    const rendered = renderTemplate(template(GREETER), "Ana_B");
    expect(rendered.problems).toEqual([]);
    expect(rendered.text).toContain(`name: "greeter-ana-b"`);
    expect(rendered.text).toContain("I answer for @Ana_B.");
    // Everything else, comments and layout, as written; other placeholders are the plugins'.
    expect(rendered.text).toContain("# a greeter for whoever connects");
    expect(rendered.text).toContain("Hi @{author.username}!");
    const parsed = parseBotFile("x", rendered.text, env);
    expect(parsed.problems).toEqual([]);
    expect(parsed.bot?.name).toBe("greeter-ana-b");
  });

  it("checks with a sample as long as a username may be, with a capital and an underscore", () => {
    expect(SAMPLE_USERNAME).toHaveLength(15);
    expect(usernameInName(SAMPLE_USERNAME)).toMatch(/^[a-z0-9-]+$/);
    expect(renderTemplate(template(GREETER), SAMPLE_USERNAME).text).toContain(
      `greeter-${usernameInName(SAMPLE_USERNAME)}`,
    );
  });

  it("refuses what only a template can get wrong, each at its place", () => {
    const rendered = renderTemplate(
      template(`name: greeter
plan: basic
account: {stored: me}
plugins:
  reply:
    text: "Hello from {account.name}"
`),
      "ana",
    );
    expect(rendered.problems.map(formatProblem)).toEqual([
      "templates/greeter.yaml:6:23 {account.name} is not a placeholder of templates; the one there is is {account.username} (the username of the account that connects)",
      "templates/greeter.yaml:3:1 account: a template has no account: its bot runs as the account that connects (the token is stored under the bot's name); remove account:",
      `templates/greeter.yaml:1:7 name: the name of a template must hold {account.username} (e.g. "greeter-{account.username}"), so that each account that connects gets a bot of its own`,
    ]);
  });

  it("says to quote a name that YAML read as a mapping", () => {
    const rendered = renderTemplate(template("name: {account.username}\nplan: basic\n"), "ana");
    expect(rendered.problems.map(formatProblem)).toEqual([
      `templates/greeter.yaml:1:1 name: the name of a template is text holding {account.username}; quote it: name: "greeter-{account.username}" (unquoted, { starts a mapping)`,
    ]);
  });

  it("points a problem of the rendered file at the template's line and column, after a shorter username", () => {
    // Two placeholders before the mistake on its line: the rendered line is 2 × 15 characters shorter.
    const text = `name: "x-{account.username}"
plan: basic
triggers: {mentions: {}, mentoins: {}}
plugins:
  reply: {text: "{account.username} {account.username}", events: [mention, sometimes]}
`;
    const t = template(text);
    const rendered = renderTemplate(t, "ana");
    expect(rendered.problems).toEqual([]);
    const problems = parseBotFile(t.file, rendered.text, env).problems.map((p) => formatProblem(rendered.original(p)));
    const col = text.split("\n")[4]!.indexOf("sometimes") + 1;
    expect(problems).toContain(
      `templates/greeter.yaml:3:26 triggers.mentoins: unknown key; did you mean "mentions"? Allowed here: mentions, followers, dms, stream, schedule`,
    );
    // The plugin's options are checked later (by the loader); the position rule is the same.
    const position = rendered.original({
      file: t.file,
      line: 5,
      col: rendered.text.split("\n")[4]!.indexOf("sometimes") + 1,
      message: "m",
    });
    expect(position).toMatchObject({ line: 5, col });
    // Inside a replaced username: the placeholder's start.
    const inside = rendered.original({ file: t.file, line: 1, col: 11, message: "m" });
    expect(inside).toMatchObject({ line: 1, col: 10 });
  });

  it("leaves a text that is not YAML as it is, so its syntax problem shows where it is", () => {
    const text = "name: [greeter-{account.username}\nplan: basic\n";
    const rendered = renderTemplate(template(text), "ana");
    expect(rendered.text).toBe(text);
    expect(rendered.problems).toEqual([]);
  });
});

describe("reading the templates directory", () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it("reads NAME.yaml files; a name that cannot be a /connect/NAME page is a problem; no directory is no templates", () => {
    dir = mkdtempSync(join(tmpdir(), "postbot-templates-"));
    const templates = join(dir, "templates");
    mkdirSync(templates);
    writeFileSync(join(templates, "greeter.yaml"), GREETER);
    writeFileSync(join(templates, "Shop Helper.yaml"), GREETER);
    writeFileSync(join(templates, "callback.yml"), GREETER);
    writeFileSync(join(templates, "notes.txt"), "not a template");
    const read = readTemplates("templates", dir);
    expect(read.templates.map((t) => [t.name, t.file])).toEqual([["greeter", "templates/greeter.yaml"]]);
    expect(read.problems.map(formatProblem)).toEqual([
      "templates/Shop Helper.yaml a template's file name is the NAME of its page /connect/NAME: use lower-case letters, digits and dashes (rename it, e.g. shop-helper.yaml)",
      "templates/callback.yml /connect/callback is a page of its own, so no template may be named callback; rename the file",
    ]);
    expect(readTemplates("nowhere", dir)).toEqual({ templates: [], problems: [] });
  });
});
