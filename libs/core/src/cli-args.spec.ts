import { CliUsageError, parseCliArgs, runCli } from './cli-args';

const spec = {
  name: 'relay:cli',
  usage: 'usage: relay:cli -- parked [--limit N]',
  flags: {
    limit: { type: 'integer' },
    from: { type: 'date' },
    by: { type: 'string' },
    down: { type: 'boolean' },
  },
} as const;

describe('parseCliArgs', () => {
  it('gives positionals and typed flag values', () => {
    const parsed = parseCliArgs(spec, [
      'parked',
      '--limit',
      '5',
      '--by=alice',
      '--from',
      '2026-01-31T12:00:00Z',
      '--down',
    ]);
    expect(parsed.positionals).toEqual(['parked']);
    expect(parsed.values).toEqual({
      limit: 5,
      by: 'alice',
      from: new Date('2026-01-31T12:00:00Z'),
      down: true,
    });
    expect(parsed.help).toBe(false);
  });

  it.each([
    [
      ['parked', '--limit', 'abc'],
      /relay:cli: option "--limit" must be a positive integer written in digits \(got "abc"\)/,
    ],
    [['parked', '--limit', '0'], /option "--limit" must be a positive integer \(got 0\)/],
    [['republish', '--from', 'yesterday'], /option "--from" must be an ISO-8601 time/],
    [['parked', '--color'], /relay:cli: Unknown option '--color'/],
    [['parked', '--limit'], /argument missing/],
  ])('refuses %p with a usage error that ends with the usage', (argv, message) => {
    expect(() => parseCliArgs(spec, argv)).toThrow(CliUsageError);
    expect(() => parseCliArgs(spec, argv)).toThrow(message);
    expect(() => parseCliArgs(spec, argv)).toThrow(/\nusage: relay:cli/);
  });
});

describe('runCli', () => {
  const io = () => {
    const lines = { out: [] as string[], err: [] as string[] };
    return {
      lines,
      io: {
        out: (t: string) => void lines.out.push(t),
        err: (t: string) => void lines.err.push(t),
      },
    };
  };

  afterEach(() => (process.exitCode = undefined));

  it('prints the usage for --help and runs nothing (exit code 0)', async () => {
    const { lines, io: cliIo } = io();
    const main = jest.fn();
    await expect(runCli(spec, ['--help'], main, cliIo)).resolves.toBe(0);
    expect(main).not.toHaveBeenCalled();
    expect(lines.out).toEqual([spec.usage]);
  });

  it('exits 2 on a usage error without running, 1 on a failure, else with what main returns', async () => {
    const { lines, io: cliIo } = io();
    const main = jest.fn().mockResolvedValue(3);
    await expect(runCli(spec, ['--limit', 'x'], main, cliIo)).resolves.toBe(2);
    expect(main).not.toHaveBeenCalled();
    expect(lines.err[0]).toMatch(/--limit/);
    await expect(runCli(spec, [], () => Promise.reject(new Error('db down')), cliIo)).resolves.toBe(
      1,
    );
    expect(lines.err[1]).toBe('db down');
    await expect(runCli(spec, ['x'], main, cliIo)).resolves.toBe(3);
    expect(process.exitCode).toBe(3);
  });
});
