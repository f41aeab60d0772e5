/**
 * Seeds of inbox fuzz runs that failed once (with the class found), replayed by
 * `test/inbox-fuzz.e2e-spec.ts` with the records count that showed the failure.
 */
export const INBOX_FUZZ_REGRESSIONS: readonly { seed: number; records: number; found: string }[] =
  [];
