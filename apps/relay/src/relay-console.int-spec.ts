import { ConsoleAccessError } from '@nest-outbox/relay-console';
import { consumeUntil, waitFor } from '@test/support';
import request from 'supertest';
import { ALICE_TOKEN, ConsoleFixture } from '../test/console.fixture';

describe('The standalone relay operator console over HTTP (real PostgreSQL + Kafka)', () => {
  let fx: ConsoleFixture;
  let server: string;
  const auth = { authorization: `Bearer ${ALICE_TOKEN}` };

  beforeAll(async () => {
    fx = await ConsoleFixture.create('console-api');
    server = await fx.start();
  });

  afterAll(async () => {
    await fx?.drop();
  });

  it.each([
    ['no Authorization header', {}],
    ['a wrong token', { authorization: `Bearer ${ALICE_TOKEN.replace(/.$/, 'x')}` }],
    ['a token of another length', { authorization: 'Bearer short' }],
    ['the token without the Bearer scheme', { authorization: ALICE_TOKEN }],
  ])(
    'Given a parked event, when a request comes with %s, then every action answers 401 and nothing changes',
    async (label, headers: Record<string, string>) => {
      const eventId = await fx.parkedEvent(`unauth-${label.length}`);
      const auditBefore = (await fx.audit()).length;
      const calls = [
        request(server).get('/operator/api/state'),
        request(server).get('/operator/api/parked'),
        request(server).post(`/operator/api/events/${eventId}/retry`).send({ reason: 'r' }),
        request(server).post(`/operator/api/events/${eventId}/skip`).send({ reason: 'r' }),
        request(server)
          .post('/operator/api/republish')
          .send({ aggregateType: 'thing', reason: 'r' }),
        request(server).post('/operator/api/relay/pause').send({ reason: 'r' }),
        request(server).post('/operator/api/relay/resume').send({}),
      ];
      for (const call of calls) {
        const answer = await call.set(headers);
        expect(answer.status).toBe(401);
        expect(JSON.stringify(answer.body)).not.toContain('do-not-show');
      }
      expect(await fx.row(eventId)).toEqual({
        parked: true,
        published: false,
        skipped_by: null,
        skip_reason: null,
      });
      expect((await fx.audit()).length).toBe(auditBefore);
      const health = await request(server).get('/health');
      expect(health.body.details.relay).toMatchObject({ running: true, paused: false });
    },
  );

  it('Given parked events, when an operator lists them, then they come without payloads', async () => {
    const eventId = await fx.parkedEvent('listed');
    const answer = await request(server).get('/operator/api/parked').set(auth).expect(200);
    const listed = (answer.body as { eventId: string }[]).find((e) => e.eventId === eventId);
    expect(listed).toMatchObject({ eventType: 'thing.happened', aggregateId: 'listed' });
    expect(JSON.stringify(answer.body)).not.toContain('do-not-show');
    expect(listed).not.toHaveProperty('payload');
  });

  it('Given a parked event, when an operator retries it, then it is published and the retry is audited with who, what, when and why', async () => {
    const eventId = await fx.parkedEvent('retried');
    const started = new Date(Date.now() - 1000);
    const answer = await request(server)
      .post(`/operator/api/events/${eventId}/retry`)
      .set(auth)
      .send({ reason: 'broker fixed' })
      .expect(200);
    expect(answer.body).toEqual({ outcome: 'retried', eventId });
    await consumeUntil([fx.topic], (r) => r.some((x) => x.headers.event_id === eventId));
    await waitFor('the mark', async () => (await fx.row(eventId))?.published);
    const audit = (await fx.audit()).find((a) => a.event_id === eventId);
    expect(audit).toMatchObject({ action: 'retry', actor: 'alice', reason: 'broker fixed' });
    expect(audit!.at.getTime()).toBeGreaterThanOrEqual(started.getTime());
  });

  it('Given a parked event, when an operator skips it without a reason, then 400 and nothing changes; with a reason it is skipped and audited', async () => {
    const eventId = await fx.parkedEvent('skipped');
    await request(server)
      .post(`/operator/api/events/${eventId}/skip`)
      .set(auth)
      .send({})
      .expect(400);
    expect((await fx.row(eventId))?.skipped_by).toBeNull();
    await request(server)
      .post(`/operator/api/events/${eventId}/skip`)
      .set(auth)
      .send({ reason: 'obsolete order' })
      .expect(200, { outcome: 'skipped', eventId });
    expect(await fx.row(eventId)).toMatchObject({
      skipped_by: 'alice',
      skip_reason: 'obsolete order',
    });
    expect((await fx.audit()).find((a) => a.event_id === eventId)).toMatchObject({
      action: 'skip',
      actor: 'alice',
    });
  });

  it('Given an unknown event, when retried, then 404; given a published one, then 409', async () => {
    await request(server)
      .post('/operator/api/events/00000000-0000-7000-8000-000000000000/retry')
      .set(auth)
      .expect(404);
    const published = (await fx.audit()).find((a) => a.action === 'retry')?.event_id;
    if (published)
      await request(server).post(`/operator/api/events/${published}/retry`).set(auth).expect(409);
  });

  it('Given published events, when an operator republishes their aggregate, then they are published again and the range is audited', async () => {
    const eventId = await fx.parkedEvent('replayed');
    await request(server).post(`/operator/api/events/${eventId}/retry`).set(auth).expect(200);
    await waitFor('the first publish', async () => (await fx.row(eventId))?.published);
    const answer = await request(server)
      .post('/operator/api/republish')
      .set(auth)
      .send({ aggregateType: 'thing', aggregateId: 'replayed', reason: 'consumer rebuilt' })
      .expect(200);
    expect(answer.body).toEqual({ outcome: 'republishing', count: 1 });
    await consumeUntil(
      [fx.topic],
      (r) => r.filter((x) => x.headers.event_id === eventId).length >= 2,
    );
    expect((await fx.audit()).at(-1)).toMatchObject({
      action: 'republish',
      actor: 'alice',
      reason: 'consumer rebuilt',
      details: { aggregateType: 'thing', aggregateId: 'replayed' },
    });
  });

  it('Given a running relay, when an operator pauses it, then nothing is published until it is resumed, health says paused, and both are audited', async () => {
    await request(server).post('/operator/api/relay/pause').set(auth).send({}).expect(400);
    await request(server)
      .post('/operator/api/relay/pause')
      .set(auth)
      .send({ reason: 'maintenance' })
      .expect(200);
    const state = await request(server).get('/operator/api/state').set(auth).expect(200);
    expect(state.body).toMatchObject({ operator: 'alice', running: false, paused: true });
    // The relay's own sampler (its latest figures): a state and its forecast.
    expect(state.body.pressure).toMatchObject({
      state: expect.stringMatching(/^(ok|warn|critical)$/) as unknown,
      backlog: expect.any(Number) as unknown,
    });
    expect(state.body.pressure).toHaveProperty('forecastSeconds');
    const health = await request(server).get('/health');
    expect(health.body.details.relay).toMatchObject({ running: false, paused: true });

    const eventId = await fx.parkedEvent('while-paused');
    await request(server).post(`/operator/api/events/${eventId}/retry`).set(auth).expect(200);
    const polled = await fx.row(eventId);
    expect(polled?.published).toBe(false);

    await request(server).post('/operator/api/relay/resume').set(auth).send({}).expect(200);
    await waitFor('the publish after resume', async () => (await fx.row(eventId))?.published);
    const actions = (await fx.audit()).map((a) => `${a.action}:${a.actor}:${a.reason ?? ''}`);
    expect(actions).toEqual(expect.arrayContaining(['pause:alice:maintenance', 'resume:alice:']));
  });

  it('Given no token and no mTLS, when the app starts, then it refuses with ConsoleAccessError saying how to configure it', async () => {
    const bare = await ConsoleFixture.create('console-none');
    try {
      await expect(bare.start(null)).rejects.toThrow(ConsoleAccessError);
      await expect(bare.start({ bearer: { tokens: { bob: 'too-short' } } })).rejects.toThrow(
        /shorter than 32 characters/,
      );
      await expect(bare.start(null)).rejects.toThrow(/RELAY_CONSOLE_TOKENS=alice:<token>/);
    } finally {
      await bare.drop();
    }
  });
});
