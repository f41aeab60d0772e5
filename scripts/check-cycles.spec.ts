import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { cyclesOf, libCycles } from './check-cycles';

const ROOT = join(__dirname, '..');

/**
 * Cycles known on main and owned elsewhere: the inbox's are removed by its rewrite (issue 32);
 * delete this entry then. Nothing may be added here.
 */
const KNOWN: Readonly<Record<string, number>> = { inbox: 8 };

describe('import cycles inside the libraries', () => {
  it.each(readdirSync(join(ROOT, 'libs')))('libs/%s has no file or folder cycle', (lib) => {
    const { files, folders } = libCycles(ROOT, lib);
    const found = [...files, ...folders];
    if (KNOWN[lib] === undefined) expect(found).toEqual([]);
    else expect(found.length).toBeLessThanOrEqual(KNOWN[lib]);
  });

  it('finds a cycle that closes through several files and none in a tree', () => {
    const graph = (edges: Record<string, string[]>) => new Map(Object.entries(edges));
    expect(cyclesOf(graph({ a: ['b'], b: ['c'], c: ['a'] }))).toEqual([['a', 'b', 'c', 'a']]);
    expect(cyclesOf(graph({ a: ['b', 'c'], b: ['c'], c: [] }))).toEqual([]);
  });
});
