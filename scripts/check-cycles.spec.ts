import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { cyclesOf, libCycles } from './check-cycles';

const ROOT = join(__dirname, '..');

describe('import cycles inside the libraries', () => {
  it.each(readdirSync(join(ROOT, 'libs')))('libs/%s has no file or folder cycle', (lib) => {
    const { files, folders } = libCycles(ROOT, lib);
    expect([...files, ...folders]).toEqual([]);
  });

  it('finds a cycle that closes through several files and none in a tree', () => {
    const graph = (edges: Record<string, string[]>) => new Map(Object.entries(edges));
    expect(cyclesOf(graph({ a: ['b'], b: ['c'], c: ['a'] }))).toEqual([['a', 'b', 'c', 'a']]);
    expect(cyclesOf(graph({ a: ['b', 'c'], b: ['c'], c: [] }))).toEqual([]);
  });
});
