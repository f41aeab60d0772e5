import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from '../generated/prisma/client.js';
import { consumerEnv } from '../shared/consumer-env.js';

/** Prisma 7 on `@prisma/adapter-pg`: no native query engine. */
@Injectable()
export class PrismaService extends PrismaClient implements OnModuleDestroy {
  constructor() {
    super({ adapter: new PrismaPg({ connectionString: consumerEnv.databaseUrl, max: 3 }) });
  }

  async onModuleDestroy(): Promise<void> {
    await this.$disconnect();
  }
}
