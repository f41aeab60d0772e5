import type { Result } from './drive';

/** Every run of every variant at one caller count. */
export interface CallerFigures {
  readonly callers: number;
  readonly pool: number;
  readonly results: Record<string, Result[]>;
}

type Median = (values: number[]) => number;
type Key = 'throughput' | 'p50' | 'cpuUs' | 'pgCpuUs';
const round = (n: number, digits = 3) => Number(n.toFixed(digits));

/** Figures of one caller count: ratios to the variant's own baseline, run by run. */
function figuresOf({ callers, pool, results }: CallerFigures, median: Median) {
  const runs = (name: string) => results[name] ?? [];
  // Each ratio (or difference) pairs a variant with its baseline of the same run.
  const paired = (a: string, b: string, key: Key, f: (x: number, y: number) => number) =>
    median(runs(a).map((x, i) => (runs(b)[i] ? f(x[key], runs(b)[i]![key]) : NaN)));
  const ratio = (a: string, b: string, key: Key) => round(paired(a, b, key, (x, y) => x / y));
  const added = (a: string, b: string, key: Key) =>
    round(
      paired(a, b, key, (x, y) => x - y),
      0,
    );
  const lib = ratio('lib_with', 'lib_without', 'throughput');
  const raw = ratio('raw_with', 'raw_without', 'throughput');
  const single = ratio('lib_single', 'lib_without', 'throughput');
  const libP50 = ratio('lib_with', 'lib_without', 'p50');
  const rawP50 = ratio('raw_with', 'raw_without', 'p50');
  const singleP50 = ratio('lib_single', 'lib_without', 'p50');
  return {
    callers,
    pool,
    lib_throughput_ratio: lib,
    raw_throughput_ratio: raw,
    lib_p50_ratio: libP50,
    raw_p50_ratio: rawP50,
    single_throughput_ratio: single,
    single_p50_ratio: singleP50,
    quiet_throughput_ratio: ratio('lib_with_quiet', 'lib_without', 'throughput'),
    quiet_p50_ratio: ratio('lib_with_quiet', 'lib_without', 'p50'),
    lib_vs_raw_throughput: round(lib / raw),
    lib_vs_raw_p50: round(libP50 / rawP50),
    single_vs_raw_throughput: round(single / raw),
    single_vs_raw_p50: round(singleP50 / rawP50),
    lib_added_cpu_us: added('lib_with', 'lib_without', 'cpuUs'),
    quiet_added_cpu_us: added('lib_with_quiet', 'lib_without', 'cpuUs'),
    single_added_cpu_us: added('lib_single', 'lib_without', 'cpuUs'),
    raw_added_cpu_us: added('raw_with', 'raw_without', 'cpuUs'),
    plain_throughput_ratio: ratio('raw_plain', 'raw_without', 'throughput'),
    plain_added_cpu_us: added('raw_plain', 'raw_without', 'cpuUs'),
    lib_added_pg_cpu_us: added('lib_with', 'lib_without', 'pgCpuUs'),
    single_added_pg_cpu_us: added('lib_single', 'lib_without', 'pgCpuUs'),
    raw_added_pg_cpu_us: added('raw_with', 'raw_without', 'pgCpuUs'),
    plain_added_pg_cpu_us: added('raw_plain', 'raw_without', 'pgCpuUs'),
  };
}

function printMedians(
  { callers, pool, results }: CallerFigures,
  median: Median,
  print: (line: string) => void,
) {
  print(`\nmedians over runs, ${callers} callers, pool ${pool}:`);
  print('variant            tx/s   p50 ms   p99 ms   node us/op   pg us/op');
  for (const [name, runs] of Object.entries(results)) {
    const m = (f: (r: Result) => number, digits: number) => median(runs.map(f)).toFixed(digits);
    print(
      `${name.padEnd(14)} ${m((r) => r.throughput, 0).padStart(8)} ${m((r) => r.p50, 2).padStart(8)} ${m((r) => r.p99, 2).padStart(8)} ${m((r) => r.cpuUs, 0).padStart(12)} ${m((r) => r.pgCpuUs, 0).padStart(10)}`,
    );
  }
}

/**
 * Prints the medians of every caller count and returns the bench's JSON line: the
 * headline count's figures under the historical keys (`lib_throughput_ratio`,
 * `raw_throughput_ratio`, `lib_p50_ratio`, `raw_p50_ratio`, `callers`, `runs`), then the
 * new ones, and `sweep` with the figures of every caller count.
 */
export function summarise(
  all: CallerFigures[],
  headline: number,
  runs: number,
  median: Median,
  print: (line: string) => void,
): Record<string, unknown> {
  for (const figures of all) printMedians(figures, median, print);
  const sweep = all.map((f) => figuresOf(f, median));
  const head = all.find((f) => f.callers === headline)!;
  const { callers: _c, ...headFigures } = sweep.find((f) => f.callers === headline)!;
  const perVariant = (key: Key, digits: number) =>
    Object.fromEntries(
      Object.entries(head.results).map(([n, r]) => [
        n,
        round(median(r.map((x) => x[key])), digits),
      ]),
    );
  const measured = all.flatMap((f) => Object.values(f.results).flat());
  const goal = headFigures.lib_vs_raw_throughput >= 0.98 && headFigures.lib_vs_raw_p50 <= 1.02;
  print(
    `\ngoal at ${headline} callers (lib ratio >= 0.98 x raw ratio in tx/s, <= 1.02 x in p50): ${goal ? 'met' : 'NOT met'}` +
      ` (tx/s ${headFigures.lib_vs_raw_throughput}, p50 ${headFigures.lib_vs_raw_p50});` +
      ` single statement: tx/s ${headFigures.single_vs_raw_throughput}, p50 ${headFigures.single_vs_raw_p50} of raw's ratios`,
  );
  const { lib_throughput_ratio, raw_throughput_ratio, lib_p50_ratio, raw_p50_ratio, ...more } =
    headFigures;
  return {
    bench: 'write',
    lib_throughput_ratio,
    raw_throughput_ratio,
    lib_p50_ratio,
    raw_p50_ratio,
    callers: headline,
    runs,
    ...more,
    goal_met: goal,
    tx_per_s: perVariant('throughput', 0),
    node_cpu_us: perVariant('cpuUs', 0),
    pg_cpu_us: perVariant('pgCpuUs', 0),
    load_before: round(measured[0]?.loadBefore ?? NaN, 2),
    load_after: round(measured.at(-1)?.loadAfter ?? NaN, 2),
    sweep,
  };
}
