/**
 * `npm run test:consumers`: the consumer matrix. Each app under test/consumers/<app> (its own
 * package.json and package-lock.json) is copied into a temporary directory outside the
 * workspace with the shared user path (shared/, plus shared-health/ when the app depends on
 * @nestjs/terminus), installed from the registry exactly as its lockfile says (`npm ci`)
 * together with the five packed libraries (`npm pack` of libs/*), compiled with its own `tsc`,
 * its tables created by its `db:migrate` script (when it has one), and run with plain
 * `node --test` against the real PostgreSQL and Kafka, in a schema, topic
 * and consumer group of its own. Prints one line per app and, last, `N passed, N failed`.
 * The apps `readme-*` are bare Nest skeletons completed from the docs instead: `readme-nest12`
 * from the root README (its install line, its code blocks as src/ files, its topic command),
 * `readme-prisma` and `readme-drizzle` from the README and docs/STACKS.md, whose commands also
 * generate the client and create the tables (see readme-app.ts) in a database of the app's own.
 *
 * CONSUMERS=nest11-cjs,nest12-esm runs a subset; KEEP_CONSUMERS=1 keeps the temporary copies.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Client } from 'pg';
import { javaToolArgs } from '../support/java-kafka';
import { DOC_APPS, readmeApp, type ReadmeApp } from './readme-app';
import { stackDocFiles } from './stack-doc';

const HERE = __dirname;
const ROOT = join(HERE, '..', '..');
const RUN = randomBytes(3).toString('hex');
/** What the summary reports of each app's installed tree. */
const REPORTED = [
  '@nestjs/core',
  'typeorm',
  '@nestjs/typeorm',
  '@prisma/client',
  'drizzle-orm',
  '@nestjs/terminus',
  'typescript',
];
type DocApp = (typeof DOC_APPS)[number];
const isDocApp = (app: string): app is DocApp => (DOC_APPS as readonly string[]).includes(app);
/**
 * Where each documented stack's migration commands record what they applied, and the schema
 * the docs give the suite's tables on it.
 */
const DOC_TABLES: Partial<Record<DocApp, { MIGRATIONS_TABLE: string; SUITE_SCHEMA: string }>> = {
  'readme-prisma': { MIGRATIONS_TABLE: 'public._prisma_migrations', SUITE_SCHEMA: 'app' },
  'readme-drizzle': {
    MIGRATIONS_TABLE: 'drizzle.__drizzle_migrations',
    SUITE_SCHEMA: 'nest_outbox',
  },
};
/**
 * STAND-IN for Prisma's schema engine binary, which Prisma's CLI downloads from a host this
 * workplace cannot reach: the commands that need it run prisma-migrate.ts instead.
 */
const PRISMA_STAND_IN: ReadonlyArray<readonly [string, string]> = [
  ['npx prisma migrate dev --create-only --name', 'create'],
  ['npx prisma migrate deploy', 'deploy'],
].map(([command, action]) => [
  command!,
  `node -r ${require.resolve('ts-node/register')} ${join(HERE, 'prisma-migrate.ts')} ${action}`,
]);

interface Step {
  readonly code: number | null;
  readonly output: string;
}

interface AppResult {
  readonly app: string;
  readonly passed: boolean;
  readonly failedStep?: string;
  readonly versions: string;
  readonly seconds: number;
}

function log(app: string, line: string): void {
  process.stdout.write(`[${app}] ${line}\n`);
}

/** Runs a command, echoing its output prefixed with the app's name; never rejects. */
function run(
  app: string,
  command: string,
  args: string[],
  cwd: string,
  timeoutMs: number,
  env: Record<string, string> = {},
): Promise<Step> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd, env: { ...process.env, ...env } });
    let output = '';
    const echo = (chunk: Buffer) => {
      output += chunk.toString();
      for (const line of chunk.toString().split('\n')) if (line.trim()) log(app, line);
    };
    child.stdout.on('data', echo);
    child.stderr.on('data', echo);
    const timer = setTimeout(() => {
      log(app, `${command} ${args.join(' ')}: no end after ${timeoutMs / 1000} s, killing it`);
      child.kill('SIGKILL');
    }, timeoutMs);
    child.on('error', (error) => (output += String(error)));
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

