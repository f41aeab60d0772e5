import type { SqlExecutor } from '@nest-outbox/core/internal';
import type { OutboxRow } from '../event/outbox-event.interface';
import { InvalidTransitionError } from '../errors/invalid-transition.error';
import type { OutboxMetrics } from '../metrics/outbox.metrics';
import { OUTBOX_INSERT_COLUMNS, outboxRowValues } from '../store/outbox-insert.sql';
import type { TransitionSpec } from './transition.interface';
import {
  transitionRecordStatement,
  transitionStatement,
  type TransitionStatement,
} from './transition.sql';

const MAX_CACHED_SHAPES = 256;
/** The event's columns the single statement binds: all but the version, which SQL gives. */
const EVENT_COLUMNS = OUTBOX_INSERT_COLUMNS.filter(([name]) => name !== 'aggregate_version');

function shapeOf(spec: TransitionSpec, withEvent: boolean): string {
  const set = Object.keys(spec.set ?? {}).join(',');
  return `${withEvent ? 'event' : 'alone'}|${spec.table}|${spec.idColumn ?? ''}|${spec.statusColumn ?? ''}|${spec.versionColumn ?? ''}|${set}`;
}

function fromStates(spec: TransitionSpec): string[] {
  return typeof spec.from === 'string' ? [spec.from] : [...spec.from];
}

/** `$1` id, `$2` to, `$3` from, then the `set` values in the statement's order. */
function transitionValues(spec: TransitionSpec, statement: TransitionStatement): unknown[] {
  const set = spec.set ?? {};
  return [spec.id, spec.to, fromStates(spec), ...statement.setColumns.map((c) => set[c])];
}

/** Runs conditional transitions, alone or with their event, one statement cached per shape. @internal */
export class TransitionRunner {
  private readonly statements = new Map<string, TransitionStatement>();

  constructor(
    private readonly qualifiedOutbox: string,
    private readonly metrics: OutboxMetrics,
  ) {}

  /** The UPDATE (with `row`'s INSERT when given); returns the new version (the event's). */
  async run(sql: SqlExecutor, spec: TransitionSpec, row?: OutboxRow): Promise<number> {
    const statement = this.statementFor(spec, row !== undefined);
    const values = transitionValues(spec, statement);
    if (row) values.push(...outboxRowValues(row, EVENT_COLUMNS));
    const version = (await sql.query(statement.text, values, statement.name))[0]?.version;
    if (version == null) {
      this.metrics.transitionsRefused.inc();
      throw new InvalidTransitionError(spec.table, spec.id, fromStates(spec), spec.to);
    }
    if (row) this.metrics.flushed([row.eventType]);
    return Number(version);
  }

  private statementFor(spec: TransitionSpec, withEvent: boolean): TransitionStatement {
    const shape = shapeOf(spec, withEvent);
    let statement = this.statements.get(shape);
    if (!statement) {
      statement = withEvent
        ? transitionRecordStatement(spec, this.qualifiedOutbox)
        : transitionStatement(spec);
      if (this.statements.size >= MAX_CACHED_SHAPES) this.statements.clear();
      this.statements.set(shape, statement);
    }
    return statement;
  }
}
