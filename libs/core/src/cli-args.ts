import { parseArgs } from 'node:util';
import { InvalidOptionsError, NestOutboxError } from './nest-outbox.error';
import { OptionChecks } from './option-checks';

/** One `--flag` of a command line. `integer` and `date` values are validated. @publicApi */
export type CliFlag =
  | { readonly type: 'string' }
  | { readonly type: 'boolean' }
  | { readonly type: 'integer'; readonly min?: number; readonly max?: number }
  | { readonly type: 'date' };

/** A command line: its name, its usage text and its flags. @publicApi */
export interface CliSpec<F extends Record<string, CliFlag>> {
  /** Named in errors, for example `relay:cli`. */
  readonly name: string;
  /** Printed by `--help`, and after every usage error. */
  readonly usage: string;
  readonly flags: F;
}

/** The parsed value of each flag given (absent flags are `undefined`). @publicApi */
export type CliValues<F extends Record<string, CliFlag>> = {
  -readonly [K in keyof F]?: F[K] extends { type: 'integer' }
    ? number
    : F[K] extends { type: 'boolean' }
      ? boolean
      : F[K] extends { type: 'date' }
        ? Date
        : string;
};

/** A parsed command line. @publicApi */
export interface ParsedCli<F extends Record<string, CliFlag>> {
  /** `--help` or `-h` was given: print the usage, run nothing. */
  readonly help: boolean;
  readonly values: CliValues<F>;
  readonly positionals: string[];
}

/** A command line that cannot be run as typed; the message ends with the usage. @publicApi */
export class CliUsageError extends NestOutboxError {
  constructor(command: string, problem: string, usage: string) {
    super(`${command}: ${problem}\n${usage}`);
  }
}

/**
 * Parses `argv` with `util.parseArgs` (strict), then checks `integer` and `date` flags.
 * @throws CliUsageError naming the flag and what to type instead
 * @publicApi
 */
export function parseCliArgs<F extends Record<string, CliFlag>>(
  spec: CliSpec<F>,
  argv: readonly string[],
): ParsedCli<F> {
  const options: Record<string, { type: 'string' | 'boolean'; short?: string }> = {
    help: { type: 'boolean', short: 'h' },
  };
  for (const [name, flag] of Object.entries(spec.flags))
    options[name] = { type: flag.type === 'boolean' ? 'boolean' : 'string' };
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: [...argv], options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new CliUsageError(spec.name, (error as Error).message, spec.usage);
  }
  const raw = parsed.values as Record<string, string | boolean | undefined>;
  const values: Record<string, unknown> = {};
  const check = new OptionChecks(spec.name);
  try {
    for (const [name, flag] of Object.entries(spec.flags)) {
      const given = raw[name];
      if (given === undefined) continue;
      if (flag.type === 'integer') {
        values[name] = check.integerText(`--${name}`, given as string, undefined, flag);
      } else if (flag.type === 'date') values[name] = isoDate(check, `--${name}`, given as string);
      else values[name] = given;
    }
  } catch (error) {
    if (!(error instanceof InvalidOptionsError)) throw error;
    throw new CliUsageError(spec.name, error.message.slice(spec.name.length + 2), spec.usage);
  }
  return {
    help: raw.help === true,
    values: values as CliValues<F>,
    positionals: parsed.positionals,
  };
}

function isoDate(check: OptionChecks, option: string, text: string): Date {
  const date = new Date(text);
  if (!/^\d{4}-\d{2}-\d{2}/.test(text) || Number.isNaN(date.getTime())) {
    check.fail(
      option,
      `must be an ISO-8601 time (got ${JSON.stringify(text)}), for example 2026-01-31T12:00:00Z`,
    );
  }
  return date;
}

/** Where a command writes. @publicApi */
export interface CliIo {
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
}

const processIo: CliIo = {
  out: (text) => process.stdout.write(`${text}\n`),
  err: (text) => process.stderr.write(`${text}\n`),
};

/**
 * Runs a command line: usage for `--help` (exit 0), a usage error (2), another error (1), else
 * `main`'s code. Sets `process.exitCode` rather than exiting, so that pools close.
 * @publicApi
 */
export async function runCli<F extends Record<string, CliFlag>>(
  spec: CliSpec<F>,
  argv: readonly string[],
  main: (parsed: ParsedCli<F>, io: CliIo) => Promise<number | void>,
  io: CliIo = processIo,
): Promise<number> {
  let code: number;
  try {
    const parsed = parseCliArgs(spec, argv);
    if (parsed.help) io.out(spec.usage);
    code = parsed.help ? 0 : ((await main(parsed, io)) ?? 0);
  } catch (error) {
    io.err(error instanceof Error ? error.message : String(error));
    code = error instanceof CliUsageError ? 2 : 1;
  }
  process.exitCode = code;
  return code;
}