/** Packs each library (after building them) into `dest`; returns the tarballs' paths. */
async function packLibraries(dest: string): Promise<string[]> {
  mkdirSync(dest, { recursive: true });
  const build = await run('build', 'npm', ['run', '-s', 'build'], ROOT, 600_000);
  if (build.code !== 0) throw new Error('npm run build failed');
  const tarballs: string[] = [];
  for (const lib of readdirSync(join(ROOT, 'libs'))) {
    const dir = join(ROOT, 'libs', lib);
    const packed = await run(
      'pack',
      'npm',
      ['pack', '--silent', '--pack-destination', dest],
      dir,
      120_000,
    );
    const file = packed.output.trim().split('\n').pop();
    if (packed.code !== 0 || !file) throw new Error(`npm pack of libs/${lib} failed`);
    tarballs.push(join(dest, file));
  }
  return tarballs;
}

function installedVersions(dir: string): string {
  return REPORTED.map((name) => {
    const file = join(dir, 'node_modules', name, 'package.json');
    const version = existsSync(file)
      ? (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version
      : '-';
    return `${name} ${version}`;
  }).join(', ');
}

/** One app's temporary copy and the names of its run. */
interface AppRun {
  readonly app: string;
  readonly dir: string;
  readonly env: Record<string, string>;
  readonly started: number;
  /** The README's commands, for the app built from it. */
  readonly readme?: ReadmeApp;
}

/**
 * Writes the docs' code blocks into the skeleton `dir` (and the poll helper its test takes; the
 * stacks' variants share one test).
 */
function completeFromDocs(
  app: DocApp,
  dir: string,
  env: Record<string, string>,
  work: string,
): ReadmeApp {
  const readme = readmeApp(
    ROOT,
    {
      topic: env.CONSUMER_TOPIC!,
      group: env.CONSUMER_GROUP!,
      broker: (process.env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(',')[0]!,
      packs: join(work, 'packs'),
    },
    app,
  );
  for (const [file, text] of readme.files) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    writeFileSync(join(dir, file), text);
  }
  cpSync(join(HERE, 'shared', 'poll.ts'), join(dir, 'src', 'shared', 'poll.ts'));
  if (app === 'readme-nest12') return readme;
  cpSync(join(HERE, 'shared-doc-app', 'main.test.ts'), join(dir, 'src', 'main.test.ts'));
  if (app !== 'readme-prisma') return readme;
  let migrate = readme.migrate!;
  for (const [command, standIn] of PRISMA_STAND_IN) migrate = migrate.replaceAll(command, standIn);
  return { ...readme, migrate };
}

/** Copies the app and the shared sources it takes into `work`. */
function assemble(app: string, work: string, javaTool: string[]): AppRun {
  const dir = join(work, app);
  cpSync(join(HERE, app), dir, {
    recursive: true,
    filter: (src) => !/[\\/](node_modules|dist)$/.test(src),
  });
  const names = `${app.replace(/-/g, '_')}_${RUN}`;
  const env: Record<string, string> = {
    CONSUMER_SCHEMA: `pkg_c_${names}`,
    CONSUMER_TOPIC: `pkg-consumer-${app}-${RUN}`,
    CONSUMER_GROUP: `pkg-consumer-${app}-${RUN}`,
    KAFKAJS_NO_PARTITIONER_WARNING: '1',
    // What docs/STACKS.md's modules connect to.
    DATABASE_URL: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
  };
  if (app === 'readme-nest12') {
    // An independent producer (Java kafka-clients) for the README app's compressed batches.
    env.KAFKA_TOOL = JSON.stringify(javaTool);
  } else if (isDocApp(app)) {
    // A database of its own, where the docs' migrations create the tables in schema `app`.
    const url = new URL(env.DATABASE_URL!);
    url.pathname = `/${env.CONSUMER_SCHEMA}`;
    env.DATABASE_URL = url.toString();
    Object.assign(env, DOC_TABLES[app]);
    // STAND-IN, as for `migrate` (PRISMA_STAND_IN): `prisma generate` downloads the schema
    // engine binary when missing; with Prisma's variable naming /bin/true it generates the client.
    if (app === 'readme-prisma') env.PRISMA_SCHEMA_ENGINE_BINARY = '/bin/true';
  }
  if (isDocApp(app)) {
    const readme = completeFromDocs(app, dir, env, work);
    return { app, dir, env, started: Date.now(), readme };
  }
  cpSync(join(HERE, 'shared'), join(dir, 'src', 'shared'), { recursive: true });
  for (const [file, text] of stackDocFiles(ROOT, app)) writeFileSync(join(dir, file), text);
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
  };
  // What differs by Nest major (the Kafka controller's typing) comes from shared-nest<major>.
  const major = /\d+/.exec(manifest.dependencies['@nestjs/core'] ?? '')?.[0];
  cpSync(join(HERE, `shared-nest${major}`), join(dir, 'src', 'nest'), { recursive: true });
  if (manifest.dependencies['@nestjs/terminus']) {
    cpSync(join(HERE, 'shared-health'), join(dir, 'src', 'shared-health'), { recursive: true });
  }
  return { app, dir, env, started: Date.now() };
}

