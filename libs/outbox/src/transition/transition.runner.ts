import type { EntityManager } from 'typeorm';
import { InvalidTransitionError } from '../errors/invalid-transition.error';
import { queryInTransaction } from '../store/transaction-query';
import type { TransitionSpec } from './transition.interface';
import { transitionStatement, type TransitionStatement } from './transition.sql';

const MAX_CACHED_SHAPES = 256;

function shapeOf(spec: TransitionSpec): string {
  const set = Object.keys(spec.set ?? {}).join(',');
  return `${spec.table}|${spec.idColumn ?? ''}|${spec.statusColumn ?? ''}|${spec.versionColumn ?? ''}|${set}`;
}

/**
 * Runs conditional transitions, caching one statement per shape.
 * @internal
 */
export class TransitionRunner {
  private readonly statements = new Map<string, TransitionStatement>();

  async run(tx: EntityManager, spec: TransitionSpec): Promise<number> {
    const statement = this.statementFor(spec);
    const from = typeof spec.from === 'string' ? [spec.from] : [...spec.from];
    const set = spec.set ?? {};
    const values = [spec.id, spec.to, from, ...statement.setColumns.map((c) => set[c])];
    const rows = await queryInTransaction(tx, statement, values);
    const version = rows[0]?.version;
    if (version === undefined || version === null) {
      throw new InvalidTransitionError(spec.table, spec.id, from, spec.to);
    }
    return Number(version);
  }

  private statementFor(spec: TransitionSpec): TransitionStatement {
    const shape = shapeOf(spec);
    let statement = this.statements.get(shape);
    if (!statement) {
      statement = transitionStatement(spec);
      if (this.statements.size >= MAX_CACHED_SHAPES) this.statements.clear();
      this.statements.set(shape, statement);
    }
    return statement;
  }
}
