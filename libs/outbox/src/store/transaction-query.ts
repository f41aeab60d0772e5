import { createHash } from 'node:crypto';

/** A statement run on a transaction, prepared under `name` where the driver allows. @internal */
export interface NamedStatement {
  readonly name: string;
  readonly text: string;
}

/**
 * `<prefix>_<digest of text>`: one prepared statement per text on each connection, and a
 * changed text never reuses a name prepared for another.
 * @internal
 */
export function statementName(prefix: string, text: string): string {
  return `${prefix}_${createHash('sha1').update(text).digest('hex').slice(0, 16)}`;
}
