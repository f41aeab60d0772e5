import fc from 'fast-check';
import { acquireFaultSlot, waitFor } from '@test/support';
import { SampleSystem } from '../scripts/sample-system';
import { httpRequests, type FuzzRequest } from './support/http-fuzz.arbitraries';
import { HTTP_FUZZ_REGRESSIONS } from './support/http-fuzz.regressions';
import { watchHealth } from './support/health-watch';

/**
 * Property-based fuzzing of the sample HTTP APIs, running as real processes: generated
 * bodies, query strings and path parameters (see `httpRequests`). `npm test` runs a seeded
 * short run; `FUZZ_HTTP_RUNS=20000 npx jest test/http-fuzz.e2e-spec.ts` runs longer, and
 * `FUZZ_HTTP_SEED` (with `FUZZ_HTTP_PATH`) replays a failure fast-check reported. A failure
 * found once goes to `HTTP_FUZZ_REGRESSIONS`, replayed first in every run.
 */
const SEED = Number(process.env.FUZZ_HTTP_SEED ?? 20_261_203);
const PATH = process.env.FUZZ_HTTP_PATH;
const RUNS = Number(process.env.FUZZ_HTTP_RUNS ?? 300);
/** Planted in most generated strings; it must never reach a log line. Fixed, so seeds replay. */
const MARKER = 'FuzzMark7Q';
/** Orders created before the run; every order a run creates joins them. */
const FIRST_ORDERS = 5;

describe(`sample APIs under generated hostile requests: ${RUNS} runs, seed ${SEED} (e2e fuzz)`, () => {
  let system: SampleSystem;
  const existing: string[] = [];
  const statuses = new Map<number, number>();
  /** The slowest answers, to tell a stalled app from a loaded machine when /health is slow. */
  const slowest: { ms: number; at: string; request: string }[] = [];
  let runStartedAt = 0;

  function noteLatency(request: FuzzRequest, ms: number): void {
    const at = `+${((performance.now() - runStartedAt) / 1000).toFixed(1)} s`;
    const shown = `${request.method} ${request.target.slice(0, 60)} (${request.contentType ?? '-'}, body ${request.body?.length ?? 0} chars)`;
    slowest.push({ ms: Math.round(ms), at, request: shown });
    slowest.sort((a, b) => b.ms - a.ms).splice(5);
  }

  let release: (() => void) | undefined;

  beforeAll(async () => {
    // Run while no fault test (three JVMs, a private PostgreSQL, child processes) shares the
    // machine's two cores.
    release = await acquireFaultSlot();
    system = await SampleSystem.create({ prefix: 'e2e_fuzz' });
    await system.start();
    for (let i = 0; i < FIRST_ORDERS; i += 1) {
      existing.push((await system.http.createOrder(`fuzz-${i}`)).body.id);
    }
  }, 1_100_000);

  afterAll(async () => {
    await system?.teardown();
    release?.();
  }, 60_000);

  async function send(request: FuzzRequest): Promise<number> {
    const base = request.app === 'orders' ? system.orders.url : system.shipping.url;
    const target = request.target.replace(
      /\{existing:(\d+)\}/g,
      (_m, i: string) => existing[Number(i) % existing.length]!,
    );
    const started = performance.now();
    const response = await fetch(`${base}${target}`, {
      method: request.method,
      headers: request.contentType ? { 'content-type': request.contentType } : {},
      body: request.body,
      signal: AbortSignal.timeout(10_000),
    });
    const text = await response.text();
    noteLatency(request, performance.now() - started);
    if (response.status === 201 && request.target === '/orders') {
      existing.push((JSON.parse(text) as { id: string }).id);
    }
    statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
    return response.status;
  }

  it(
    'Given any generated request, then every answer is 2xx or 4xx, /health answers throughout within 1 s of CPU time of the app answering, and the planted marker is in no log line',
    async () => {
      runStartedAt = performance.now();
      // /health is judged by each app's own CPU time: an app that burns a second of CPU
      // without answering has stalled; one that waits for a busy machine's cores has not.
      const health = watchHealth([`${system.orders.url}/health`, `${system.shipping.url}/health`], {
        pids: [system.orders.pid, system.shipping.pid],
      });
      let failure: unknown;
      try {
        await fc.assert(
          fc.asyncProperty(httpRequests(MARKER), async (request) => {
            const status = await send(request);
            if (status < 200 || status >= 500) throw new Error(`answered ${status}`);
          }),
          {
            seed: SEED,
            path: PATH,
            numRuns: RUNS,
            examples: HTTP_FUZZ_REGRESSIONS.map((r) => [r]),
          },
        );
      } catch (error) {
        failure = error;
      }
      const watched = await health.stop();
      if (failure) {
        throw new Error(`${(failure as Error).message}\n${system.outputs()}`);
      }
      const byStatus = [...statuses].sort(([a], [b]) => a - b).map(([k, n]) => `${k}:${n}`);
      const summary = `answers by status ${byStatus.join(' ')}; health probes ${watched.probes}, slowest ${watched.slowestMs} ms, at most ${watched.busiestMs} ms of an app's CPU; slowest answers ${JSON.stringify(slowest)}`;
      if (process.env.FUZZ_HTTP_RUNS) console.log(summary);
      expect({ healthFailures: watched.failures, summary }).toEqual({
        healthFailures: [],
        summary,
      });
      expect(watched.busiestMs).toBeLessThan(1000);
      expect(watched.probes).toBeGreaterThan(0);

      // The runs reached the happy paths too, not only the rejections.
      const count = (from: number, to: number) =>
        [...statuses].filter(([s]) => s >= from && s < to).reduce((n, [, k]) => n + k, 0);
      expect({ ok: count(200, 300) > 0, rejected: count(400, 500) > 0 }).toEqual({
        ok: true,
        rejected: true,
      });

      // The orders the run created and confirmed went through the relay and the shipping
      // inbox too: their markers had every chance to reach a log line.
      const { ordersSchema, shippingSchema } = system.names;
      await waitFor(
        'the shipping service to consume every event the run produced',
        async () => {
          const { rows } = await system.db.query<{ events: number; consumed: number }>(
            `SELECT (SELECT count(*)::int FROM "${ordersSchema}".outbox) AS events,
                    (SELECT count(*)::int FROM "${shippingSchema}".inbox) AS consumed`,
          );
          return rows[0]!.events === rows[0]!.consumed;
        },
        { timeoutMs: 60_000, intervalMs: 200 },
      );
      // Child output arrives through pipes: one more round trip lets the last lines land.
      await Promise.all([system.orders.health(), system.shipping.health()]);
      for (const app of [system.orders, system.shipping]) {
        const leaks = app
          .output()
          .split('\n')
          .filter((line) => line.includes(MARKER));
        expect({ app: app.name, leaks }).toEqual({ app: app.name, leaks: [] });
      }
    },
    Math.max(300_000, RUNS * 1_000),
  );
});
