import { isUuid, uuidv7 } from './uuid-v7';

describe('uuidv7', () => {
  it('produces canonical version-7 UUIDs', () => {
    const id = uuidv7();
    expect(isUuid(id)).toBe(true);
    expect(id[14]).toBe('7');
    expect(['8', '9', 'a', 'b']).toContain(id[19]);
  });

  it('keeps ids generated in one millisecond strictly increasing', () => {
    const now = Date.now() + 10_000;
    const ids = Array.from({ length: 2000 }, () => uuidv7(now));
    const sorted = [...ids].sort();
    expect(sorted).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('encodes the millisecond timestamp in the first 48 bits', () => {
    const now = Date.UTC(2030, 0, 1);
    const id = uuidv7(now + 50_000);
    const ms = parseInt(id.replace(/-/g, '').slice(0, 12), 16);
    expect(ms).toBeGreaterThanOrEqual(now + 50_000);
  });
});
