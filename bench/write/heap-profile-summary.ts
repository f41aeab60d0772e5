/**
 * Summarises a V8 sampling heap profile (BENCH_PROFILE=<dir> with BENCH_HEAP=on writes a
 * .heapprofile per measured phase, objects later collected included): bytes allocated by
 * owner (the package, lib or node module of the allocating frame, or of its nearest caller
 * with a source for builtins such as Object.entries) and by allocating function.
 *
 *   node -r ts-node/register bench/write/heap-profile-summary.ts <file.heapprofile> [top=30] [ops]
 *
 * With `ops` (the operations the profile covers, e.g. the records of an inbox round) the
 * figures are also given per operation.
 */
import { readFileSync } from 'node:fs';
import { ownerOf } from './profile-owner';

interface HeapNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: HeapNode[];
}

function main(): void {
  const [file, topArg, opsArg] = process.argv.slice(2);
  if (!file) throw new Error('usage: heap-profile-summary <file.heapprofile> [top] [ops]');
  const { head } = JSON.parse(readFileSync(file, 'utf8')) as { head: HeapNode };
  const top = Number(topArg ?? 30);
  const ops = opsArg ? Number(opsArg) : undefined;
  const byOwner = new Map<string, number>();
  const byFunction = new Map<string, number>();
  let total = 0;
  // Iterative walk: (node, nearest url on the way down).
  const stack: { node: HeapNode; url: string }[] = [{ node: head, url: '' }];
  while (stack.length > 0) {
    const { node, url: above } = stack.pop()!;
    const f = node.callFrame;
    const url = f.url || above;
    if (node.selfSize > 0) {
      total += node.selfSize;
      const owner = ownerOf(url, f.url ? f.functionName : '');
      byOwner.set(owner, (byOwner.get(owner) ?? 0) + node.selfSize);
      const key = `${f.functionName || '(anonymous)'} ${ownerOf(f.url, f.functionName)}:${f.url.split('/').pop()}:${f.lineNumber + 1}`;
      byFunction.set(key, (byFunction.get(key) ?? 0) + node.selfSize);
    }
    for (const child of node.children) stack.push({ node: child, url });
  }
  const fmt = (bytes: number) =>
    `${(bytes / 1e6).toFixed(1).padStart(8)} MB ${((100 * bytes) / total).toFixed(1).padStart(5)}%` +
    (ops ? ` ${(bytes / ops).toFixed(0).padStart(7)} B/op` : '');
  console.log(`heap profile ${file}: ${(total / 1e6).toFixed(1)} MB allocated (sampled)`);
  console.log('\nallocated by owner:');
  for (const [k, v] of [...byOwner].sort((a, b) => b[1] - a[1]).slice(0, 20))
    console.log(`${fmt(v)}  ${k}`);
  console.log('\nallocated by function:');
  for (const [k, v] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, top))
    console.log(`${fmt(v)}  ${k}`);
}

main();
