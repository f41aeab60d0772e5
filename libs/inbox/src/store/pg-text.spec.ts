import { pgHeaders, pgText } from './pg-text';

describe('pgText / pgHeaders', () => {
  it('escapes NUL and unpaired surrogates, keeps pairs and other text, and bounds the length', () => {
    expect(pgText('a\u0000b', 10)).toBe('a\\u0000b');
    expect(pgText('x\ud800y\udc00z \ud83d\ude00', 20)).toBe('x\\ud800y\\udc00z \ud83d\ude00');
    expect(pgText('abcdef', 3)).toBe('abc');
    expect(pgText('\ud83d\ude00', 1)).toBe('\\ud83d'); // a pair cut in half is escaped
  });

  it('gives headers whose JSON text jsonb accepts (no \\u0000, no lone surrogate escape)', () => {
    const many = Object.fromEntries(
      Array.from({ length: 150 }, (_, i) => [`h${i}\u0000`, '\ud800']),
    );
    const safe = pgHeaders(many);
    expect(Object.keys(safe)).toHaveLength(101);
    expect(safe['x-inbox-omitted-headers']).toBe('50');
    expect(JSON.stringify(safe)).not.toMatch(/(?<!\\)\\u0000|(?<!\\)\\ud800/);
  });
});
