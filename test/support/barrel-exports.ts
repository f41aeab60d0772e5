import { join } from 'node:path';
import * as ts from 'typescript';
import { REPO_ROOT } from './env';

function kindOf(symbol: ts.Symbol): string {
  const f = symbol.flags;
  if (f & ts.SymbolFlags.Class) return 'class';
  if (f & ts.SymbolFlags.Function) return 'function';
  if (f & ts.SymbolFlags.Enum) return 'enum';
  if (f & ts.SymbolFlags.Variable) return 'const';
  if (f & ts.SymbolFlags.Interface) return 'interface';
  if (f & ts.SymbolFlags.TypeAlias) return 'type';
  return 'other';
}

const programs = new Map<string, ts.Symbol[]>();

/** A barrel's exported symbols; one program per barrel and test file. */
function barrelSymbols(barrel: string): ts.Symbol[] {
  const known = programs.get(barrel);
  if (known) return known;
  const configPath = join(REPO_ROOT, 'tsconfig.json');
  const { config } = ts.readConfigFile(configPath, (p) => ts.sys.readFile(p));
  const { options } = ts.parseJsonConfigFileContent(config, ts.sys, REPO_ROOT);
  const file = join(REPO_ROOT, barrel);
  // No ambient @types packages: the barrel's own declarations say what it exports, and
  // parsing @types/node and the others would be most of the work.
  const program = ts.createProgram([file], { ...options, noEmit: true, types: [] });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(file);
  const moduleSymbol = source && checker.getSymbolAtLocation(source);
  if (!moduleSymbol) throw new Error(`${barrel} is not a module`);
  const symbols = checker
    .getExportsOfModule(moduleSymbol)
    .map((symbol) =>
      symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol,
    );
  programs.set(barrel, symbols);
  return symbols;
}

/**
 * The public surface of a library barrel as `"<kind> <name>"` lines, sorted by name: values
 * and types alike (a type-only export is API too), read with the TypeScript checker.
 */
export function barrelExports(barrel: string): string[] {
  return barrelSymbols(barrel)
    .map((symbol) => `${kindOf(symbol)} ${symbol.getName()}`)
    .sort((a, b) => a.split(' ')[1]!.localeCompare(b.split(' ')[1]!));
}

/** The names a barrel exports whose declaration is tagged `@internal` (sorted). */
export function internalExports(barrel: string): string[] {
  const symbols = barrelSymbols(barrel);
  const internal = (symbol: ts.Symbol) =>
    (symbol.declarations ?? []).some((d) => {
      const node = ts.isVariableDeclaration(d) ? d.parent.parent : d;
      return ts.getJSDocTags(node).some((tag) => tag.tagName.text === 'internal');
    });
  return symbols
    .filter(internal)
    .map((s) => s.getName())
    .sort();
}
