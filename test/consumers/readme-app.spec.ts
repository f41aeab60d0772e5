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

  it.each([
    ['readme-prisma', ['src/prisma/prisma.service.ts', 'prisma/schema.prisma', 'prisma.config.ts']],
    ['readme-drizzle', ['src/drizzle/drizzle.module.ts', 'src/db/schema.ts', 'drizzle.config.ts']],
  ] as const)(
    "builds %s from the README's main.ts, controller and health check and docs/STACKS.md's blocks",
    (app, own) => {
      const built = readmeApp(ROOT, NAMES, app, new Date('2026-12-07T17:25:08.123Z'));
      const plain = readmeApp(ROOT, NAMES);
      for (const file of ['src/main.ts', 'src/orders.controller.ts', 'src/health.controller.ts'])
        expect(built.files.get(file)).toBe(plain.files.get(file));
      expect(built.topic).toBe(plain.topic);
      for (const file of [...own, 'src/app.module.ts', 'src/orders.service.ts'])
        expect(built.files.get(file)).not.toBe(plain.files.get(file));
      expect(built.files.has('src/orders.migration.ts')).toBe(false);
      expect(built.migrate).toContain('npx nest-outbox sql --schema');
      expect(built.install).toContain('/p/nest-outbox-{core,outbox,relay,inbox}-0.1.0.tgz');
      expect(built.files.get('src/app.module.ts')).toContain("routes: { order: 'run-topic' }");
    },
  );

  it("names the Prisma migration of the app's tables by a timestamp, as Prisma does", () => {
    const app = readmeApp(ROOT, NAMES, 'readme-prisma', new Date('2026-12-07T17:25:08.123Z'));
    expect(app.files.get('prisma/migrations/20261207172508_orders/migration.sql')).toContain(
      'CREATE TABLE app.orders',
    );
    expect(app.generate).toContain('npx prisma generate');
  });

  it("keeps the Drizzle app's push away from the suite's tables: they live in a schema drizzle-kit does not see", () => {
    const app = readmeApp(ROOT, NAMES, 'readme-drizzle');
    expect(app.files.get('drizzle.config.ts')).toContain("schemaFilter: ['app']");
    expect(app.files.get('src/app.module.ts')).toContain(
      "OutboxModule.forRoot({ schema: 'nest_outbox' })",
    );
    expect(app.migrate).toContain('npx nest-outbox sql --schema nest_outbox');
    expect(app.push).toContain('npx drizzle-kit push');
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
