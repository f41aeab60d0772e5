import { logText } from './log-text';

describe('logText', () => {
  it('escapes control characters, line separators, backslashes and unpaired surrogates', () => {
    expect(logText('a\nb\r\u0000c\u001b[31m\u007f\u0085')).toBe(
      'a\\x0ab\\x0d\\x00c\\x1b[31m\\x7f\\x85',
    );
    expect(logText('x\u2028y\\z')).toBe('x\\u2028y\\\\z');
    expect(logText('lone \ud800 and \udc00, pair \ud83d\ude00')).toBe(
      'lone \\ud800 and \\udc00, pair \ud83d\ude00',
    );
  });

  it('keeps at most max characters and says how many were cut', () => {
    expect(logText('abcdef', 3)).toBe('abc…(+3)');
    expect(logText('abc', 3)).toBe('abc');
  });

  it('shows non-strings by their type, never their content', () => {
    expect(logText(undefined)).toBe('-');
    expect(logText(42)).toBe('42');
    expect(logText({ secret: 'payload' })).toBe('[object]');
    expect(logText(Buffer.from('x'))).toBe('[object]');
  });

  it('never lets a line break through, whatever the input', () => {
    let all = '';
    for (let c = 0; c < 0x3000; c++) all += String.fromCharCode(c);
    // eslint-disable-next-line no-control-regex -- the characters that must not get through
    expect(logText(all, all.length)).not.toMatch(/[\n\r\u2028\u2029\u0085\u0000]/);
  });
});
