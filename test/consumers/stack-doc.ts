import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The blocks docs/STACKS.md gives a consumer app: each fenced block right after
 * `<!-- stack-app: <app>[,<app>...] <name> -->` is `<name>` for each app it names: a file of the
 * app's copy (replacing nothing committed: the app's own files import them), or, for the apps
 * built from the docs (readme-app.ts), one of their commands (`install`, `generate`, `migrate`,
 * `push`). So the document's snippets are compiled, and its modules run, on the app's versions.
 */
const MARKED_BLOCK = /<!-- stack-app: (\S+) (\S+) -->\s*```[a-z]*\n([\s\S]*?)\n```/g;

/** The README's app on Prisma and on Drizzle: what docs/STACKS.md gives in place of TypeORM's. */
const STACK_VARIANT = [
  'install',
  'src/app.module.ts',
  'src/orders.service.ts',
  'src/order-events.controller.ts',
  'migrate',
];

/** What each app takes from the document: a block missing from it fails the run. */
export const STACK_DOC_FILES: Readonly<Record<string, readonly string[]>> = {
  'nest12-prisma': ['src/prisma/prisma.service.ts'],
  'nest12-drizzle': ['src/drizzle/drizzle.module.ts', 'src/drizzle/contract.example.ts'],
  'nest12-esm': ['src/metrics.example.ts'],
  'readme-prisma': [
    ...STACK_VARIANT,
    'generate',
    'prisma/schema.prisma',
    'prisma.config.ts',
    'prisma/migrations/<timestamp>_orders/migration.sql',
    'src/prisma/prisma.service.ts',
  ],
  'readme-drizzle': [
    ...STACK_VARIANT,
    'push',
    'drizzle.config.ts',
    'src/db/schema.ts',
    'src/drizzle/drizzle.module.ts',
  ],
};

/** The blocks of docs/STACKS.md for `app`, by name (none for an app that takes none). */
export function stackDocFiles(root: string, app: string): Map<string, string> {
  const doc = readFileSync(join(root, 'docs', 'STACKS.md'), 'utf8');
  const files = new Map<string, string>();
  for (const [, targets, file, body] of doc.matchAll(MARKED_BLOCK)) {
    if (targets?.split(',').includes(app) && file && body !== undefined)
      files.set(file, `${body}\n`);
  }
  const missing = (STACK_DOC_FILES[app] ?? []).filter((file) => !files.has(file));
  if (missing.length > 0) {
    const marks = missing.map((file) => `<!-- stack-app: ${app} ${file} -->`).join(', ');
    throw new Error(`docs/STACKS.md has no block marked ${marks}`);
  }
  return files;
}
