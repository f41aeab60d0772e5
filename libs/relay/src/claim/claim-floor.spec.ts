import { BOTTOM_RESCAN_MS, ClaimFloor } from './claim-floor';

describe('ClaimFloor', () => {
  let clock = 0;
  const floor = () => new ClaimFloor(() => clock);
  const at = (id: bigint) => ({ id, auditMark: 0n });
  beforeEach(() => (clock = 1_000_000));

  it('Given no window read yet, when asked where to start, then it starts from the oldest end', () => {
    expect(floor().start()).toBeUndefined();
  });

  it('Given a window that saw id 100, when a later window shows every transaction of that snapshot ended, then windows start from the lower of the two first ids', () => {
    const f = floor();
    f.saw(undefined, { first: 100n, xmin: 10n, xmax: 20n, auditMark: 0n });
    expect(f.start()).toBeUndefined();
    f.saw(undefined, { first: 90n, xmin: 20n, xmax: 25n, auditMark: 0n });
    expect(f.start()?.id).toBe(90n);
  });

  it('Given a window that saw id 100 while a transaction it could not see was running, when later windows still see that transaction, then the bound does not move past it', () => {
    const f = floor();
    f.saw(undefined, { first: 50n, xmin: 5n, xmax: 6n, auditMark: 0n });
    f.saw(undefined, { first: 50n, xmin: 6n, xmax: 20n, auditMark: 0n });
    expect(f.start()?.id).toBe(50n);
    // Transaction 12 was running when the window saw 100 (candidate 50 waits on it too).
    f.saw(at(50n), { first: 100n, xmin: 12n, xmax: 30n, auditMark: 0n });
    f.saw(at(50n), { first: 100n, xmin: 12n, xmax: 40n, auditMark: 0n });
    expect(f.start()?.id).toBe(50n);
    f.saw(at(50n), { first: 100n, xmin: 30n, xmax: 41n, auditMark: 0n });
    f.saw(at(50n), { first: 100n, xmin: 35n, xmax: 42n, auditMark: 0n });
    expect(f.start()?.id).toBe(50n);
    f.saw(at(50n), { first: 100n, xmin: 41n, xmax: 43n, auditMark: 0n });
    expect(f.start()?.id).toBe(100n);
  });

  it('Given a row that committed late below the candidate, when the settling window sees it, then the bound stays at that row', () => {
    const f = floor();
    f.saw(undefined, { first: 100n, xmin: 10n, xmax: 20n, auditMark: 0n });
    f.saw(undefined, { first: 70n, xmin: 20n, xmax: 21n, auditMark: 0n });
    expect(f.start()?.id).toBe(70n);
  });

  it('Given a window that read no row, when the next window settles nothing, then the bound stays where it was', () => {
    const f = floor();
    f.saw(undefined, { first: 10n, xmin: 1n, xmax: 2n, auditMark: 0n });
    f.saw(undefined, { first: undefined, xmin: 2n, xmax: 3n, auditMark: 0n });
    expect(f.start()?.id).toBe(10n);
    f.saw(at(10n), { first: undefined, xmin: 9n, xmax: 9n, auditMark: 0n });
    expect(f.start()?.id).toBe(10n);
  });

  it(`Given a bound, when ${BOTTOM_RESCAN_MS} ms pass since the last window from the oldest end, then the next window starts from the oldest end again`, () => {
    const f = floor();
    f.saw(undefined, { first: 10n, xmin: 1n, xmax: 2n, auditMark: 0n });
    f.saw(undefined, { first: 10n, xmin: 2n, xmax: 3n, auditMark: 0n });
    clock += BOTTOM_RESCAN_MS - 1;
    expect(f.start()?.id).toBe(10n);
    clock += 1;
    expect(f.start()).toBeUndefined();
    f.saw(undefined, { first: 12n, xmin: 3n, xmax: 4n, auditMark: 0n });
    expect(f.start()?.id).toBe(10n);
  });

  it('Given a bound, when a window finds a new audit row (an operator action), then the bound is dropped and windows read from the oldest end until it settles again', () => {
    const f = floor();
    f.saw(undefined, { first: 10n, xmin: 1n, xmax: 2n, auditMark: 0n });
    f.saw(undefined, { first: 10n, xmin: 2n, xmax: 3n, auditMark: 0n });
    expect(f.start()).toEqual({ id: 10n, auditMark: 0n });
    f.saw(at(10n), { first: 10n, xmin: 3n, xmax: 4n, auditMark: 7n });
    expect(f.start()).toBeUndefined();
    f.saw(undefined, { first: 2n, xmin: 4n, xmax: 5n, auditMark: 7n });
    f.saw(undefined, { first: 2n, xmin: 5n, xmax: 6n, auditMark: 7n });
    expect(f.start()).toEqual({ id: 2n, auditMark: 7n });
  });
});
