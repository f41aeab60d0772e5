/**
 * `npm run test:consumers`: the consumer matrix. Each app under test/consumers/<app> (its own
 * package.json and package-lock.json) is copied into a temporary directory outside the
 * workspace with the shared user path (shared/, plus shared-health/ when the app depends on
 * @nestjs/terminus), installed from the registry exactly as its lockfile says (`npm ci`)
 * together with the five packed libraries (`npm pack` of libs/*), compiled with its own `tsc`,
 * its tables created by its `db:migrate` script (when it has one), and run with plain
 * `node --test` against the real PostgreSQL and Kafka, in a schema, topic
 * and consumer group of its own. Prints one line per app and, last, `N passed, N failed`.
 * The app `readme-nest12` is a bare Nest skeleton completed from the root README instead: its
 * install line, its code blocks as src/ files, its topic command (see readme-app.ts).
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
import { javaToolArgs } from '../support/java-kafka';
import { readmeApp, type ReadmeApp } from './readme-app';
import { stackDocFiles } from './stack-doc';

const HERE = __dirname;
const ROOT = join(HERE, '..', '..');
const RUN = randomBytes(3).toString('hex');
/** What the summary reports of each app's installed tree. */
const REPORTED = ['@nestjs/core', 'typeorm', '@nestjs/typeorm', '@nestjs/terminus', 'typescript'];
/** The app built from the root README's code blocks. */
const README_APP = 'readme-nest12';

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

/** Writes the README's code blocks into the skeleton `dir` (and the poll helper its test takes). */
function completeFromReadme(dir: string, env: Record<string, string>, work: string): ReadmeApp {
  const readme = readmeApp(ROOT, {
    topic: env.CONSUMER_TOPIC!,
    group: env.CONSUMER_GROUP!,
    broker: (process.env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(',')[0]!,
    packs: join(work, 'packs'),
  });
  for (const [file, text] of readme.files) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    writeFileSync(join(dir, file), text);
  }
  cpSync(join(HERE, 'shared', 'poll.ts'), join(dir, 'src', 'shared', 'poll.ts'));
  return readme;
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
  if (app === README_APP) {
    // An independent producer (Java kafka-clients) for the README app's compressed batches.
    env.KAFKA_TOOL = JSON.stringify(javaTool);
    const readme = completeFromReadme(dir, env, work);
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

type StepSpec = [name: string, command: string, args: string[], timeoutMs: number];

/** Runs `steps` in order; returns the name of the first that failed. */
async function runSteps(target: AppRun, steps: StepSpec[]): Promise<string | undefined> {
  for (const [name, command, args, timeoutMs] of steps) {
    log(target.app, `--- ${name}`);
    const step = await run(target.app, command, args, target.dir, timeoutMs, target.env);
    if (step.code !== 0) return name;
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
  return runSteps(target, [
    ['npm ci', 'npm', ['ci', '--no-audit', '--no-fund'], 900_000],
    install,
    ['tsc', join(target.dir, 'node_modules', '.bin', 'tsc'), ['-p', 'tsconfig.json'], 300_000],
  ]);
}

/** Runs the user path of a prepared app against the real stack. */
function userPath(target: AppRun): Promise<string | undefined> {
  const before: StepSpec[] = target.readme
    ? [['README: topic', 'bash', ['-e', '-c', target.readme.topic], 120_000]]
    : [];
  // The tables, created the way docs/STACKS.md tells the app's stack (its `db:migrate` script).
  const manifest = JSON.parse(readFileSync(join(target.dir, 'package.json'), 'utf8')) as {
    scripts?: Record<string, string>;
  };
  if (manifest.scripts?.['db:migrate']) {
    before.push(['npm run db:migrate', 'npm', ['run', '-s', 'db:migrate'], 300_000]);
  }
  return runSteps(target, [
    ...before,
    [
      'node --test',
      process.execPath,
      ['--test', '--test-reporter=spec', 'dist/main.test.js'],
      300_000,
    ],
  ]);
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
