/**
 * Bot templates (`templates/NAME.yaml`): a bot file for accounts that connect themselves
 * through the web (`bot start --http`, `GET /connect/NAME`). It is a bot file in every way but
 * one: its `name` and texts may say `{account.username}`, the username of the account that
 * connects, and it has no `account:` (the bot runs as the account that connected, whose token
 * is stored under the bot's name, as `bot auth login --account NAME` stores one).
 *
 * A template is checked by rendering it for {@link SAMPLE_USERNAME} and checking the result
 * exactly like a bot file, its problems pointed back at the template's own lines and columns;
 * so what `bot validate` accepts renders into a valid bot for any username. In the `name`,
 * the username takes a bot name's form ({@link usernameInName}: `Ana_B` → `ana-b`); elsewhere
 * it is written as the service spells it.
 */
import { readdirSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { isPair, isScalar, visit } from "yaml";
import { displayPath } from "../display-path.ts";
import { readBotFile } from "./bot-file-size.ts";
import type { BotConfig } from "./load-bots.ts";
import type { BotFileProblem } from "./problem.ts";
import { BOT_NAME_PATTERN } from "./schema.ts";
import { applyReplacements, originalOffset, type Replacement } from "./replacements.ts";
import { parseYamlSource, type YamlSource } from "./yaml-source.ts";

/** The one placeholder of templates. */
export const ACCOUNT_PLACEHOLDER = "{account.username}";

/**
 * The username a template is checked with: as long as the service allows (15 characters),
 * with capitals and an underscore, so a name that grows too long or a form the name cannot
 * take shows when the template is checked, not when someone connects.
 */
export const SAMPLE_USERNAME = "Sample_Account1";

/** Where templates are by default (`--templates`): `templates/` next to the bots directory. */
export const templatesDirOf = (botsDir: string) => join(dirname(botsDir), "templates");

/** Template files: `NAME.yaml` (or `.yml`), NAME being what `/connect/NAME` says. */
const TEMPLATE_FILE = /^(.*)\.ya?ml$/;

/** Names the connect pages use for themselves (`/connect/callback`, `/connect/disconnect`). */
const RESERVED = new Set(["callback", "disconnect"]);

/**
 * A username as it appears in a bot's name: lower case, `_` as `-` (bot names allow a-z, 0-9
 * and `-`). Usernames are unique regardless of case and never hold `-`, so two accounts never
 * share a bot name.
 */
export const usernameInName = (username: string) => username.toLowerCase().replaceAll("_", "-");

/** A template as read from its file. */
export interface Template {
  /** What `/connect/NAME` says: the file's name without `.yaml`. */
  name: string;
  /** The file, as problems show it. */
  file: string;
  text: string;
}

/** Every template of a directory, and what kept a file from being one. */
export interface ReadTemplates {
  templates: Template[];
  problems: BotFileProblem[];
}

/**
 * Reads the templates of `dir` (none when it does not exist: templates are optional). A file
 * whose name cannot be a `/connect/NAME` path is a problem, not a template.
 */
export function readTemplates(dir: string, cwd = process.cwd()): ReadTemplates {
  const full = resolve(cwd, dir);
  let names: string[];
  try {
    if (!statSync(full).isDirectory()) return { templates: [], problems: [] };
    names = readdirSync(full)
      .filter((f) => TEMPLATE_FILE.test(f))
      .sort();
  } catch {
    return { templates: [], problems: [] };
  }
  const templates: Template[] = [];
  const problems: BotFileProblem[] = [];
  for (const entry of names) {
    const file = displayPath(join(full, entry), cwd);
    const name = TEMPLATE_FILE.exec(entry)![1]!;
    if (!BOT_NAME_PATTERN.test(name)) {
      problems.push({
        file,
        message: `a template's file name is the NAME of its page /connect/NAME: use lower-case letters, digits and dashes (rename it, e.g. ${usernameInName(name).replace(/[^a-z0-9-]/g, "-") || "greeter"}.yaml)`,
      });
      continue;
    }
    if (RESERVED.has(name)) {
      problems.push({
        file,
        message: `/connect/${name} is a page of its own, so no template may be named ${name}; rename the file`,
      });
      continue;
    }
    try {
      const read = readBotFile(resolve(cwd, file), file);
      if ("problem" in read) problems.push(read.problem);
      else templates.push({ name, file, text: read.text });
    } catch (err) {
      problems.push({ file, message: `cannot be read: ${(err as Error).message}` });
    }
  }
  return { templates, problems };
}

/** A template rendered for one account. */
export interface RenderedTemplate {
  /** The bot file's text for the account (the template's own text when it cannot be read as YAML). */
  text: string;
  /** What is wrong with the template as a template (positions in the template). */
  problems: BotFileProblem[];
  /** A problem found in {@link text}, pointed at the same place in the template. */
  original(problem: BotFileProblem): BotFileProblem;
}

/** The placeholders of a template's values: what replaces each, and the ones that are no placeholder. */
interface Placeholders {
  replacements: Replacement[];
  /** Whether the top-level `name` holds {@link ACCOUNT_PLACEHOLDER}. */
  nameHasPlaceholder: boolean;
  problems: BotFileProblem[];
}

/** A problem at an offset of the template (and of a key, when it is about one). */
type ProblemAt = (offset: number, message: string, key?: string) => BotFileProblem;

/**
 * Renders a template for an account: `{account.username}` replaced in the values (in `name`
 * by {@link usernameInName}), everything else as written (comments and layout too, so problems
 * point where the template's author looks). Checks what only templates have: no other
 * `{account.…}`, no `account:`, and a `name` that holds the placeholder.
 */
export function renderTemplate(template: Template, username: string): RenderedTemplate {
  const { text, file } = template;
  const parsed = parseYamlSource(text);
  const identity = { text, original: (p: BotFileProblem) => p };
  // Not YAML: checking the text as it is reports where, at the right place.
  if (!parsed.source) return { ...identity, problems: [] };
  const { source } = parsed;
  const at: ProblemAt = (offset, message, key) => ({
    file,
    ...source.position(offset),
    ...(key ? { key } : {}),
    message,
  });
  const found = placeholders(source, text, username, at);
  const problems = [...found.problems, ...shapeProblems(source, found.nameHasPlaceholder, at)];
  if (source.doc.contents === null) return { ...identity, problems };

  const replacements = found.replacements.sort((a, b) => a.at - b.at);
  const rendered = applyReplacements(text, replacements);
  const renderedLines = lineStarts(rendered);
  return {
    text: rendered,
    problems,
    original(problem) {
      if (problem.line === undefined) return { ...problem, file };
      const offset = (renderedLines[problem.line - 1] ?? rendered.length) + (problem.col ?? 1) - 1;
      return { ...problem, file, ...source.position(originalOffset(replacements, offset)) };
    },
  };
}

/** Every `{account.…}` in the template's values: the username's replacements, the others as problems. */
function placeholders(source: YamlSource, text: string, username: string, at: ProblemAt): Placeholders {
  const found: Placeholders = { replacements: [], nameHasPlaceholder: false, problems: [] };
  visit(source.doc, {
    Scalar(key, node, path) {
      if (key === "key" || typeof node.value !== "string" || !node.range) return;
      const parent = path.at(-1);
      const isName = path.length === 3 && isPair(parent) && isScalar(parent.key) && parent.key.value === "name";
      const start = node.range[0];
      const raw = text.slice(start, node.range[1]);
      for (const match of raw.matchAll(/\{account\.([^}\s]*)\}/g)) {
        const offset = start + match.index;
        if (match[1] !== "username") {
          found.problems.push(
            at(
              offset,
              `${match[0]} is not a placeholder of templates; the one there is is ${ACCOUNT_PLACEHOLDER} (the username of the account that connects)`,
            ),
          );
          continue;
        }
        if (isName) found.nameHasPlaceholder = true;
        found.replacements.push({
          at: offset,
          length: match[0].length,
          by: isName ? usernameInName(username) : username,
        });
      }
    },
  });
  return found;
}

