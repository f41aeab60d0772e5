/**
 * Seeds of inbox fuzz runs that failed once (with the class found), replayed by
 * `test/inbox-fuzz.e2e-spec.ts` with the records count that showed the failure.
 */
export const INBOX_FUZZ_REGRESSIONS: readonly { seed: number; records: number; found: string }[] = [
  {
    seed: 1,
    records: 300,
    found:
      'main d2e020e: NUL in rejected headers refused by jsonb, escaped to kafkajs (fixed by settle 1/n); ' +
      'main de53f61: the rejected-record log line prints event_id=/type= header values (marker leaks)',
  },
];
