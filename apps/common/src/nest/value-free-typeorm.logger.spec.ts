import { Logger } from '@nestjs/common';
import { QueryFailedError, type Logger as TypeOrmLogger } from 'typeorm';
import { ValueFreeTypeOrmLogger } from './value-free-typeorm.logger';

describe('ValueFreeTypeOrmLogger (unit)', () => {
  it('Given a failed query with parameters, then it logs the error class and SQLSTATE, never the SQL parameters or the driver message; PostgreSQL gone is left to the request filter', () => {
    const lines: string[] = [];
    const record = (message: unknown) => void lines.push(String(message));
    const spies = [
      jest.spyOn(Logger.prototype, 'log').mockImplementation(record),
      jest.spyOn(Logger.prototype, 'warn').mockImplementation(record),
      jest.spyOn(Logger.prototype, 'error').mockImplementation(record),
    ];
    const logger: TypeOrmLogger = new ValueFreeTypeOrmLogger();
    const driverError = Object.assign(new Error('value "MARKER" out of range for type integer'), {
      code: '22003',
    });
    const query = 'INSERT INTO "orders" ("amount_cents") VALUES ($1)';
    logger.logQuery(query, ['MARKER']);
    logger.logQueryError(new QueryFailedError(query, ['MARKER'], driverError), query, ['MARKER']);
    logger.logQuerySlow(1500, query, ['MARKER']);
    const gone = Object.assign(new Error('terminating connection'), { code: '57P01' });
    logger.logQueryError(new QueryFailedError(query, ['MARKER'], gone), query, ['MARKER']);
    for (const spy of spies) spy.mockRestore();

    expect(lines).toEqual(['query failed: QueryFailedError code=22003', 'slow query: 1500 ms']);
  });
});
