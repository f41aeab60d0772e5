import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { STACK_DOC_FILES, stackDocFiles } from './stack-doc';

const ROOT = join(__dirname, '..', '..');

describe('the consumer apps completed from docs/STACKS.md', () => {
  it.each(Object.entries(STACK_DOC_FILES))(
    'Given %s, then every file it takes is a marked block of the document',
    (app, expected) => {
      expect([...stackDocFiles(ROOT, app).keys()].sort()).toEqual([...expected].sort());
    },
  );

  it('Given the Prisma generator the document shows, then it is the one the committed client was generated with', () => {
    const doc = readFileSync(join(ROOT, 'docs', 'STACKS.md'), 'utf8');
    const shown = /```prisma\n([\s\S]*?)\n```/.exec(doc)?.[1];
    const schema = readFileSync(
      join(__dirname, 'nest12-prisma', 'prisma', 'schema.prisma'),
      'utf8',
    );
    expect(shown).toBeDefined();
    expect(schema).toContain(shown);
  });

  it('Given an app with no blocks, then it takes nothing', () => {
    expect(stackDocFiles(ROOT, 'nest11-cjs').size).toBe(0);
  });
});
