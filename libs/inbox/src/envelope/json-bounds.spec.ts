import { jsonTextTooDeep, valueTooDeep } from './json-bounds';

const nested = (n: number) => '['.repeat(n) + ']'.repeat(n);

describe('jsonTextTooDeep', () => {
  it('counts arrays and objects, not brackets inside strings', () => {
    expect(jsonTextTooDeep(nested(3), 3)).toBe(false);
    expect(jsonTextTooDeep(nested(4), 3)).toBe(true);
    expect(jsonTextTooDeep('{"a":{"b":[1]}}', 3)).toBe(false);
    expect(jsonTextTooDeep('{"a":{"b":[{}]}}', 3)).toBe(true);
    expect(jsonTextTooDeep('["[[[[[[", "\\"[[[["]', 2)).toBe(false);
  });

  it('scans 100,000 levels without recursion', () => {
    expect(jsonTextTooDeep(nested(100_000), 64)).toBe(true);
  });
});

describe('valueTooDeep', () => {
  it('walks parsed values iteratively, bounded by depth and node count', () => {
    expect(valueTooDeep(JSON.parse(nested(3)), 3, 100)).toBe(false);
    expect(valueTooDeep(JSON.parse(nested(4)), 3, 100)).toBe(true);
    expect(valueTooDeep({ a: 1, b: [1, 2] }, 2, 100)).toBe(false);
    expect(valueTooDeep({ a: 1, b: [1, 2] }, 2, 3)).toBe(true);
    expect(valueTooDeep('text', 0, 1)).toBe(false);
    expect(valueTooDeep(JSON.parse(nested(100_000)), 64, 1_000_000)).toBe(true);
  });
});
