import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The app the root README describes, read from its code blocks: each fenced block right after
 * `<!-- consumer-app: <name> -->` is a file of the app (`src/...`) or one of its commands
 * (`install`, `topic`). The README's names are replaced by the run's own (topic, consumer
 * group, broker, where the packed libraries are); nothing else is changed.
 */
export interface ReadmeApp {
  readonly files: ReadonlyMap<string, string>;
  readonly install: string;
  readonly topic: string;
}

/** The README's names and the run's. */
export interface ReadmeNames {
  readonly topic: string;
  readonly group: string;
  readonly broker: string;
  readonly packs: string;
}

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

function rename(text: string, names: ReadmeNames): string {
  return text
    .replaceAll("'order-events'", `'${names.topic}'`)
    .replaceAll("'shipping'", `'${names.group}'`)
    .replaceAll('localhost:9092', names.broker)
    .replaceAll('../nest-outbox/packs/', `${names.packs}/`);
}

export function readmeApp(root: string, names: ReadmeNames): ReadmeApp {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const blocks = new Map<string, string>();
  for (const [, name, body] of readme.matchAll(MARKED_BLOCK)) {
    if (name && body !== undefined) blocks.set(name, `${rename(body, names)}\n`);
  }
  const missing = EXPECTED.filter((name) => !blocks.has(name));
  if (missing.length > 0)
    throw new Error(`README.md has no block marked <!-- consumer-app: ${missing.join(' | ')} -->`);
  const files = new Map([...blocks].filter(([name]) => name.startsWith('src/')));
  return { files, install: blocks.get('install')!, topic: blocks.get('topic')! };
}
