import { isUuid, uuidv7 } from './uuid-v7';

describe('uuidv7', () => {
  afterEach(() => jest.restoreAllMocks());

  it('produces canonical version-7 UUIDs', () => {
    const id = uuidv7();
    expect(isUuid(id)).toBe(true);
    expect(id[14]).toBe('7');
    expect(['8', '9', 'a', 'b']).toContain(id[19]);
  });

  it('keeps ids strictly increasing when many are generated in one millisecond', () => {
    jest.spyOn(Date, 'now').mockReturnValue(Date.UTC(2030, 0, 1));
    const ids = Array.from({ length: 5000 }, () => uuidv7());
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('keeps ids increasing when the clock steps back', () => {
    const now = jest.spyOn(Date, 'now').mockReturnValue(Date.UTC(2030, 0, 1, 0, 0, 1));
    const before = uuidv7();
    now.mockReturnValue(Date.UTC(2030, 0, 1)); // one second earlier
    const after = uuidv7();
    expect(after > before).toBe(true);
  });

  it('encodes the current millisecond in the first 48 bits', () => {
    const at = Date.UTC(2031, 5, 1);
    jest.spyOn(Date, 'now').mockReturnValue(at);
    const ms = parseInt(uuidv7().replace(/-/g, '').slice(0, 12), 16);
    expect(ms).toBe(at);
  });
});

describe('isUuid', () => {
  it.each(['0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b', '550e8400-e29b-41d4-a716-446655440000'])(
    'accepts %s',
    (value) => expect(isUuid(value)).toBe(true),
  );

  it.each(['', 'not-a-uuid', '0193a1b2c3d47e5f8a9b0c1d2e3f4a5b', 42, null])('refuses %p', (value) =>
    expect(isUuid(value)).toBe(false),
  );
});
