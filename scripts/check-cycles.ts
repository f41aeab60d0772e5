/**
 * Import cycles inside each library: between files, and between folders (a folder's files
 * importing another folder's while that one's import back; the lib's root folder, which wires
 * everything, is left out). Relative imports only, type-only imports included.
 * `node -r ts-node/register scripts/check-cycles.ts` prints them; check-cycles.spec.ts keeps them out.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const IMPORT = /(?:^|\n)\s*(?:import|export)\b[^'"]*?from\s*['"](\.[^'"]+)['"]/g;

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return /(?<!\.(spec|int-spec|d))\.ts$/.test(name) ? [path] : [];
  });
}

/** The lib's import graph: file (relative to `src`) -> files it imports. */
export function importGraph(src: string): Map<string, string[]> {
  const files = new Set(sources(src).map((f) => relative(src, f)));
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const text = readFileSync(join(src, file), 'utf8');
    const targets = [...text.matchAll(IMPORT)].map((m) => {
      const to = relative(src, resolve(src, dirname(file), m[1]!));
      return [`${to}.ts`, join(to, 'index.ts')].find((f) => files.has(f));
    });
    graph.set(
      file,
      targets.filter((t): t is string => t !== undefined),
    );
  }
  return graph;
}

/** Every cycle of `graph` found by depth-first search, each as the path that closes it. */
export function cyclesOf(graph: Map<string, string[]>): string[][] {
  const cycles: string[][] = [];
  const done = new Set<string>();
  const visit = (node: string, path: string[]) => {
    const at = path.indexOf(node);
    if (at >= 0) return void cycles.push([...path.slice(at), node]);
    if (done.has(node)) return;
    for (const next of graph.get(node) ?? []) visit(next, [...path, node]);
    done.add(node);
  };
  for (const node of graph.keys()) visit(node, []);
  return cycles;
}

/** The folder graph of a file graph (edges between distinct folders, the root left out). */
export function folderGraph(graph: Map<string, string[]>): Map<string, string[]> {
  const folders = new Map<string, string[]>();
  for (const [file, targets] of graph) {
    const from = dirname(file);
    const list = folders.get(from) ?? [];
    for (const to of targets.map(dirname))
      if (to !== from && from !== '.' && to !== '.' && !list.includes(to)) list.push(to);
    folders.set(from, list);
  }
  return folders;
}

/** File and folder cycles of `libs/<lib>/src`, as printable lines. */
export function libCycles(root: string, lib: string): { files: string[]; folders: string[] } {
  const graph = importGraph(join(root, 'libs', lib, 'src'));
  const show = (cycle: string[]) => cycle.join(' -> ');
  return {
    files: cyclesOf(graph).map(show),
    folders: cyclesOf(folderGraph(graph)).map(show),
  };
}

if (require.main === module) {
  const root = join(__dirname, '..');
  for (const lib of readdirSync(join(root, 'libs'))) {
    const { files, folders } = libCycles(root, lib);
    for (const line of [...files, ...folders]) process.stdout.write(`${lib}: ${line}\n`);
  }
}
