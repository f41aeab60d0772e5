import { CliUsageError, parseCliArgs } from '@nest-outbox/core/internal';
import { RELAY_CLI, runRelayCommand } from './relay-cli.commands';

function operator() {
  return {
    listParked: jest.fn().mockResolvedValue([]),
    retry: jest.fn().mockResolvedValue({ outcome: 'retried', eventId: 'e' }),
    skip: jest.fn().mockResolvedValue({ outcome: 'not-found', eventId: 'e' }),
    park: jest.fn().mockResolvedValue({ outcome: 'parked', eventId: 'e' }),
    republish: jest.fn().mockResolvedValue({ outcome: 'republishing', count: 2 }),
  };
}

const run = (argv: string[], op = operator()) =>
  runRelayCommand(parseCliArgs(RELAY_CLI, argv), op).then((result) => ({ ...result, op }));

describe('relay:cli', () => {
  it('refuses a limit that is not a number before anything reaches SQL', () => {
    expect(() => parseCliArgs(RELAY_CLI, ['parked', '--limit', 'abc'])).toThrow(CliUsageError);
    expect(() => parseCliArgs(RELAY_CLI, ['parked', '--limit', 'abc'])).toThrow(
      /option "--limit" must be a positive integer written in digits \(got "abc"\)/,
    );
  });

  it('lists parked events with the validated limit and aggregate type', async () => {
    const { op, code } = await run(['parked', '--limit', '5', '--aggregate-type', 'order']);
    expect(op.listParked).toHaveBeenCalledWith({ limit: 5, aggregateType: 'order' });
    expect(code).toBe(0);
  });

  it('retries and skips with who and why, exiting 1 when the event was not in a state to act on', async () => {
    const retried = await run(['retry', 'e', '--by', 'alice']);
    expect(retried.op.retry).toHaveBeenCalledWith('e', { actor: 'alice', reason: undefined });
    expect(retried.code).toBe(0);
    const skipped = await run(['skip', 'e', '--by', 'bob', '--reason', 'retired']);
    expect(skipped.op.skip).toHaveBeenCalledWith('e', { actor: 'bob', reason: 'retired' });
    expect(skipped.code).toBe(1);
    const parked = await run(['park', 'e', '--by', 'dan', '--reason', 'bad payload']);
    expect(parked.op.park).toHaveBeenCalledWith('e', { actor: 'dan', reason: 'bad payload' });
    expect(parked.code).toBe(0);
  });

  it('republishes an aggregate range or a publication window, and nothing without one', async () => {
    const byAggregate = await run([
      'republish',
      ...['--by', 'carol', '--reason', 'rebuild', '--aggregate-type', 'order'],
      ...['--aggregate-id', 'o-1', '--from-version', '3'],
    ]);
    expect(byAggregate.op.republish).toHaveBeenCalledWith(
      { aggregateType: 'order', aggregateId: 'o-1', fromVersion: 3, toVersion: undefined },
      { actor: 'carol', reason: 'rebuild' },
    );
    const byTime = await run([
      'republish',
      ...['--by', 'carol', '--reason', 'replay'],
      ...['--from', '2026-01-01T00:00:00Z', '--to', '2026-01-02T00:00:00Z'],
    ]);
    expect(byTime.op.republish).toHaveBeenCalledWith(
      {
        publishedFrom: new Date('2026-01-01T00:00:00Z'),
        publishedTo: new Date('2026-01-02T00:00:00Z'),
      },
      { actor: 'carol', reason: 'replay' },
    );
    await expect(run(['republish', '--by', 'carol', '--reason', 'x'])).rejects.toThrow(
      /republish needs --aggregate-type, or --from and --to/,
    );
  });

  it('refuses a missing event id and an unknown command with the usage', async () => {
    await expect(run(['retry', '--by', 'alice'])).rejects.toThrow(/retry needs an <event_id>/);
    await expect(run(['purge'])).rejects.toThrow(CliUsageError);
    await expect(run(['purge'])).rejects.toThrow(/unknown command "purge"\nusage:/);
  });
});
