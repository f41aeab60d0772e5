import { IsString, validate } from 'class-validator';
import { isPrintableText, NoControlCharacters } from './no-control-characters.validator';

class Note {
  @IsString()
  @NoControlCharacters()
  title!: unknown;
}

async function errorsOf(title: unknown) {
  return validate(Object.assign(new Note(), { title }));
}

describe('NoControlCharacters (unit)', () => {
  it.each([
    ['plain text', 'Rue de la Paix 1'],
    ['accents and CJK', 'Café 東京'],
    ['a paired surrogate (emoji)', 'box \ud83d\udce6'],
  ])('accepts %s', async (_case, title) => {
    expect(isPrintableText(title)).toBe(true);
    expect(await errorsOf(title)).toEqual([]);
  });

  it.each([
    ['a NUL', 'a\u0000b'],
    ['a line feed (log forging)', 'a\nINFO forged'],
    ['an escape (terminal)', '\u001b[31mred'],
    ['DEL', 'a\u007f'],
    ['a C1 control', 'a\u0085b'],
    ['an unpaired high surrogate', 'a\ud800b'],
    ['an unpaired low surrogate', '\udc00'],
    ['a high surrogate at the end', 'abc\ud83d'],
  ])('rejects %s, naming the property and not the value', async (_case, title) => {
    expect(isPrintableText(title)).toBe(false);
    const [error] = await errorsOf(title);
    expect(error?.property).toBe('title');
    expect(error?.constraints).toEqual({
      noControlCharacters: 'title must not contain control characters or unpaired surrogates',
    });
  });
});
