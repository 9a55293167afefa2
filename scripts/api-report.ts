/**
 * The public surface of the package, as text: every name each entry (`postbot`,
 * `postbot/testing`, `postbot/sandbox`) exports, with its type as the TypeScript checker sees
 * it (an interface's members one by one). Checked in as api-report.md; a test compares it
 * with the code (test/architecture/api-report.test.ts), so a change to what plugin authors
 * import shows in review. `npm run api:report` writes it again after a deliberate change.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const ROOT = fileURLToPath(new URL("../", import.meta.url));

/** The entries, by the name they are imported with, and their source. */
export const API_ENTRIES = {
  postbot: "src/index.ts",
  "postbot/testing": "src/testing.ts",
  "postbot/sandbox": "src/sandbox/index.ts",
} as const;

/** The checked-in report. */
export const REPORT_FILE = join(ROOT, "api-report.md");

const FLAGS = ts.TypeFormatFlags.NoTruncation | ts.TypeFormatFlags.UseSingleQuotesForStringLiteralType;

const printer = ts.createPrinter({ removeComments: true, newLine: ts.NewLineKind.LineFeed });

/** A member's or alias's type as written (its type node, without comments, on one line), else as the checker sees it. */
function written(checker: ts.TypeChecker, symbol: ts.Symbol): string {
  const decl = symbol.declarations?.[0] as { type?: ts.TypeNode } | undefined;
  if (decl?.type) {
    const text = printer.printNode(ts.EmitHint.Unspecified, decl.type, decl.type.getSourceFile());
    return text.replace(/\s*\n\s*/g, " ");
  }
  return checker.typeToString(checker.getTypeOfSymbol(symbol), undefined, FLAGS);
}

function program(): ts.Program {
  const config = ts.getParsedCommandLineOfConfigFile(
    join(ROOT, "tsconfig.json"),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: () => {},
    },
  )!;
  return ts.createProgram(
    Object.values(API_ENTRIES).map((f) => join(ROOT, f)),
    config.options,
  );
}

/** One exported name as lines of the report. */
function describe(checker: ts.TypeChecker, exported: ts.Symbol, name: string, indent: string): string[] {
  const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
  const decl = symbol.declarations?.[0];
  const lines: string[] = [];
  if (symbol.flags & ts.SymbolFlags.Module && decl && ts.isSourceFile(decl)) {
    lines.push(`${indent}- \`${name}\` (namespace):`);
    for (const inner of checker.getExportsOfModule(symbol).sort(byName))
      lines.push(...describe(checker, inner, inner.name, `${indent}  `));
    return lines;
  }
  if (symbol.flags & ts.SymbolFlags.Interface) {
    const type = checker.getDeclaredTypeOfSymbol(symbol);
    lines.push(`${indent}- \`${name}\` (interface${typeParameters(checker, type)})`);
    for (const member of checker.getPropertiesOfType(type)) {
      const optional = member.flags & ts.SymbolFlags.Optional ? "?" : "";
      lines.push(`${indent}  - \`${memberName(member)}${optional}\`: \`${written(checker, member)}\``);
    }
    return lines;
  }
  if (symbol.flags & ts.SymbolFlags.TypeAlias) {
    const params = (decl as ts.TypeAliasDeclaration).typeParameters?.map((p) => p.getText()).join(", ");
    lines.push(`${indent}- \`${name}${params ? `<${params}>` : ""}\` (type): \`${written(checker, symbol)}\``);
    return lines;
  }
  if (symbol.flags & ts.SymbolFlags.Class) {
    const instance = checker.getDeclaredTypeOfSymbol(symbol);
    lines.push(`${indent}- \`${name}\` (class${typeParameters(checker, instance)})`);
    const statics = checker.getTypeOfSymbol(symbol);
    for (const signature of statics.getConstructSignatures())
      lines.push(`${indent}  - constructor: \`${checker.signatureToString(signature, undefined, FLAGS)}\``);
    for (const member of checker.getPropertiesOfType(instance).filter(isPublic))
      lines.push(`${indent}  - \`${memberName(member)}\`: \`${written(checker, member)}\``);
    return lines;
  }
  const type = checker.getTypeOfSymbol(symbol);
  lines.push(`${indent}- \`${name}\`: \`${checker.typeToString(type, undefined, FLAGS)}\``);
  return lines;
}

function typeParameters(checker: ts.TypeChecker, type: ts.Type): string {
  const params = (type as ts.InterfaceType).typeParameters;
  return params?.length ? ` <${params.map((p) => checker.typeToString(p)).join(", ")}>` : "";
}

/**
 * A member's name as written: a well-known symbol's (`__@asyncIterator@1217` to the checker,
 * its number changing with every type added anywhere) as `[Symbol.asyncIterator]`.
 */
const memberName = (member: ts.Symbol) => member.name.replace(/^__@(\w+)@\d+$/, "[Symbol.$1]");

/**
 * A class member users can reach: not `private` nor `#private`. What a class keeps to itself
 * is not part of the surface, and listing it made every internal change churn the report.
 */
function isPublic(member: ts.Symbol): boolean {
  const decl = member.valueDeclaration ?? member.declarations?.[0];
  if (!decl) return true;
  if (ts.isPrivateIdentifier((decl as { name?: ts.Node }).name ?? decl)) return false;
  return (ts.getCombinedModifierFlags(decl as ts.Declaration) & ts.ModifierFlags.Private) === 0;
}

const byName = (a: ts.Symbol, b: ts.Symbol) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** The report's text, from the code as it is. */
export function apiReport(): string {
  const prog = program();
  const checker = prog.getTypeChecker();
  const parts = [
    "# postbot's public API",
    "",
    "Generated by `npm run api:report` (scripts/api-report.ts) from the package's three entries; do not",
    "edit by hand. A test compares it with the code: a change here is a change to what users import.",
  ];
  for (const [entry, file] of Object.entries(API_ENTRIES)) {
    const source = prog.getSourceFile(join(ROOT, file))!;
    const module = checker.getSymbolAtLocation(source)!;
    parts.push("", `## ${entry}`, "");
    for (const exported of checker.getExportsOfModule(module).sort(byName))
      parts.push(...describe(checker, exported, exported.name, ""));
  }
  return `${parts.join("\n")}\n`;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(REPORT_FILE, apiReport());
  process.stdout.write(`wrote ${REPORT_FILE}\n`);
}
