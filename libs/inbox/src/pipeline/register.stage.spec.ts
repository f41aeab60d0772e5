import { Logger } from '@nestjs/common';
import { Registry } from 'prom-client';
import {
  chunkRecord,
  counted,
  eventIdAt,
  fakeKafkaConsumer,
  FakeInboxStore,
  policyOf,
  type Trace,
} from '../../test/inbox-unit.fakes';
import { admit, decodeFor } from './inbox.pipeline';
import { InboxVersionGapError } from '../errors/inbox-version-gap.error';
import { InboxMetrics } from '../metrics/inbox.metrics';
import type { VersionCheckMode } from '../options/inbox-options.interface';

/** `admit` over a fake store, for records of partition t/0 at `offsets` (`[offset, eventAt]` repeats one). */
function setUp(versionCheck: VersionCheckMode = 'off') {
  const trace: Trace = [];
  const store = new FakeInboxStore(trace);
  const metrics = new InboxMetrics(new Registry());
  const logger = new Logger('test');
  const warn = jest.spyOn(logger, 'warn').mockImplementation(() => undefined);
  const { consumer } = fakeKafkaConsumer();
  const route = { consumer: 'c', policy: policyOf({ versionCheck }) };
  const run = (offsets: (number | [number, number])[]) => {
    const records = offsets.map((o) =>
      Array.isArray(o) ? chunkRecord(consumer, o[0], { eventAt: o[1] }) : chunkRecord(consumer, o),
    );
    const accepted = decodeFor(route.policy, records).map((v) => ({
      record: v.record,
      event: v.event!,
    }));
    return admit({ store: store.asStore(), metrics, logger }, route, accepted);
  };
  const outcomes = async (offsets: (number | [number, number])[]) =>
    (await run(offsets)).map((a) => [a.record.position.offset, a.outcome]);
  return { trace, store, metrics, warn, run, outcomes };
}

describe('admit (register stage)', () => {
  it('registers every event of the chunk in one statement and admits those it inserted as new, the others as duplicates', async () => {
    const { trace, store, outcomes } = setUp();
    store.known.add(eventIdAt(1));

    expect(await outcomes([0, 1, 2])).toEqual([
      ['0', 'new'],
      ['1', 'duplicate'],
      ['2', 'new'],
    ]);
    expect(trace).toEqual(['register c 0,1,2']);
  });

  it('registers an event repeated inside the chunk once, at its first offset: later copies are duplicates', async () => {
    const { store, outcomes } = setUp();

    expect(await outcomes([0, [1, 0], 2, [3, 0]])).toEqual([
      ['0', 'new'],
      ['1', 'duplicate'],
      ['2', 'new'],
      ['3', 'duplicate'],
    ]);
    expect(store.registrations.map((r) => r.pending.map((p) => p.offset))).toEqual([['0', '2']]);
  });

  it('touches the store not at all for a chunk with no accepted record', async () => {
    const { trace, run } = setUp();

    expect(await run([])).toEqual([]);
    expect(trace).toEqual([]);
  });

  it('checks the version of new events only, in offset order, and admits a stale one as stale', async () => {
    const { trace, store, outcomes } = setUp('log');
    store.known.add(eventIdAt(1));
    store.versions.set(eventIdAt(2), { kind: 'stale', last: 9 });

    expect(await outcomes([0, 1, 2])).toEqual([
      ['0', 'new'],
      ['1', 'duplicate'],
      ['2', 'stale'],
    ]);
    expect(trace).toEqual(['register c 0,1,2', 'version 1', 'version 3']);
  });

  it("admits an event after a version gap under 'log', counting and logging the gap", async () => {
    const { store, metrics, warn, outcomes } = setUp('log');
    store.versions.set(eventIdAt(1), { kind: 'gap', last: 0 });

    expect(await outcomes([0, 1])).toEqual([
      ['0', 'new'],
      ['1', 'new'],
    ]);
    expect(await counted(metrics, 'version_gaps_total', { consumer: 'c', topic: 't' })).toBe(1);
    expect(warn).toHaveBeenCalledWith(expect.stringMatching(/^aggregate version gap .*last=0/));
  });

  it("throws InboxVersionGapError for a version gap under 'hold', after checking the events before it", async () => {
    const { trace, store, run } = setUp('hold');
    store.versions.set(eventIdAt(1), { kind: 'gap', last: 0 });

    await expect(run([0, 1, 2])).rejects.toThrow(InboxVersionGapError);
    expect(trace).toEqual(['register c 0,1,2', 'version 1', 'version 2']);
  });
});
