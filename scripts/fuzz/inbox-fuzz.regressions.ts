/**
 * Seeds of inbox fuzz runs that failed once (with the class found), replayed by
 * `test/inbox-fuzz.e2e-spec.ts` with the records count that showed the failure.
 */
export const INBOX_FUZZ_REGRESSIONS: readonly { seed: number; records: number; found: string }[] = [
  {
    seed: 1,
    records: 150,
    found:
      'NUL in header names/values of rejected records refused by jsonb, escaped to kafkajs; values echoed in logs (main d2e020e)',
  },
];