/** A command to run; `expect`, when given, must be in its output too (a tool that exits 0 on errors). */
type StepSpec = [name: string, command: string, args: string[], timeoutMs: number, expect?: string];

/** Runs `steps` in order; returns the name of the first that failed. */
async function runSteps(target: AppRun, steps: StepSpec[]): Promise<string | undefined> {
  for (const [name, command, args, timeoutMs, expect] of steps) {
    log(target.app, `--- ${name}`);
    const step = await run(target.app, command, args, target.dir, timeoutMs, target.env);
    if (step.code !== 0) return name;
    if (expect && !step.output.includes(expect)) {
      log(target.app, `${name}: its output does not say "${expect}"`);
      return name;
    }
  }
  return undefined;
}

/** Installs (the lockfile, then the tarballs, or the README's install line) and compiles one app. */
function prepare(target: AppRun, tarballs: string[]): Promise<string | undefined> {
  const install: StepSpec = target.readme
    ? ['README: install', 'bash', ['-e', '-c', target.readme.install], 900_000]
    : [
        'npm install (packed libraries)',
        'npm',
        ['install', '--no-save', '--no-audit', '--no-fund', ...tarballs],
        900_000,
      ];
  const generate: StepSpec[] = target.readme?.generate
    ? [['docs: generate', 'bash', ['-e', '-c', target.readme.generate], 300_000]]
    : [];
  return runSteps(target, [
    ['npm ci', 'npm', ['ci', '--no-audit', '--no-fund'], 900_000],
    install,
    ...generate,
    ['tsc', join(target.dir, 'node_modules', '.bin', 'tsc'), ['-p', 'tsconfig.json'], 300_000],
  ]);
}

/** Creates (`drop` false) or drops the database named by `url`, on its server. */
async function database(url: string, drop: boolean): Promise<void> {
  const server = new URL(url);
  const name = server.pathname.slice(1);
  server.pathname = '/postgres';
  const client = new Client({ connectionString: server.toString() });
  await client.connect();
  try {
    await client.query(
      drop ? `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)` : `CREATE DATABASE "${name}"`,
    );
  } finally {
    await client.end();
  }
}

/**
 * The docs' commands that create the tables, then `push` when shown: it must find nothing to
 * change (drizzle-kit prints its errors and exits 0), the suite's tables being out of its sight.
 */
function docTables(readme: ReadmeApp): StepSpec[] {
  const steps: StepSpec[] = [['docs: migrate', 'bash', ['-e', '-c', readme.migrate!], 300_000]];
  if (readme.push) {
    steps.push(['docs: push', 'bash', ['-e', '-c', readme.push], 300_000, 'No changes detected']);
  }
  return steps;
}

