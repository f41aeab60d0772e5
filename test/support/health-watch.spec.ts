import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { watchHealth } from './health-watch';

/** A /health server in a child process that answers after `ms` of its CPU time, or of waiting. */
async function server(
  mode: 'busy' | 'idle',
  ms: number,
): Promise<{ child: ChildProcess; url: string }> {
  const code = `
    const wait = (ms, done) => {
      if (${JSON.stringify(mode)} === 'idle') return setTimeout(done, ms);
      const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
      const until = cpu() + ms; while (cpu() < until); done();
    };
    require('node:http').createServer((req, res) => wait(${ms}, () => res.end('ok')))
      .listen(0, '127.0.0.1', function () { console.log(this.address().port); });`;
  const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [port] = (await once(child.stdout, 'data')) as [Buffer];
  return { child, url: `http://127.0.0.1:${port.toString().trim()}/health` };
}

describe('watchHealth judged by the process CPU time (pids)', () => {
  const children: ChildProcess[] = [];
  afterAll(() => children.forEach((c) => c.kill('SIGKILL')));

  it('Given a /health that burns 1.5 s of CPU before answering, then the probe fails naming the CPU spent', async () => {
    const { child, url } = await server('busy', 1500);
    children.push(child);
    const watch = watchHealth([url], { limitMs: 1000, pids: [child.pid] });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const report = await watch.stop();
    expect(report.failures).toEqual([
      expect.stringMatching(/TimeoutError after \d+ ms, \d+ ms of its CPU/),
    ]);
    expect(report.busiestMs).toBeGreaterThanOrEqual(1000);
  });

  it('Given a /health that waits 1.5 s without using CPU (a busy machine, a slow dependency), then the probe passes', async () => {
    const { child, url } = await server('idle', 1500);
    children.push(child);
    const watch = watchHealth([url], { limitMs: 1000, pids: [child.pid] });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const report = await watch.stop();
    expect(report).toMatchObject({ failures: [], probes: 1 });
    expect(report.slowestMs).toBeGreaterThanOrEqual(1500);
    expect(report.busiestMs).toBeLessThan(1000);
  });
});
