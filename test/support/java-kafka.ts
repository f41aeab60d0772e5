import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from './env';
import { KAFKA_LIBS } from './kafka-node';

/** A record as the Java tool reads it (produce) and prints it (consume); text is UTF-8. */
export interface JavaRecord {
  key: string | null;
  value: string | null;
  headers?: Record<string, string | null>;
  /** Produce only: the partition to write to (default: the Java client's partitioner). */
  partition?: number;
}

/** A record read by the Java consumer. */
export interface JavaConsumedRecord extends JavaRecord {
  partition: number;
  offset: number;
  headers: Record<string, string | null>;
}

export type JavaCompression = 'none' | 'gzip' | 'snappy' | 'lz4' | 'zstd';

const TOOL = join(REPO_ROOT, 'test/support/java/KafkaTool.java');

let compiled: Promise<string> | undefined;

/** The tool compiled once per source version (a single-file run compiles it every time). */
function compiledTool(): Promise<string> {
  if (!existsSync(join(KAFKA_LIBS, '.complete'))) {
    throw new Error(`no Kafka jars in ${KAFKA_LIBS}: run "bash scripts/stack.sh fetch-kafka"`);
  }
  const hash = createHash('sha256').update(readFileSync(TOOL)).digest('hex').slice(0, 12);
  const dir = join(tmpdir(), `nest-outbox-kafka-tool-${hash}`);
  compiled ??= existsSync(dir)
    ? Promise.resolve(dir)
    : (async () => {
        // Compiled aside, then renamed: parallel test files never see half a class.
        const scratch = mkdtempSync(`${dir}-`);
        await promisify(execFile)('javac', [
          '-nowarn',
          '-cp',
          `${KAFKA_LIBS}/*`,
          '-d',
          scratch,
          TOOL,
        ]);
        try {
          renameSync(scratch, dir);
        } catch {
          rmSync(scratch, { recursive: true, force: true }); // another file compiled it first
        }
        return dir;
      })();
  return compiled;
}

/**
 * The JVM arguments that run the tool (`java ...args produce|consume ...`): for a process
 * outside this workspace, such as an app of the consumer matrix.
 */
export async function javaToolArgs(): Promise<string[]> {
  return [
    '-cp',
    `${await compiledTool()}:${KAFKA_LIBS}/*`,
    '-Xmx256m',
    '-XX:+UseSerialGC',
    '-XX:TieredStopAtLevel=1',
    `-Dlog4j2.configurationFile=${REPO_ROOT}/scripts/kafka/log4j2.yaml`,
    'KafkaTool',
  ];
}

async function runTool(args: string[], stdin: string): Promise<string> {
  const jvm = await javaToolArgs();
  return new Promise((resolve, reject) => {
    const child = execFile(
      'java',
      [...jvm, ...args],
      { maxBuffer: 256 * 1024 * 1024 },
      (error, stdout, stderr) =>
        error
          ? reject(new Error(`KafkaTool ${args[0]} failed: ${error.message}\n${stderr}`))
          : resolve(stdout),
    );
    child.stdin?.end(stdin);
  });
}

/**
 * Writes `records` with a plain Java producer (kafka-clients, `acks=all`), one batch per
 * partition compressed with `compression`; with `transaction`, inside one transaction that
 * ends as told.
 */
export async function javaProduce(
  brokers: string[],
  topic: string,
  records: readonly JavaRecord[],
  options: {
    compression?: JavaCompression;
    transaction?: { id: string; end: 'commit' | 'abort' };
  } = {},
): Promise<void> {
  const args = ['produce', '--brokers', brokers.join(','), '--topic', topic];
  args.push('--compression', options.compression ?? 'none');
  if (options.transaction) {
    args.push('--transactional-id', options.transaction.id, '--end', options.transaction.end);
  }
  await runTool(args, records.map((r) => JSON.stringify(r)).join('\n'));
}

/**
 * Reads `topic` from the start with a plain Java consumer (`read_committed`) until `count`
 * records arrived or `idleMs` passed without one.
 */
export async function javaConsume(
  brokers: string[],
  topic: string,
  options: { count?: number; idleMs?: number } = {},
): Promise<JavaConsumedRecord[]> {
  const args = ['consume', '--brokers', brokers.join(','), '--topic', topic];
  if (options.count !== undefined) args.push('--count', String(options.count));
  args.push('--timeout-ms', String(options.idleMs ?? 30_000));
  const out = await runTool(args, '');
  return out
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as JavaConsumedRecord);
}

/** A partition's offset committed by a group (-1 when none) and its log end offset. */
export interface JavaGroupOffset {
  partition: number;
  committed: number;
  logEnd: number;
}

/**
 * The offsets `groupId` committed on `topic` and each partition's log end, read with Kafka's own
 * Admin client (the calls `kafka-consumer-groups.sh --describe` makes), sorted by partition.
 */
export async function javaGroupOffsets(
  brokers: string[],
  groupId: string,
  topic: string,
): Promise<JavaGroupOffset[]> {
  const args = ['group-offsets', '--brokers', brokers.join(','), '--group', groupId];
  const out = await runTool([...args, '--topic', topic], '');
  return out
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as JavaGroupOffset)
    .sort((a, b) => a.partition - b.partition);
}
