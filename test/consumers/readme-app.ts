import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { stackDocFiles } from './stack-doc';

/**
 * The apps the docs describe, read from their code blocks. `readme-nest12` is the root README's
 * (TypeORM): each fenced block right after `<!-- consumer-app: <name> -->` is a file of the app
 * (`src/...`) or one of its commands (`install`, `topic`). `readme-prisma` and `readme-drizzle`
 * are the same app on Prisma and Drizzle: the README's topic step, `main.ts`, controller and
 * health check as they are, the rest from docs/STACKS.md's blocks for the app (its commands:
 * `install`, `generate` before compiling, `migrate` and `push` before the run). The docs' names
 * are replaced by the run's own (topic, consumer group, broker, where the packed libraries are,
 * the `<timestamp>` of a migration's folder); nothing else is changed.
 */
export interface ReadmeApp {
  readonly files: ReadonlyMap<string, string>;
  readonly install: string;
  readonly topic: string;
  readonly generate?: string;
  readonly migrate?: string;
  readonly push?: string;
}

/** The docs' names and the run's. */
export interface ReadmeNames {
  readonly topic: string;
  readonly group: string;
  readonly broker: string;
  readonly packs: string;
}

/** The apps built from the docs; the first is the README's own. */
export const DOC_APPS = ['readme-nest12', 'readme-prisma', 'readme-drizzle'] as const;

const MARKED_BLOCK = /<!-- consumer-app: (\S+) -->\s*```[a-z]*\n([\s\S]*?)\n```/g;
/** What the README's user path consists of: a block missing from it fails the run. */
const EXPECTED = [
  'install',
  'topic',
  'src/orders.migration.ts',
  'src/app.module.ts',
  'src/main.ts',
  'src/orders.service.ts',
  'src/orders.controller.ts',
  'src/order-events.controller.ts',
  'src/health.controller.ts',
];
/** What a stack's variant takes from the README as it is. */
const README_AS_IS = [
  'topic',
  'src/main.ts',
  'src/orders.controller.ts',
  'src/health.controller.ts',
];
const COMMANDS = new Set(['install', 'topic', 'generate', 'migrate', 'push']);

function rename(text: string, names: ReadmeNames): string {
  return text
    .replaceAll("'order-events'", `'${names.topic}'`)
    .replaceAll("'shipping'", `'${names.group}'`)
    .replaceAll('localhost:9092', names.broker)
    .replaceAll('../nest-outbox/packs/', `${names.packs}/`);
}

/** A migration folder's timestamp, as `prisma migrate dev --create-only` names it. */
function timestamp(at: Date): string {
  return at.toISOString().replace(/\D/g, '').slice(0, 14);
}

function readmeBlocks(root: string): Map<string, string> {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const blocks = new Map<string, string>();
  for (const [, name, body] of readme.matchAll(MARKED_BLOCK)) {
    if (name && body !== undefined) blocks.set(name, `${body}\n`);
  }
  const missing = EXPECTED.filter((name) => !blocks.has(name));
  if (missing.length > 0)
    throw new Error(`README.md has no block marked <!-- consumer-app: ${missing.join(' | ')} -->`);
  return blocks;
}

export function readmeApp(
  root: string,
  names: ReadmeNames,
  app: (typeof DOC_APPS)[number] = 'readme-nest12',
  now = new Date(),
): ReadmeApp {
  const readme = readmeBlocks(root);
  const blocks =
    app === 'readme-nest12'
      ? readme
      : new Map([
          ...README_AS_IS.map((name) => [name, readme.get(name)!] as const),
          ...stackDocFiles(root, app),
        ]);
  const files = new Map<string, string>();
  const commands = new Map<string, string>();
  for (const [name, body] of blocks) {
    if (COMMANDS.has(name)) commands.set(name, rename(body, names));
    else files.set(name.replace('<timestamp>', timestamp(now)), rename(body, names));
  }
  return {
    files,
    install: commands.get('install')!,
    topic: commands.get('topic')!,
    generate: commands.get('generate'),
    migrate: commands.get('migrate'),
    push: commands.get('push'),
  };
}