/** Runs the user path of a prepared app against the real stack. */
async function userPath(target: AppRun): Promise<string | undefined> {
  const before: StepSpec[] = target.readme
    ? [['README: topic', 'bash', ['-e', '-c', target.readme.topic], 120_000]]
    : [];
  const ownDatabase = target.readme?.migrate !== undefined;
  if (ownDatabase) {
    const created = await database(target.env.DATABASE_URL!, false).catch((error: Error) => {
      log(target.app, `CREATE DATABASE failed: ${error.message}`);
      return false;
    });
    if (created === false) return 'create database';
    before.push(...docTables(target.readme));
  }
  // The tables, created the way docs/STACKS.md tells the app's stack (its `db:migrate` script).
  const manifest = JSON.parse(readFileSync(join(target.dir, 'package.json'), 'utf8')) as {
    scripts?: Record<string, string>;
  };
  if (manifest.scripts?.['db:migrate']) {
    before.push(['npm run db:migrate', 'npm', ['run', '-s', 'db:migrate'], 300_000]);
  }
  try {
    return await runSteps(target, [
      ...before,
      [
        'node --test',
        process.execPath,
        ['--test', '--test-reporter=spec', 'dist/main.test.js'],
        300_000,
      ],
    ]);
  } finally {
    if (ownDatabase) {
      await database(target.env.DATABASE_URL!, true).catch((error: Error) =>
        log(target.app, `DROP DATABASE failed: ${error.message}`),
      );
    }
  }
}

function result(target: AppRun, failedStep: string | undefined): AppResult {
  return {
    app: target.app,
    passed: failedStep === undefined,
    failedStep,
    versions: installedVersions(target.dir),
    seconds: (Date.now() - target.started) / 1000,
  };
}

/**
 * Installs and compiles the apps side by side (network and disk), then runs their user paths
 * one after the other (the shared stack and the machine's two cores).
 */
async function runApps(apps: string[], work: string, tarballs: string[]): Promise<AppResult[]> {
  const javaTool = await javaToolArgs();
  const targets = apps.map((app) => assemble(app, work, javaTool));
  const prepared = await Promise.all(targets.map((t) => prepare(t, tarballs)));
  const results: AppResult[] = [];
  for (const [i, target] of targets.entries()) {
    results.push(result(target, prepared[i] ?? (await userPath(target))));
  }
  return results;
}

async function main(): Promise<number> {
  const selected = process.env.CONSUMERS?.split(',').filter(Boolean);
  const apps = readdirSync(HERE)
    .filter((d) => existsSync(join(HERE, d, 'package-lock.json')))
    .filter((d) => !selected || selected.includes(d))
    .sort();
  const work = mkdtempSync(join(tmpdir(), 'nest-outbox-consumers-'));
  process.stdout.write(`consumer matrix ${RUN}: ${apps.join(', ')} in ${work}\n`);
  const results: AppResult[] = [];
  try {
    const packs = join(work, 'packs');
    const tarballs = await packLibraries(packs);
    results.push(...(await runApps(apps, work, tarballs)));
  } catch (error) {
    process.stdout.write(`consumer matrix could not run: ${(error as Error).message}\n`);
  } finally {
    if (process.env.KEEP_CONSUMERS === '1') process.stdout.write(`kept ${work}\n`);
    else rmSync(work, { recursive: true, force: true });
  }
  process.stdout.write('\n=== consumer matrix ===\n');
  for (const r of results) {
    const verdict = r.passed ? 'PASS' : `FAIL at ${r.failedStep}`;
    process.stdout.write(
      `${r.app.padEnd(16)} ${verdict.padEnd(40)} ${r.seconds.toFixed(0)} s  ${r.versions}\n`,
    );
  }
  const passed = results.filter((r) => r.passed).length;
  const failed = apps.length - passed;
  process.stdout.write(`${passed} passed, ${failed} failed\n`);
  return failed === 0 && apps.length > 0 ? 0 : 1;
}

void main().then((code) => process.exit(code));
