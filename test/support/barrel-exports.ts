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

/**
 * The public surface of a library barrel as `"<kind> <name>"` lines, sorted: values and types
 * alike (a type-only export is API too), read with the TypeScript checker from the sources.
 */
export function barrelExports(barrel: string): string[] {
  const configPath = join(REPO_ROOT, 'tsconfig.json');
  const { config } = ts.readConfigFile(configPath, (p) => ts.sys.readFile(p));
  const { options } = ts.parseJsonConfigFileContent(config, ts.sys, REPO_ROOT);
  const file = join(REPO_ROOT, barrel);
  const program = ts.createProgram([file], { ...options, noEmit: true });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(file);
  const moduleSymbol = source && checker.getSymbolAtLocation(source);
  if (!moduleSymbol) throw new Error(`${barrel} is not a module`);
  return checker
    .getExportsOfModule(moduleSymbol)
    .map((symbol) => {
      const target =
        symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
      return `${kindOf(target)} ${symbol.getName()}`;
    })
    .sort((a, b) => a.split(' ')[1]!.localeCompare(b.split(' ')[1]!));
}
