/**
 * One bot file, from text to a typed {@link BotFile} or a list of `file:line:col`
 * problems: YAML checked for safety, `${VAR}` interpolated, then the schema, each issue
 * pointed back at the key or value it is about.
 */
import { interpolate, type BotEnv } from "./env.ts";
import { errorMap, explainIssues, formatPath, showValue, type PathProblem } from "./messages.ts";
import { compareProblems, type BotFileProblem } from "./problem.ts";
import { botFileSchema, type BotFile } from "./schema.ts";
import { parseYamlSource, toData, type SourceProblem, type YamlSource } from "./yaml-source.ts";

/** A bot file after loading: the bot when it is valid, and every problem found. */
export interface ParsedBotFile {
  file: string;
  bot?: BotFile;
  problems: BotFileProblem[];
  /**
   * Turns a problem about a key path of this file into a positioned {@link BotFileProblem}; the
   * loader uses it for problems found later (plugins' options, duplicate names).
   */
  problemAt(problem: PathProblem): BotFileProblem;
  /** The file's data as its YAML and `${VAR}`s read it, when the schema found it good (what ./compiled-index.ts keeps). */
  data?: unknown;
}

/**
 * Parses and validates one bot file. Never throws for anything in the file.
 *
 * @param file the path to show in problems
 * @param text the file's contents
 */
export function parseBotFile(file: string, text: string, env: BotEnv): ParsedBotFile {
  const { source, problems: syntax, position } = parseYamlSource(text);
  const atOffset = (p: SourceProblem): BotFileProblem => ({ file, ...position(p.offset), message: p.message });
  if (!source) {
    return {
      file,
      problems: syntax.map(atOffset),
      problemAt: (p) => ({ file, key: keyOf(p.path), message: p.message }),
    };
  }
  const problemAt = (p: PathProblem): BotFileProblem => ({
    file,
    ...source.position(source.locate(p.path, p.at)),
    key: keyOf(p.path),
    message: p.message,
  });
  const result: ParsedBotFile = { file, problems: [], problemAt };

  const missing = interpolate(source, text, env);
  if (missing.length > 0) {
    result.problems = missing.map(atOffset);
    return result;
  }
  const { data, problems: expansion } = toData(source);
  if (expansion.length > 0) {
    result.problems = expansion.map(atOffset);
    return result;
  }
  if (data === null || data === undefined || typeof data !== "object" || Array.isArray(data)) {
    result.problems = [
      {
        file,
        ...source.position(rootOffset(source)),
        message: `a bot file is a mapping (key: value lines) with at least name and plan; this one holds ${showValue(data)}`,
      },
    ];
    return result;
  }
  const parsed = botFileSchema.safeParse(data, { error: errorMap });
  if (parsed.success) {
    result.bot = parsed.data;
    result.data = data;
  } else result.problems = explainIssues(parsed.error.issues, botFileSchema).map(problemAt).sort(compareProblems);
  return result;
}

const keyOf = (path: readonly PropertyKey[]) => (path.length > 0 ? formatPath(path) : undefined);

const rootOffset = (source: YamlSource) => source.doc.contents?.range?.[0] ?? 0;

/**
 * {@link parseBotFile} from the data a compiled index kept for this text (./compiled-index.ts):
 * the schema checks it as ever, and a problem found later is placed by parsing the text then.
 * `undefined` when the schema refuses it (the caller parses the file, for the problems' positions).
 */
export function botFromData(
  file: string,
  text: string | (() => string),
  env: BotEnv,
  data: unknown,
): ParsedBotFile | undefined {
  const parsed = botFileSchema.safeParse(data, { error: errorMap });
  if (!parsed.success) return undefined;
  return { file, bot: parsed.data, problems: [], problemAt: placedLater(file, text, env), data };
}

/**
 * A `problemAt` that parses the text only when a problem comes (rarely): no document is kept
 * meanwhile (`text` a function: not even the text, read when a problem comes).
 */
export function placedLater(file: string, text: string | (() => string), env: BotEnv): ParsedBotFile["problemAt"] {
  let parsed: ParsedBotFile | undefined;
  return (p) => {
    parsed ??= parseBotFile(file, typeof text === "string" ? text : text(), env);
    return parsed.problemAt(p);
  };
}
