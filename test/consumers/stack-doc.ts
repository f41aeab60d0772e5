import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The files docs/STACKS.md gives a consumer app: each fenced block right after
 * `<!-- stack-app: <app> <file> -->` becomes `<file>` of that app's copy (replacing nothing
 * committed: the app's own files import them), so the document's snippets are compiled, and
 * its modules run, on the app's versions.
 */
const MARKED_BLOCK = /<!-- stack-app: (\S+) (\S+) -->\s*```[a-z]*\n([\s\S]*?)\n```/g;

/** What each app takes from the document: a block missing from it fails the run. */
export const STACK_DOC_FILES: Readonly<Record<string, readonly string[]>> = {
  'nest12-prisma': ['src/prisma/prisma.service.ts', 'src/prisma/orders.example.ts'],
  'nest12-drizzle': [
    'src/drizzle/drizzle.module.ts',
    'src/drizzle/orders.example.ts',
    'src/drizzle/contract.example.ts',
  ],
  'nest12-esm': ['src/metrics.example.ts'],
};

/** The blocks of docs/STACKS.md for `app`, by file (none for an app that takes none). */
export function stackDocFiles(root: string, app: string): Map<string, string> {
  const doc = readFileSync(join(root, 'docs', 'STACKS.md'), 'utf8');
  const files = new Map<string, string>();
  for (const [, target, file, body] of doc.matchAll(MARKED_BLOCK)) {
    if (target === app && file && body !== undefined) files.set(file, `${body}\n`);
  }
  const missing = (STACK_DOC_FILES[app] ?? []).filter((file) => !files.has(file));
  if (missing.length > 0) {
    const marks = missing.map((file) => `<!-- stack-app: ${app} ${file} -->`).join(', ');
    throw new Error(`docs/STACKS.md has no block marked ${marks}`);
  }
  return files;
}
