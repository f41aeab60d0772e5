/**
 * Summarises a V8 .cpuprofile (from `node --cpu-prof` or BENCH_PROFILE of bench:write):
 * self time by owner (a package under node_modules, a lib of this repository, node's own
 * code, the garbage collector, idle) and the functions with the most inclusive time.
 *
 *   node -r ts-node/register bench/write/cpu-profile-summary.ts <file.cpuprofile> [top=40] [ops]
 *
 * With `ops` (the operations the profile covers) times are also given per operation.
 */
import { readFileSync } from 'node:fs';
import { ownerOf } from './profile-owner';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  parent?: number;
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

function main(): void {
  const [file, topArg, opsArg] = process.argv.slice(2);
  if (!file) throw new Error('usage: cpu-profile-summary <file.cpuprofile> [top] [ops]');
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const top = Number(topArg ?? 40);
  const ops = opsArg ? Number(opsArg) : undefined;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  for (const n of profile.nodes) for (const c of n.children ?? []) byId.get(c)!.parent = n.id;
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const dt = profile.timeDeltas[i] ?? 0;
    total += dt;
    const leaf = byId.get(id)!;
    const owner = ownerOf(leaf.callFrame.url, leaf.callFrame.functionName);
    self.set(owner, (self.get(owner) ?? 0) + dt);
    const seen = new Set<string>();
    for (let n: ProfileNode | undefined = leaf; n; n = n.parent ? byId.get(n.parent) : undefined) {
      const f = n.callFrame;
      const key = `${f.functionName || '(anonymous)'} ${ownerOf(f.url, f.functionName)}:${f.url.split('/').pop()}:${f.lineNumber + 1}`;
      if (seen.has(key)) continue;
      seen.add(key);
      inclusive.set(key, (inclusive.get(key) ?? 0) + dt);
    }
  });
  const busy = total - (self.get('(idle)') ?? 0);
  const fmt = (us: number) =>
    `${(us / 1000).toFixed(0).padStart(7)} ms ${((100 * us) / busy).toFixed(1).padStart(5)}%` +
    (ops ? ` ${(us / ops).toFixed(1).padStart(7)} us/op` : '');
  console.log(`profile ${file}: ${(total / 1e6).toFixed(1)} s, busy ${(busy / 1e6).toFixed(1)} s`);
  console.log('\nself time by owner (percent of busy):');
  for (const [k, v] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 25)) {
    console.log(`${fmt(v)}  ${k}`);
  }
  console.log('\ninclusive time by function:');
  for (const [k, v] of [...inclusive].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`${fmt(v)}  ${k}`);
  }
}

main();
