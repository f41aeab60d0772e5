import type { ArgumentMetadata } from '@nestjs/common';
import { IsInt, IsOptional, Max } from 'class-validator';
import { InvalidRequestException } from '../http/invalid-request.exception';
import { IsPlainText } from './plain-text.validator';
import { MAX_REQUEST_DEPTH } from './request-shape.check';
import { RequestValidationPipe } from './request-validation.pipe';

class NoteDto {
  @IsPlainText({ maxLength: 20 })
  readonly title!: string;

  @IsOptional()
  @IsInt()
  @Max(10)
  readonly stars?: number;
}

const body: ArgumentMetadata = { type: 'body', metatype: NoteDto };
const pipe = new RequestValidationPipe();

async function rejection(value: unknown, metadata = body) {
  const error: unknown = await pipe.transform(value, metadata).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(InvalidRequestException);
  return (error as InvalidRequestException).getResponse() as {
    fields: string[];
    message: string[];
  };
}

function nested(depth: number): unknown {
  let value: unknown = 'MARKER';
  for (let i = 0; i < depth; i += 1) value = i % 2 ? { x: value } : [value];
  return value;
}

describe('RequestValidationPipe (unit)', () => {
  it('Given a valid body, then it returns an instance of the DTO', async () => {
    const note = await pipe.transform({ title: 'hello', stars: 3 }, body);
    expect(note).toBeInstanceOf(NoteDto);
    expect(note).toEqual({ title: 'hello', stars: 3 });
  });

  it('Given an unknown field, then it answers 400 naming it', async () => {
    const answer = await rejection({ title: 'hello', status: 'x' });
    expect(answer.fields).toEqual(['status']);
    expect(answer.message).toEqual(['property status should not exist']);
  });

  it('Given several wrong fields, then every one is named and no value is echoed', async () => {
    const answer = await rejection({ title: 'MARKER\u0000', stars: 2147483648 });
    expect(answer.fields).toEqual(['title', 'stars']);
    expect(JSON.stringify(answer)).not.toContain('MARKER');
    expect(JSON.stringify(answer)).not.toContain('2147483648');
  });

  it('Given an unknown key of 10,000 characters, then the answer names it cut to 64', async () => {
    const key = 'k'.repeat(10_000);
    const answer = await rejection({ title: 'hello', [key]: 1 });
    expect(answer.fields).toEqual([`${'k'.repeat(64)}...`]);
    expect(JSON.stringify(answer).length).toBeLessThan(500);
  });

  it.each([
    ['an array', [{ title: 'hello' }]],
    ['a string', 'hello'],
    ['a number', 42],
  ])('Given a body that is %s, then it answers 400 naming the body', async (_case, value) => {
    expect((await rejection(value)).fields).toEqual(['body']);
  });

  it('Given no body at all, then the required fields are named', async () => {
    expect((await rejection(undefined)).fields).toEqual(['title']);
  });

  it(`Given a field nested deeper than ${MAX_REQUEST_DEPTH} levels, then it answers 400 naming that field`, async () => {
    const answer = await rejection({ title: 'hello', deep: nested(MAX_REQUEST_DEPTH) });
    expect(answer.fields).toEqual(['deep']);
  });

  it('Given nesting 100,000 levels deep, then it answers 400 without exhausting the stack', async () => {
    const answer = await rejection({ title: 'hello', deep: nested(100_000) });
    expect(answer.fields).toEqual(['deep']);
  });

  it.each([
    ['an object', { title: 'hello', x: { constructor: 1 } }, 'x'],
    ['an array item', { title: 'hello', x: [{ constructor: [1] }] }, 'x'],
    ['a known field', { title: { constructor: 'x' } }, 'title'],
  ])(
    'Given %s holding a "constructor" key (class-transformer throws on it), then it answers 400 naming the field',
    async (_case, value, field) => {
      expect((await rejection(JSON.parse(JSON.stringify(value)))).fields).toEqual([field]);
    },
  );

  it('Given a "constructor" key at the top level, then it is an unknown field like any other', async () => {
    expect((await rejection({ title: 'hello', constructor: 1 })).fields).toEqual(['constructor']);
  });

  it('Given a query DTO, then an unknown query parameter is named', async () => {
    const query: ArgumentMetadata = { type: 'query', metatype: NoteDto };
    expect((await rejection({ title: 'x', page: '2' }, query)).fields).toEqual(['page']);
  });
});
