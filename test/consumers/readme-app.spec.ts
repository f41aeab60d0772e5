import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readmeApp } from './readme-app';

const ROOT = join(__dirname, '..', '..');
const NAMES = { topic: 'run-topic', group: 'run-group', broker: '10.0.0.1:9', packs: '/p' };

describe('the consumer app built from the root README', () => {
  it('finds every marked block and puts the run names in place of the README ones', () => {
    const app = readmeApp(ROOT, NAMES);
    expect([...app.files.keys()].sort()).toEqual([
      'src/app.module.ts',
      'src/health.controller.ts',
      'src/main.ts',
      'src/order-events.controller.ts',
      'src/orders.controller.ts',
      'src/orders.migration.ts',
      'src/orders.service.ts',
    ]);
    const all = [...app.files.values(), app.install, app.topic].join('\n');
    for (const name of ["'order-events'", "'shipping'", 'localhost:9092', '../nest-outbox/packs/'])
      expect(all).not.toContain(name);
    expect(app.topic).toContain("topic: 'run-topic'");
    expect(app.install).toContain('/p/nest-outbox-{core,outbox,relay,inbox}-0.1.0.tgz');
    expect(app.files.get('src/main.ts')).toContain("groupId: 'run-group'");
  });

  it("serves the README's consumer with InboxKafkaServer, and HTTP before the consumer joins", () => {
    const main = readmeApp(ROOT, NAMES).files.get('src/main.ts')!;
    expect(main).toContain('strategy: new InboxKafkaServer({');
    expect(main).not.toContain('Transport.KAFKA');
    expect(main.indexOf('await app.listen(')).toBeGreaterThan(0);
    expect(main.indexOf('await app.listen(')).toBeLessThan(
      main.indexOf('await app.startAllMicroservices()'),
    );
  });

  it('refuses a README that lost one of the marked blocks, naming it', () => {
    const root = mkdtempSync(join(tmpdir(), 'readme-app-'));
    try {
      writeFileSync(
        join(root, 'README.md'),
        '<!-- consumer-app: install -->\n\n```bash\nnpm i\n```\n',
      );
      expect(() => readmeApp(root, NAMES)).toThrow(/consumer-app: topic \| src\/orders.migration/);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