/** What a template's top level must be: no `account:`, and a `name` that holds the placeholder. */
function shapeProblems(source: YamlSource, nameHasPlaceholder: boolean, at: ProblemAt): BotFileProblem[] {
  const problems: BotFileProblem[] = [];
  const nameNode = source.doc.get("name", true);
  if (source.doc.has("account"))
    problems.push(
      at(
        source.locate(["account"], "key"),
        "a template has no account: its bot runs as the account that connects (the token is stored under the bot's name); remove account:",
        "account",
      ),
    );
  if (nameNode !== undefined && !nameHasPlaceholder)
    problems.push(
      at(
        source.locate(["name"], "value"),
        isScalar(nameNode)
          ? `the name of a template must hold ${ACCOUNT_PLACEHOLDER} (e.g. "greeter-${ACCOUNT_PLACEHOLDER}"), so that each account that connects gets a bot of its own`
          : `the name of a template is text holding ${ACCOUNT_PLACEHOLDER}; quote it: name: "greeter-${ACCOUNT_PLACEHOLDER}" (unquoted, { starts a mapping)`,
        "name",
      ),
    );
  return problems;
}

/** The offset where each line of `text` starts. */
function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) starts.push(i + 1);
  return starts;
}

/** Checks a bot file's text as `bot validate` checks a file (`loadBotText` with the fleet's plugins and environment). */
export type BotTextCheck = (file: string, text: string) => Promise<{ bot?: BotConfig; problems: BotFileProblem[] }>;

/**
 * A template rendered for `username` and checked as the bot file it becomes: the bot and its
 * text, or the problems, each pointed at the template's own line and column. With
 * {@link SAMPLE_USERNAME}, this is how `bot validate` and `bot start` check a template.
 */
export async function renderChecked(
  template: Template,
  username: string,
  check: BotTextCheck,
): Promise<{ bot: BotConfig; text: string } | { problems: BotFileProblem[] }> {
  const rendered = renderTemplate(template, username);
  if (rendered.problems.length > 0) return { problems: rendered.problems };
  const checked = await check(template.file, rendered.text);
  if (!checked.bot) return { problems: checked.problems.map((p) => rendered.original(p)) };
  return { bot: checked.bot, text: rendered.text };
}
