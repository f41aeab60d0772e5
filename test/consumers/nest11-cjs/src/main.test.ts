import 'reflect-metadata';
import { TypeOrmHealthIndicator } from '@nestjs/terminus';
import { AppModule } from './shared/app.module.js';
import { healthParts } from './shared-health/health.parts.js';
import { cliBins } from './shared/cli-bins.js';
import { userPath } from './shared/user-path.js';

userPath(AppModule.register(healthParts({ useExisting: TypeOrmHealthIndicator })), {
  health: true,
  database: true,
});
cliBins();
