import { consumeUntil, describeWithTool, findTool, waitFor } from '@test/support';
import { chromium, type Browser } from 'playwright-core';
import { ALICE_TOKEN, ConsoleFixture } from '../test/console.fixture';

/** Debian's chromium package (.ci/run installs it; a test never does). */
const CHROMIUM = findTool(
  process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  'apt-get install chromium, or set CHROMIUM_PATH',
);

describeWithTool(
  CHROMIUM,
  'The operator console page in a real headless Chromium (real PostgreSQL + Kafka)',
  (executablePath) => {
    let fx: ConsoleFixture;
    let url: string;
    let browser: Browser;

    beforeAll(async () => {
      fx = await ConsoleFixture.create('console-page');
      url = await fx.start();
      browser = await chromium.launch({
        executablePath,
        headless: true,
        // Root in CI containers: Chromium's sandbox needs user namespaces it may not have.
        args: ['--no-sandbox', '--disable-dev-shm-usage'],
      });
    }, 120_000);

    afterAll(async () => {
      await browser?.close();
      await fx?.drop();
    });

    it('Given a parked event, when an operator logs in with the token and clicks Retry, then the event is published and leaves the parked list', async () => {
      const eventId = await fx.parkedEvent('browser-1');
      const other = await fx.parkedEvent('browser-2');
      // The console shows the relay's latest figures (they never wait on a statement): wait for
      // the sample that counts both parked events.
      await waitFor('figures that count the parked events', async () => {
        const state = await fetch(`${url}/operator/api/state`, {
          headers: { authorization: `Bearer ${ALICE_TOKEN}` },
        });
        const body = (await state.json()) as { backlog: { parked: number } | null };
        return (body.backlog?.parked ?? 0) >= 2 ? true : undefined;
      });
      const page = await browser.newPage();
      const refused: string[] = [];
      page.on('console', (m) => {
        if (m.type() === 'error') refused.push(m.text());
      });
      await page.goto(`${url}/operator`);

      // A wrong token is refused and shows nothing.
      await page.fill('#token', `${ALICE_TOKEN}-wrong`);
      await page.click('#login-button');
      await page.waitForSelector('#message:has-text("Token refused")');
      expect(await page.isVisible('#console')).toBe(false);

      await page.fill('#token', ALICE_TOKEN);
      await page.click('#login-button');
      await page.waitForSelector(`tr[data-event-id="${eventId}"]`);
      expect(await page.textContent('#operator')).toBe('alice');
      expect(Number(await page.textContent('#parked-count'))).toBeGreaterThanOrEqual(2);
      expect(await page.textContent('#pressure')).toMatch(/^(ok|warn|critical)$/);
      expect(await page.content()).not.toContain('do-not-show');

      await page.fill('#reason', 'fixed the topic');
      await page.click(`tr[data-event-id="${eventId}"] >> text=Retry`);
      await page.waitForSelector('#message:has-text("Retry: retried")');

      const [record] = await consumeUntil([fx.topic], (r) =>
        r.some((x) => x.headers.event_id === eventId),
      );
      expect(record).toBeDefined();
      await waitFor('the mark', async () => (await fx.row(eventId))?.published);
      await page.click('#refresh');
      await page.waitForSelector(`tr[data-event-id="${eventId}"]`, { state: 'detached' });
      expect(await page.isVisible(`tr[data-event-id="${other}"]`)).toBe(true);
      expect((await fx.audit()).find((a) => a.event_id === eventId)).toMatchObject({
        action: 'retry',
        actor: 'alice',
        reason: 'fixed the topic',
      });

      // Skip needs a reason; the page sends the one typed.
      await page.fill('#reason', 'duplicate of an earlier order');
      await page.click(`tr[data-event-id="${other}"] >> text=Skip`);
      await page.waitForSelector(`tr[data-event-id="${other}"]`, { state: 'detached' });
      expect(await fx.row(other)).toMatchObject({
        skipped_by: 'alice',
        skip_reason: 'duplicate of an earlier order',
      });
      // Only the deliberate wrong-token request failed (its 401).
      expect(refused.filter((text) => !text.includes('401'))).toEqual([]);
      await page.close();
    });
  },
);
