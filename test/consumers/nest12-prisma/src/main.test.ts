import 'reflect-metadata';
import { PrismaHealthIndicator } from '@nestjs/terminus';
import { AppModule } from './prisma/app.module.js';
import { PrismaService } from './prisma/prisma.service.js';
import { healthParts } from './shared-health/health.parts.js';
import { cliBins } from './shared/cli-bins.js';
import { userPath } from './shared/user-path.js';

const health = healthParts({
  inject: [PrismaHealthIndicator, PrismaService],
  useFactory: (indicator: PrismaHealthIndicator, prisma: PrismaService) => ({
    pingCheck: (key: string) => indicator.pingCheck(key, prisma),
  }),
});
userPath(AppModule.register(health), { health: true, database: true });
cliBins();
