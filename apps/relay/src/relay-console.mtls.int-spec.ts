import { request } from 'node:https';
import { createTestPki, type TestPki } from '../test/test-certificates';
import { ConsoleFixture } from '../test/console.fixture';
import { relayConsoleFromEnv } from './relay-console.config';

interface Answer {
  status: number;
  body: unknown;
}

describe('The operator console behind mTLS (real PostgreSQL + Kafka, real TLS)', () => {
  let pki: TestPki;
  let fx: ConsoleFixture;
  let url: URL;

  /** A request with the client certificate `client` (none when undefined). */
  function call(method: string, path: string, client?: string, body?: object): Promise<Answer> {
    return new Promise((resolve, reject) => {
      const req = request(
        {
          host: url.hostname,
          port: url.port,
          method,
          path,
          ca: pki.read('ca.crt'),
          ...(client ? { cert: pki.read(`${client}.crt`), key: pki.read(`${client}.key`) } : {}),
          headers: body ? { 'content-type': 'application/json' } : {},
        },
        (res) => {
          let text = '';
          res.on('data', (d: Buffer) => (text += d.toString()));
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              body: text ? (JSON.parse(text) as unknown) : null,
            }),
          );
        },
      );
      req.on('error', reject);
      req.end(body ? JSON.stringify(body) : undefined);
    });
  }

  beforeAll(async () => {
    pki = createTestPki();
    pki.issue('alice', 'ops-alice');
    pki.issue('mallory', 'mallory');
    pki.newCa('rogue');
    pki.issue('forged', 'ops-alice', 'rogue');
    const config = relayConsoleFromEnv({
      RELAY_CONSOLE_TLS_CERT: pki.path('server.crt'),
      RELAY_CONSOLE_TLS_KEY: pki.path('server.key'),
      RELAY_CONSOLE_TLS_CA: pki.path('ca.crt'),
      RELAY_CONSOLE_MTLS_SUBJECTS: 'ops-alice',
    });
    if (!config.enabled || !config.https) throw new Error('expected an mTLS console config');
    fx = await ConsoleFixture.create('console-mtls');
    url = new URL(await fx.start(config.auth ?? null, config.https));
  }, 120_000);

  afterAll(async () => {
    await fx?.drop();
    pki?.remove();
  });

  it('Given a parked event, when clients without a certificate, with one of another CA or of an unlisted subject call, then 401 and nothing changes; with a verified listed certificate the retry runs and is audited under its CN', async () => {
    const eventId = await fx.parkedEvent('mtls-1');
    for (const client of [undefined, 'forged', 'mallory']) {
      expect((await call('GET', '/operator/api/state', client)).status).toBe(401);
      const retry = await call('POST', `/operator/api/events/${eventId}/retry`, client, {});
      expect(retry.status).toBe(401);
    }
    expect(await fx.row(eventId)).toMatchObject({ parked: true });
    expect(await fx.audit()).toEqual([]);

    const state = await call('GET', '/operator/api/state', 'alice');
    expect(state).toMatchObject({ status: 200, body: { operator: 'cn:ops-alice' } });
    const retry = await call('POST', `/operator/api/events/${eventId}/retry`, 'alice', {
      reason: 'certificate rotated',
    });
    expect(retry).toMatchObject({ status: 200, body: { outcome: 'retried' } });
    expect(await fx.audit()).toMatchObject([
      { action: 'retry', actor: 'cn:ops-alice', reason: 'certificate rotated', event_id: eventId },
    ]);
  });
});
