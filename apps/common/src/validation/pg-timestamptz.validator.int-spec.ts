import { Client } from 'pg';
import { DATABASE_URL } from '@test/support';
import { PG_TIMESTAMPTZ_MAX_MS, PG_TIMESTAMPTZ_MIN_MS } from './pg-column.bounds';
import { parsePgTimestamptz } from './pg-timestamptz.validator';

/** The accepted range is PostgreSQL's: its bounds go through node-postgres and back. */
describe('IsPgTimestamptz bounds against real PostgreSQL (integration)', () => {
  const client = new Client({ connectionString: DATABASE_URL });
  beforeAll(() => client.connect());
  afterAll(() => client.end());

  it('Given the earliest and the latest accepted instants, then PostgreSQL stores each as sent', async () => {
    for (const ms of [PG_TIMESTAMPTZ_MIN_MS, PG_TIMESTAMPTZ_MAX_MS]) {
      const { rows } = await client.query<{ t: Date }>('SELECT $1::timestamptz AS t', [
        new Date(ms),
      ]);
      expect(rows[0]?.t.getTime()).toBe(ms);
    }
  });

  it('Given the first instant PostgreSQL refuses (1 ms before its range), then the validator refuses it too', async () => {
    const refused = new Date(PG_TIMESTAMPTZ_MIN_MS - 86_400_001);
    await expect(client.query('SELECT $1::timestamptz', [refused])).rejects.toMatchObject({
      code: '22008',
    });
    expect(parsePgTimestamptz(refused)).toBeUndefined();
  });
});
