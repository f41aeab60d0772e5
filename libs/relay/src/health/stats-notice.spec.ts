import fc from 'fast-check';
import { decodeStatsNotice, encodeStatsNotice, type StatsNotice } from './stats-notice';

const OUTBOX = 'app.outbox';

const notice: StatsNotice = {
  relayId: 'relay-a',
  durationMs: 42,
  stats: { pending: 12, parked: 1, suspects: 0, oldestAgeMs: 950.5, oldestUnparkedAgeMs: 0 },
};

describe('Relay stats notices', () => {
  it('decodes what it encodes, for its own outbox only', () => {
    const payload = encodeStatsNotice(OUTBOX, notice)!;

    expect(payload.startsWith('app.outbox stats {')).toBe(true);
    expect(decodeStatsNotice(OUTBOX, payload)).toEqual(notice);
    expect(decodeStatsNotice('app.other', payload)).toBeUndefined();
    expect(decodeStatsNotice('app.out', payload)).toBeUndefined();
  });

  it('sends no notice for a relay id longer than the receivers take', () => {
    expect(encodeStatsNotice(OUTBOX, { ...notice, relayId: 'x'.repeat(201) })).toBeUndefined();
    const longest = encodeStatsNotice(OUTBOX, { ...notice, relayId: 'x'.repeat(200) });
    expect(decodeStatsNotice(OUTBOX, longest!)?.relayId).toHaveLength(200);
  });

  it("ignores the producers' wake-up payload and notices with a field missing, negative, fractional where a count is due, or not finite", () => {
    const body = { relayId: 'r', durationMs: 1, ...notice.stats };
    const bad = [
      OUTBOX,
      `${OUTBOX} stats `,
      `${OUTBOX} stats null`,
      `${OUTBOX} stats [1]`,
      `${OUTBOX} stats {"relayId":"r"`,
      `${OUTBOX} stats ${JSON.stringify({ ...body, relayId: '' })}`,
      `${OUTBOX} stats ${JSON.stringify({ ...body, relayId: 'x'.repeat(201) })}`,
      `${OUTBOX} stats ${JSON.stringify({ ...body, pending: -1 })}`,
      `${OUTBOX} stats ${JSON.stringify({ ...body, parked: 1.5 })}`,
      `${OUTBOX} stats ${JSON.stringify({ ...body, suspects: '3' })}`,
      `${OUTBOX} stats ${JSON.stringify({ ...body, durationMs: -5 })}`,
      `${OUTBOX} stats ${JSON.stringify({ ...body, oldestAgeMs: null })}`,
      `${OUTBOX} stats ${JSON.stringify({ ...body, oldestUnparkedAgeMs: undefined })}`,
      `${OUTBOX} stats ${JSON.stringify(body).replace('"durationMs":1', '"durationMs":1e999')}`,
    ];
    for (const payload of bad) expect(decodeStatsNotice(OUTBOX, payload)).toBeUndefined();
  });

  it('never throws on arbitrary payloads (fuzzed), and whatever it accepts holds only finite, non-negative figures', () => {
    const field = fc.oneof(
      fc.integer(),
      fc.double(),
      fc.string(),
      fc.constant(null),
      fc.boolean(),
      fc.array(fc.integer(), { maxLength: 2 }),
    );
    const body = fc.oneof(
      fc.string(),
      fc.json(),
      fc
        .record({
          relayId: fc.oneof(fc.string({ maxLength: 250 }), field),
          durationMs: field,
          pending: field,
          parked: field,
          suspects: field,
          oldestAgeMs: field,
          oldestUnparkedAgeMs: field,
        })
        .map((r) => JSON.stringify(r)),
    );
    fc.assert(
      fc.property(body, fc.boolean(), (text, prefixed) => {
        const payload = prefixed ? `${OUTBOX} stats ${text}` : text;
        const decoded = decodeStatsNotice(OUTBOX, payload);
        if (decoded === undefined) return;
        const { pending, parked, suspects, oldestAgeMs, oldestUnparkedAgeMs } = decoded.stats;
        for (const n of [pending, parked, suspects])
          expect(Number.isSafeInteger(n) && n >= 0).toBe(true);
        for (const x of [decoded.durationMs, oldestAgeMs, oldestUnparkedAgeMs])
          expect(Number.isFinite(x) && x >= 0).toBe(true);
        expect(decoded.relayId.length).toBeGreaterThan(0);
      }),
      { numRuns: 3000, seed: 20261205 },
    );
  });
});
